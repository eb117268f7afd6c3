import GRDB
import StoreDeskCore

extension QueueQuery {
    var whereClause: (sql: String, arguments: StatementArguments) {
        var terms = ["finished = 0"]
        var arguments: StatementArguments = []
        if let state {
            terms.append("state = ?")
            arguments += [state.rawValue]
        }
        if let userId {
            terms.append("user_id = ?")
            arguments += [userId]
        }
        if let environment {
            terms.append("environment = ?")
            arguments += [environment.rawValue]
        }
        if let product {
            terms.append("product_id LIKE ? ESCAPE '\\'")
            arguments += ["%" + Self.escapedForLike(product) + "%"]
        }
        if let text {
            let pattern = "%" + Self.escapedForLike(text) + "%"
            terms.append("(id LIKE ? ESCAPE '\\' OR user_id LIKE ? ESCAPE '\\' OR product_id LIKE ? ESCAPE '\\')")
            arguments += [pattern, pattern, pattern]
        }
        return (terms.joined(separator: " AND "), arguments)
    }

    /// The filter split for `ListCounting`: what the indexes answer (unfinished, state, player), and the
    /// LIKE tests they do not.
    var countConditions: (indexed: [(String, StatementArguments)], scanned: [(String, StatementArguments)]) {
        var indexed: [(String, StatementArguments)] = [("finished = 0", [])]
        var scanned: [(String, StatementArguments)] = []
        if let state { indexed.append(("state = ?", [state.rawValue])) }
        if let userId { indexed.append(("user_id = ?", [userId])) }
        if let environment { scanned.append(("environment = ?", [environment.rawValue])) }
        if let product { scanned.append(("product_id LIKE ? ESCAPE '\\'", ["%" + Self.escapedForLike(product) + "%"])) }
        if let text {
            let pattern = "%" + Self.escapedForLike(text) + "%"
            scanned.append(("id LIKE ? ESCAPE '\\' OR user_id LIKE ? ESCAPE '\\' OR product_id LIKE ? ESCAPE '\\'", [pattern, pattern, pattern]))
        }
        return (indexed, scanned)
    }

    static func escapedForLike(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_")
    }
}

extension AppDatabase {
    /// How many transactions in the queue are Sandbox purchases.
    public func sandboxQueueCount() throws -> Int {
        try reader.read { db in
            try Int.fetchOne(
                db, sql: "SELECT COUNT(*) FROM store_transaction WHERE finished = 0 AND environment = ?",
                arguments: [StoreEnvironment.sandbox.rawValue]) ?? 0
        }
    }

    /// How many transactions wait in the queue, per state (all of them, whatever the filter).
    public func queueCounts() throws -> [TransactionState: Int] {
        try reader.read { db in
            var counts: [TransactionState: Int] = [:]
            let rows = try Row.fetchAll(db, sql: "SELECT state, COUNT(*) AS n FROM store_transaction WHERE finished = 0 GROUP BY state")
            for row in rows {
                if let state = TransactionState(rawValue: try row.decode(String.self, forColumn: "state")) {
                    counts[state] = try row.decode(Int.self, forColumn: "n")
                }
            }
            return counts
        }
    }

    /// How many events of each kind were written after `eventId` (all of them when nil: then only the
    /// newest id is read, so a console opened on a big store does not count its history).
    public func eventTally(after eventId: Int64?) throws -> EventTally {
        try reader.read { db in
            let last = try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM transaction_event") ?? 0
            guard let eventId else { return EventTally(lastEventId: last, kinds: [:]) }
            var kinds: [PaymentEvent.Kind: Int] = [:]
            let rows = try Row.fetchAll(
                db, sql: "SELECT kind, COUNT(*) AS n FROM transaction_event WHERE id > ? AND id <= ? GROUP BY kind",
                arguments: [eventId, last])
            for row in rows {
                if let kind = PaymentEvent.Kind(rawValue: try row.decode(String.self, forColumn: "kind")) {
                    kinds[kind] = try row.decode(Int.self, forColumn: "n")
                }
            }
            return EventTally(lastEventId: last, kinds: kinds)
        }
    }

    /// The events the activity reads, as the partial index `transaction_event_activity` (v17) names them:
    /// a query must say this very term for SQLite to use that index.
    /// Written out, as a migration is never edited: a test checks it is `QueueActivity.kinds`.
    static let activityKinds =
        "kind IN ('purchasing', 'failed', 'callback_accepted', 'callback_rejected', 'callback_duplicate', 'callback_abandoned', 'callback_failed', 'granted')"

    /// Purchases, grants and failures counted per bucket of `window`, and the slowest callback reply per
    /// bucket (from its order's creation to the reply, on the store's clock), grouped in SQL. Both
    /// statements seek `transaction_event_activity` on `at` between the window's ends and read nothing
    /// older, however many events the store holds; a reply finds its order by `order_on_transaction`.
    public func queueActivity(_ window: QueueActivity.Window) throws -> QueueActivity {
        guard window.count > 0 else { return QueueActivity(window: window) }
        let arguments: StatementArguments = [window.start.millis, window.bucket.millis, window.start.millis, window.end.millis]
        return try reader.read { db in
            var activity = QueueActivity(window: window)
            let counts = try Row.fetchCursor(
                db,
                sql: """
                    SELECT (at - ?) / ? AS bucket, kind, COUNT(*) AS n FROM transaction_event
                    WHERE \(Self.activityKinds) AND at >= ? AND at < ? GROUP BY bucket, kind
                    """,
                arguments: arguments)
            while let row = try counts.next() {
                guard let kind = PaymentEvent.Kind(rawValue: try row.decode(String.self, forColumn: "kind")) else { continue }
                activity.add(try row.decode(Int.self, forColumn: "n"), of: kind, bucket: try row.decode(Int.self, forColumn: "bucket"))
            }
            let replies = QueueActivity.replyKinds.map { "'\($0.rawValue)'" }.joined(separator: ", ")
            let latency = try Row.fetchCursor(
                db,
                sql: """
                    SELECT (e.at - ?) / ? AS bucket, MAX(e.at - o.created_at) AS slowest FROM transaction_event e
                    JOIN payment_order o ON o.transaction_id = e.transaction_id
                    WHERE e.\(Self.activityKinds) AND e.kind IN (\(replies)) AND e.at >= ? AND e.at < ? GROUP BY bucket
                    """,
                arguments: arguments)
            while let row = try latency.next() {
                activity.reply(after: Int(clamping: try row.decode(Int64.self, forColumn: "slowest")), bucket: try row.decode(Int.self, forColumn: "bucket"))
            }
            return activity
        }
    }

    /// How the latest `limit` callback attempts that went to real game servers fared (attempts StoreDesk's
    /// own game server answered in process are skipped, but count towards `limit`, so a store of millions
    /// of in-process callbacks is never scanned): the Queue screen's header.
    public func recentDeliveries(limit: Int) throws -> CallbackDeliveries {
        try reader.read { db in
            let rows = try Row.fetchCursor(
                db,
                sql: "SELECT verdict, url, http_status, reply, latency_us FROM server_callback ORDER BY id DESC LIMIT ?",
                arguments: [limit])
            var deliveries = CallbackDeliveries()
            while let row = try rows.next() {
                // `column` throws where `row["…"]` traps: a store edited by hand can hold text where a number belongs.
                guard let url: String = try row.column("url") else { continue }
                deliveries.record(
                    CallbackAttempt(
                        orderId: "", attempt: 0, body: "", signExpected: "", signReceived: "", verdict: try row.column("verdict"), reason: "",
                        reply: try row.column("reply"), receivedAt: Instant(millis: 0), url: url, httpStatus: try row.column("http_status"),
                        latencyMicros: try row.column("latency_us")))
            }
            return deliveries
        }
    }

    /// One transaction with its timeline, order, callbacks and grant.
    public func queueDetail(transactionId: String) throws -> QueueDetail? {
        try reader.read { db in
            guard let transaction = try StoreTransaction.fetchOne(db, matching: "id", transactionId) else { return nil }
            let events = try PaymentEvent.fetchAll(
                db, sql: "SELECT * FROM transaction_event WHERE transaction_id = ? ORDER BY id", arguments: [transactionId])
            let order = try PaymentOrder.fetchOne(db, sql: "SELECT * FROM payment_order WHERE transaction_id = ?", arguments: [transactionId])
            var callbacks: [CallbackAttempt] = []
            var grant: Grant?
            if let order {
                callbacks = try CallbackAttempt.fetchAll(
                    db, sql: "SELECT * FROM server_callback WHERE order_id = ? ORDER BY id", arguments: [order.id])
                grant = try Grant.fetchOne(db, sql: "SELECT * FROM item_grant WHERE order_id = ?", arguments: [order.id])
            }
            return QueueDetail(transaction: transaction, events: events, order: order, callbacks: callbacks, grant: grant)
        }
    }

    /// `finishTransaction` on one transaction of the store, as the client would call it: refused while
    /// it is purchasing or deferred, or paid but not yet granted, and while another process's payment
    /// run has it in flight (that run moves it on). The transaction and its event are written together.
    public func finishTransaction(id: String, at: Instant, by staff: StaffMember) throws -> Result<StoreTransaction, TransactionRefusal> {
        if let refusal = staff.refusal(.driveSimulation) { throw StoreError.invalidArgument(refusal) }
        return try write { db in
            let transaction = try StoreTransaction.fetchOne(db, matching: "id", id)
            var liveOwner: Int64?
            if transaction?.finished == false,
                let owner = try Int64.fetchOne(db, sql: "SELECT run_id FROM store_transaction WHERE id = ?", arguments: [id]),
                !(try PaymentRuns.isGone(db, owner, store: path, now: at))
            {
                liveOwner = owner
            }
            let order = transaction?.state == .purchased
                ? try PaymentOrder.fetchOne(db, sql: "SELECT * FROM payment_order WHERE transaction_id = ?", arguments: [id]) : nil
            let decided = FinishTransaction.decide(transaction, id: id, liveOwner: liveOwner, order: order)
            if case .success(let finished) = decided {
                let event = FinishTransaction.event(finished, by: staff, at: try StoreMeta.stamp(at, in: db))
                try PaymentRowWriter(db).write(PaymentChange(transaction: finished, events: [event]))
            }
            return decided
        }
    }
}
