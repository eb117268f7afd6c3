import Foundation
import PostgresNIO
import StoreDeskCore
import StoreDeskStoreAPI
import StoreDeskTrust

/// The Subscriptions list, its counts and details, and the live demo's setup on PostgreSQL. The plan
/// (which groups a page reads, each state as SQL at the instant, the next change) is every backend's
/// (`SubscriptionSearch.plan`, `condition`, `nextChangeQuery`); the SQL around it is this store's.
extension PostgresStore: SubscriptionStore {
    public func subscriptions(_ search: SubscriptionSearch) -> any ListPager<SubscriptionListRow> {
        PostgresSubscriptionPager(store: self, search: search)
    }

    public func subscriptionCountsAndNextChange(_ search: SubscriptionSearch) throws -> ([SubscriptionState: Int], Instant?) {
        try session.transaction(readOnly: true) { db in
            var counts: [SubscriptionState: Int] = [:]
            for group in SubscriptionSearch.order {
                var sql = SQLBuilder("SELECT count(*) FROM subscription s WHERE " + search.condition(group))
                Self.filter(search, &sql)
                counts[group] = Int(try db.rows(sql.query).first?.decode(Int64.self) ?? 0)
            }
            let next = try db.rows(PostgresQuery(unsafeSQL: search.nextChangeQuery)).first?.decode(Int64?.self)
            return (counts, next.map(Instant.init(millis:)))
        }
    }

    public func subscriptionDetail(originalTransactionId id: String) throws -> (SubscriptionListRow, [SubscriptionEvent])? {
        try session.transaction(readOnly: true) { db in
            guard let subscription = try db.rows("SELECT * FROM subscription WHERE original_transaction_id = \(id)").first
                .map({ try cells($0).subscription() }),
                let user = try db.rows(#"SELECT * FROM "user" WHERE id = \#(subscription.userId)"#).first.map({ try cells($0).user() })
            else { return nil }
            return (SubscriptionListRow(subscription: subscription, userName: user.displayName), try chainEvents([id], db)[id] ?? [])
        }
    }

    public func subscriptionDemoSetup(userId: String, productId: String?, at instant: Instant) throws -> SubscriptionDemoSetup {
        try session.transaction(readOnly: true) { db in
            guard let user = try db.rows(#"SELECT * FROM "user" WHERE id = \#(userId)"#).first.map({ try cells($0).user() }) else {
                throw StoreError.unknownUser(id: userId)
            }
            let account = try db.rows(
                #"SELECT app_id, app_account_token FROM game_account WHERE user_id = \#(userId) ORDER BY app_id COLLATE "C" LIMIT 1"#
            ).first.map { try $0.decode((String, String?).self) }
            let chosen = try productId.flatMap { id in try db.rows("SELECT * FROM product WHERE id = \(id)").first.map { try cells($0).product() } }
            if let productId, chosen == nil { throw StoreError.invalidArgument("no product '\(productId)'") }
            let firstApp = try db.rows(#"SELECT id FROM app ORDER BY id COLLATE "C" LIMIT 1"#).first?.decode(String.self)
            guard let appId = chosen?.appId ?? account?.0 ?? firstApp,
                let app = try db.rows("SELECT * FROM app WHERE id = \(appId)").first.map({ try cells($0).app() })
            else { throw StoreError.invalidArgument("the store has no app to subscribe in") }
            let (catalogue, product) = try SubscriptionDemoSetup.product(
                chosen: chosen, app: app, appProducts: try db.rows("SELECT * FROM product WHERE app_id = \(app.id)").map { try cells($0).product() })
            let stored = try db.rows(
                #"""
                SELECT * FROM subscription WHERE user_id = \#(user.id) AND group_id = \#(product.subscriptionGroup)
                  AND state IN ('active', 'grace_period', 'billing_retry') ORDER BY original_transaction_id
                """#
            ).map { try cells($0).subscription() }
            let highest = try db.rows(
                """
                SELECT max(substring(original_transaction_id from '^[0-9]+')::numeric)::text FROM subscription
                WHERE original_transaction_id ~ '^[0-9]' AND char_length(original_transaction_id) <= 18
                """
            ).first?.decode(String?.self).flatMap { UInt64($0) } ?? 0
            let events = try chainEvents(stored.map(\.id), db)
            return try SubscriptionDemoSetup.checked(
                user: user, app: app, catalogue: catalogue, product: product,
                appAccountToken: account?.0 == app.id ? account?.1 : nil, stored: stored,
                events: stored.flatMap { events[$0.id] ?? [] }, highest: highest, at: instant)
        }
    }

    public func recordSimulatedNotifications(_ events: [SubscriptionEvent], at now: Instant, rate: TimeRate) throws
        -> NotificationImport.Report
    {
        guard !isReadOnly else { throw StoreError.readOnlyFile(path: name) }
        return try write { db in
            try PostgresNotificationImporter(
                store: self, db: db, source: "simulation", wallClock: now, stampAt: now, timeRate: rate, clockAtLeast: now
            ).run(SubscriptionEventLines(events: events))
        }
    }

    /// The text filter (ILIKE: ASCII case ignored, as SQLite's LIKE does, the columns being "C").
    static func filter(_ search: SubscriptionSearch, _ sql: inout SQLBuilder) {
        guard let pattern = search.textPattern else { return }
        sql.append(SubscriptionSearch.textCondition(like: "ILIKE", pattern: sql.bind(pattern)))
    }
}

/// The subscriptions grouped by their state at the search's instant.
struct PostgresSubscriptionPager: ListPager {
    let store: PostgresStore
    let search: SubscriptionSearch

    func cursor(of row: SubscriptionListRow) -> SubscriptionSearch.Cursor { search.cursor(of: row) }

    func page(_ anchor: SubscriptionSearch.Anchor, limit: Int) throws -> [SubscriptionListRow] {
        guard limit > 0 else { return [] }
        let plan = search.plan(anchor)
        return try store.session.transaction(readOnly: true) { db in
            var rows: [SubscriptionListRow] = []
            for group in plan.groups where rows.count < limit {
                var sql = SQLBuilder(
                    #"SELECT s.*, u.name AS sd_name, u.friendly_name AS sd_friendly FROM subscription s JOIN "user" u ON u.id = s.user_id WHERE "#
                        + search.condition(group))
                PostgresStore.filter(search, &sql)
                if let cursor = plan.cursor, cursor.state == group {
                    let after = plan.after(cursor, in: group) { (sql.bind($0.expires.millis), sql.bind($0.id)) }
                    sql.append(after)
                }
                sql.append(plan.orderBy(group) + " LIMIT \(limit - rows.count)")
                rows += try db.rows(sql.query).map { row in
                    let cells = store.cells(row)
                    let friendly = try cells.text("sd_friendly")
                    return SubscriptionListRow(subscription: try cells.subscription(), userName: friendly.isEmpty ? try cells.text("sd_name") : friendly)
                }
            }
            return plan.backward ? rows.reversed() : rows
        }
    }

    func cursor(id: String) throws -> SubscriptionSearch.Cursor? {
        try store.session.rows("SELECT * FROM subscription WHERE original_transaction_id = \(id)").first
            .map { search.cursor(of: SubscriptionListRow(subscription: try store.cells($0).subscription(), userName: "")) }
    }

}

extension PostgresStore: NotificationImportStore {
    public func importNotifications(
        from file: NotificationFile, extraRoots: [TrustedRoot], allowUnverified: Bool, source: String, wallClock: Instant,
        stampAt: Instant?, each: (NotificationImport.Line) -> Void
    ) throws -> NotificationImport.Report {
        guard !isReadOnly else { throw StoreError.readOnlyFile(path: name) }
        return try write { db in
            let importer = try PostgresNotificationImporter(store: self, db: db, source: source, wallClock: wallClock, stampAt: stampAt)
            let roots = try db.rows("SELECT * FROM trust_root ORDER BY id").map { try cells($0).trustedRoot() }
            let own = try db.rows("SELECT * FROM signer WHERE id = 1").first.map { try cells($0).storedSigner() }
            let trust = try NotificationTrust.forImport(
                storeRoots: roots, ownRoot: own?.chain.rootDER, extraRoots: extraRoots, allowUnverified: allowUnverified, now: wallClock)
            let report = try importer.run(file, trust: trust, each: each)
            // Nothing at all was read (an empty file, or blank lines only): a mistaken file, not
            // "imported 0". Thrown inside the transaction, which rolls back: the store is untouched.
            if report.imported + report.skipped + report.rejected == 0 {
                throw StoreError.dataFile(path: file.path, message: NotificationImport.noLineMessage)
            }
            return report
        }
    }

    public func receiveNotification(signedPayload jws: String, source: String, wallClock: Instant, stampAt: Instant) async throws
        -> NotificationImport.Line?
    {
        return try await awaited { [self] in
            var line: NotificationImport.Line?
            let file = NotificationFile.received(signedPayload: jws)
            _ = try importNotifications(
                from: file, extraRoots: [], allowUnverified: false, source: source, wallClock: wallClock, stampAt: stampAt
            ) { line = $0 }
            return line
        }
    }

    public func subscriptionRecords(userId: String) throws -> SubscriptionRecords {
        try session.transaction(readOnly: true) { db in try PlayerProcedures.subscriptionRecords(procedures(db), userId: userId) }
    }

    public func subscriber(named text: String) throws -> String {
        try session.transaction(readOnly: true) { db in try PlayerProcedures.subscriber(procedures(db), named: text) }
    }
}
