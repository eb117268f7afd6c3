import PostgresNIO
import StoreDeskCore
import StoreDeskStoreAPI

/// The store's clock on PostgreSQL, read and moved in one place: `storeNow` reads it (locking its rows
/// when the caller will move it, so writers on several machines stamp in order), `advance` moves it up
/// only, and when the clock itself moves past a subscription's period, grace period or billing retry,
/// settles those rows as the SQLite store's `StoreMeta.advance` does (`SubscriptionSettling`).
extension PostgresStore {
    /// The store's now (its clock, else the wall clock, never before the latest stamp). A clock that is
    /// not a date is damage (`check` says so), never a time to answer at; a latest stamp that is not one
    /// is passed over. `locking` locks the clock's rows `FOR UPDATE` until the caller's transaction ends.
    func storeNow(_ db: PostgresSession.Transaction, wall: Instant, locking: Bool = false) throws -> StoreNow {
        let (clock, floor) = try clockRows(db, locking: locking)
        return StoreNow.resolve(storeClock: clock, floor: floor, wall: wall)
    }

    func clockRows(_ db: PostgresSession.Transaction, locking: Bool) throws -> (clock: Instant?, floor: Instant?) {
        var clock: Instant?, floor: Instant?
        let lock = locking ? " FOR UPDATE" : ""
        for row in try db.rows("SELECT key, value FROM store_meta WHERE key IN ('clock', 'stamped_through')\(unescaped: lock)") {
            let (key, value) = try row.decode((String, String).self)
            let instant = Int64(value).map(Instant.init(millis:)).flatMap { $0.isSupported ? $0 : nil }
            if key == "clock" {
                guard let instant else {
                    throw StoreError.damaged(path: name, detail: "its clock (store_meta 'clock' = '\(value)') \(StoreCheckRules.clockProblem)")
                }
                clock = instant
            } else {
                floor = instant
            }
        }
        return (clock, floor)
    }

    /// The instant a write stamps its rows at, as the SQLite store does it: never before the store's clock
    /// (or, in a store without one, the latest stamp written), and the clock moved up to it, in the
    /// writer's transaction. The clock's rows are locked, so writers on several machines stamp in order.
    func stamp(_ proposed: Instant, in db: PostgresSession.Transaction) throws -> Instant {
        let now = try storeNow(db, wall: proposed, locking: true)
        let stamp = max(proposed, now.instant)
        try advance(to: stamp, source: now.source, db)
        return stamp
    }

    /// Moves the store's time line up to `instant` (rows were stamped there, or a console closed at it);
    /// never back: its clock when it keeps one (`source` .store; nil: whichever it keeps), else its latest
    /// stamp. A clock that moves past a subscription row's period, grace period or billing retry writes
    /// that row again as it stands at the new clock.
    func advance(to instant: Instant, source: ClockSource? = nil, _ db: PostgresSession.Transaction) throws {
        let old = try clockRows(db, locking: true).clock
        let source = source ?? (old == nil ? .wall : .store)
        let key = source == .store ? "clock" : "stamped_through"
        try db.run(
            """
            INSERT INTO store_meta (key, value) VALUES (\(key), \(String(instant.millis)))
            ON CONFLICT (key) DO UPDATE SET value = excluded.value WHERE store_meta.value::bigint < excluded.value::bigint
            """)
        if source == .store, let old, instant > old, try subscriptionEnded(between: old, and: instant, db) {
            try settleSubscriptions(at: instant, db)
        }
    }

    /// Whether a subscription row's period, grace period or billing retry ends in `(old, new]`: probes on
    /// `subscription_on_state` within the longest retry's reach (as the SQLite store's).
    func subscriptionEnded(between old: Instant, and new: Instant, _ db: PostgresSession.Transaction) throws -> Bool {
        let limit = SubscriptionSettling.billingRetryLimit(), reach = SubscriptionSettling.realRetry
        let retryEnd = "expires_date + \(limit)"
        let graceEnd = "LEAST(COALESCE(grace_period_expires_date, expires_date), \(retryEnd))"
        let (o, n) = (old.millis, new.millis)
        return try db.rows(
            """
            SELECT EXISTS (SELECT 1 FROM subscription WHERE state = 'active' AND expires_date > \(o) AND expires_date <= \(n))
              OR EXISTS (SELECT 1 FROM subscription WHERE state = 'grace_period'
                AND expires_date > \(o) - \(reach) AND expires_date <= \(n)
                AND \(unescaped: graceEnd) > \(o) AND \(unescaped: graceEnd) <= \(n))
              OR EXISTS (SELECT 1 FROM subscription WHERE state = 'billing_retry'
                AND expires_date > \(o) - \(reach) AND expires_date <= \(n)
                AND \(unescaped: retryEnd) > \(o) AND \(unescaped: retryEnd) <= \(n))
            """
        ).first?.decode(Bool.self) ?? false
    }

    /// Writes again, as they stand at the moved clock `now`, the rows whose stored state it has left
    /// behind, a page at a time along `subscription_on_state`; each page's rows written by one statement.
    func settleSubscriptions(at now: Instant, _ db: PostgresSession.Transaction) throws {
        for pass in SubscriptionSettling.stalePasses(now: String(now.millis)) {
            var after: (expires: Int64, id: String) = (.min, "")
            while true {
                // A settled row leaves this state's stale range (or keeps its place in it), so the walk
                // goes on after the page's last row and meets no row twice.
                let stale = try db.rows(
                    """
                    SELECT * FROM subscription WHERE state = \(pass.state) AND \(unescaped: pass.stale)
                      AND (expires_date, original_transaction_id) > (\(after.expires), \(after.id))
                    ORDER BY expires_date, original_transaction_id LIMIT \(Int64(SubscriptionSettling.pageSize))
                    """
                ).map { try cells($0).subscription() }
                guard let last = stale.last else { break }
                after = (last.expiresDate.millis, last.id)
                let events = try chainEvents(stale.map(\.id), db)
                let products = try productsById(Array(Set(stale.map(\.productId))), db)
                let settled = stale.compactMap {
                    SubscriptionSettling.settled($0, events: events[$0.id] ?? [], product: products[$0.productId], at: now)
                }
                try saveSubscriptions(settled, db)
            }
        }
    }

    /// The notifications of these chains, decoded, by chain.
    func chainEvents(_ chains: [String], _ db: PostgresSession.Transaction) throws -> [String: [SubscriptionEvent]] {
        guard !chains.isEmpty else { return [:] }
        var events: [String: [SubscriptionEvent]] = [:]
        for row in try db.rows("SELECT * FROM subscription_event WHERE original_transaction_id = ANY(\(chains)) ORDER BY id") {
            let cells = cells(row)
            events[try cells.text("original_transaction_id"), default: []].append(try cells.subscriptionEvent())
        }
        return events
    }

    func productsById(_ ids: [String], _ db: PostgresSession.Transaction) throws -> [String: Product] {
        guard !ids.isEmpty else { return [:] }
        let products = try db.rows("SELECT * FROM product WHERE id = ANY(\(ids))").map { try cells($0).product() }
        return Dictionary(products.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Writes whole `subscription` rows (inserting or replacing each), many rows a statement.
    func saveSubscriptions(_ rows: [Subscription], _ db: PostgresSession.Transaction) throws {
        let columns = Self.subscriptionColumns
        let update = columns.dropFirst().map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
        try insert(
            rows.map(Self.values(of:)), into: "subscription", columns: columns,
            onConflict: "(original_transaction_id) DO UPDATE SET \(update)", db)
    }

    static let subscriptionColumns = [
        "original_transaction_id", "user_id", "app_id", "product_id", "group_id", "state", "auto_renew",
        "original_purchase_date", "purchase_date", "expires_date", "grace_period_expires_date", "revocation_date",
        "revocation_reason", "expiration_intent", "offer_type", "offer_id", "time_rate_month_ms", "apple_revocation_reason",
    ]

    /// A row's columns, in `subscriptionColumns` order.
    static func values(of row: Subscription) -> [StoreValue] {
        func text(_ value: String?) -> StoreValue { value.map { .text($0) } ?? .null }
        func int(_ value: Int64?) -> StoreValue { value.map { .integer($0) } ?? .null }
        return [
            .text(row.id), .text(row.userId), .text(row.appId), .text(row.productId), .text(row.groupId), .text(row.state.rawValue),
            .integer(row.autoRenew ? 1 : 0), .integer(row.originalPurchaseDate.millis), .integer(row.purchaseDate.millis),
            .integer(row.expiresDate.millis), int(row.gracePeriodExpiresDate?.millis), int(row.revocationDate?.millis),
            text(row.revocationReason), text(row.expirationIntent), text(row.offerType), text(row.offerId),
            int(row.timeRateMillisPerMonth), int(row.appleRevocationReason.map(Int64.init)),
        ]
    }
}
