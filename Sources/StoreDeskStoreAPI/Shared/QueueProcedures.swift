import StoreDeskCore

/// The payment queue's reads beside its list (counts, the event tally, the sparklines, the deliveries, one
/// transaction's detail) and `finishTransaction`, written once for both backends.
public enum QueueProcedures {
    /// How many unfinished transactions are Sandbox purchases.
    public static func sandboxCount(_ db: some StoreSQLTransaction) throws -> Int {
        Int(try db.row("SELECT COUNT(*) AS n FROM store_transaction WHERE finished = 0 AND environment = \(StoreEnvironment.sandbox)")?.int("n") ?? 0)
    }

    /// How many transactions wait in the queue, per state (all of them, whatever the filter).
    public static func counts(_ db: some StoreSQLTransaction) throws -> [TransactionState: Int] {
        var counts: [TransactionState: Int] = [:]
        for row in try db.rows("SELECT state, COUNT(*) AS n FROM store_transaction WHERE finished = 0 GROUP BY state") {
            if let state = TransactionState(rawValue: try row.text("state")) { counts[state] = Int(try row.int("n")) }
        }
        return counts
    }

    /// How many events of each kind were written after `eventId` (all of them when nil: then only the newest
    /// id is read, so a console opened on a big store does not count its history).
    public static func eventTally(_ db: some StoreSQLTransaction, after eventId: Int64?) throws -> EventTally {
        let last = try db.row("SELECT COALESCE(MAX(id), 0) AS last FROM transaction_event")?.int("last") ?? 0
        guard let eventId else { return EventTally(lastEventId: last, kinds: [:]) }
        var kinds: [PaymentEvent.Kind: Int] = [:]
        for row in try db.rows("SELECT kind, COUNT(*) AS n FROM transaction_event WHERE id > \(eventId) AND id <= \(last) GROUP BY kind") {
            if let kind = PaymentEvent.Kind(rawValue: try row.text("kind")) { kinds[kind] = Int(try row.int("n")) }
        }
        return EventTally(lastEventId: last, kinds: kinds)
    }

    /// The events the activity reads, as the SQLite store's partial index `transaction_event_activity` (v17)
    /// names them: a query must say this very term for SQLite to use that index. Written out, as a migration
    /// is never edited: a test checks it is `QueueActivity.kinds`.
    public static let activityKinds =
        "kind IN ('purchasing', 'failed', 'callback_accepted', 'callback_rejected', 'callback_duplicate', 'callback_abandoned', 'callback_failed', 'granted')"

    /// Purchases, grants and failures counted per bucket of `window`, and the slowest callback reply per bucket
    /// (from its order's creation to the reply, on the store's clock), grouped in SQL. Both statements seek the
    /// events on `at` between the window's ends and read nothing older, however many events the store holds; a
    /// reply finds its order by `order_on_transaction`.
    public static func activity(_ db: some StoreSQLTransaction, _ window: QueueActivity.Window) throws -> QueueActivity {
        guard window.count > 0 else { return QueueActivity(window: window) }
        var activity = QueueActivity(window: window)
        for row in try db.rows(
            """
            SELECT (at - \(window.start)) / \(window.bucket.millis) AS bucket, kind, COUNT(*) AS n FROM transaction_event
            WHERE \(sql: activityKinds) AND at >= \(window.start) AND at < \(window.end) GROUP BY bucket, kind
            """)
        {
            guard let kind = PaymentEvent.Kind(rawValue: try row.text("kind")) else { continue }
            activity.add(Int(try row.int("n")), of: kind, bucket: Int(try row.int("bucket")))
        }
        let replies = QueueActivity.replyKinds.map { "'\($0.rawValue)'" }.joined(separator: ", ")
        for row in try db.rows(
            """
            SELECT (e.at - \(window.start)) / \(window.bucket.millis) AS bucket, MAX(e.at - o.created_at) AS slowest FROM transaction_event e
            JOIN payment_order o ON o.transaction_id = e.transaction_id
            WHERE e.\(sql: activityKinds) AND e.kind IN (\(sql: replies)) AND e.at >= \(window.start) AND e.at < \(window.end) GROUP BY bucket
            """)
        {
            activity.reply(after: Int(clamping: try row.int("slowest")), bucket: Int(try row.int("bucket")))
        }
        return activity
    }

    /// How the latest `limit` callback attempts that went to real game servers fared (attempts StoreDesk's own
    /// game server answered in process are skipped, but count towards `limit`, so a store of millions of
    /// in-process callbacks is never scanned): the Queue screen's header.
    public static func recentDeliveries(_ db: some StoreSQLTransaction, limit: Int) throws -> CallbackDeliveries {
        var deliveries = CallbackDeliveries()
        for row in try db.rows("SELECT verdict, url, http_status, reply, latency_us FROM server_callback ORDER BY id DESC LIMIT \(max(0, limit))") {
            guard let url = try row.optionalText("url") else { continue }
            deliveries.record(
                CallbackAttempt(
                    orderId: "", attempt: 0, body: "", signExpected: "", signReceived: "", verdict: try row.text("verdict"), reason: "",
                    reply: try row.text("reply"), receivedAt: Instant(millis: 0), url: url, httpStatus: try row.optionalInt("http_status").map(Int.init),
                    latencyMicros: try row.optionalInt("latency_us").map(Int.init)))
        }
        return deliveries
    }

    /// One transaction with its timeline, order, callbacks and grant.
    public static func detail(_ db: some StoreSQLTransaction, transactionId: String) throws -> QueueDetail? {
        guard let transaction = try db.row("SELECT * FROM store_transaction WHERE id = \(transactionId)")?.transaction() else { return nil }
        let events = try db.rows("SELECT * FROM transaction_event WHERE transaction_id = \(transactionId) ORDER BY id").map { try $0.paymentEvent() }
        let order = try db.row("SELECT * FROM payment_order WHERE transaction_id = \(transactionId)")?.paymentOrder()
        var callbacks: [CallbackAttempt] = []
        var grant: Grant?
        if let order {
            callbacks = try db.rows("SELECT * FROM server_callback WHERE order_id = \(order.id) ORDER BY id").map { try $0.callbackAttempt() }
            grant = try db.row("SELECT * FROM item_grant WHERE order_id = \(order.id)")?.grant()
        }
        return QueueDetail(transaction: transaction, events: events, order: order, callbacks: callbacks, grant: grant)
    }

    /// `finishTransaction` on one transaction of the store, as the client would call it: refused while it is
    /// purchasing or deferred, or paid but not yet granted, and while another process's payment run has it in
    /// flight (that run moves it on). The transaction and its event are written together.
    public static func finish(_ db: some StoreSQLTransaction, id: String, at: Instant, by staff: StaffMember) throws
        -> Result<StoreTransaction, TransactionRefusal>
    {
        let row = try db.row("SELECT * FROM store_transaction WHERE id = \(id)\(.lockingRows)")
        let transaction = try row?.transaction()
        var liveOwner: Int64?
        if transaction?.finished == false, let owner = try row?.optionalInt("run_id"), !(try db.runIsGone(owner, now: at)) { liveOwner = owner }
        let order = transaction?.state == .purchased ? try db.row("SELECT * FROM payment_order WHERE transaction_id = \(id)")?.paymentOrder() : nil
        let decided = FinishTransaction.decide(transaction, id: id, liveOwner: liveOwner, order: order)
        if case .success(let finished) = decided {
            try db.write(PaymentChange(transaction: finished, events: [FinishTransaction.event(finished, by: staff, at: try db.stamp(at))]))
        }
        return decided
    }
}
