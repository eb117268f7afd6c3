import Foundation
import PostgresNIO
import StoreDeskCore
import StoreDeskStoreAPI

/// The store's time line on PostgreSQL: the same instant the SQLite store answers at (`StoreNow.resolve`
/// over the clock and the latest stamp in `store_meta`), moved up only, under the clock row's lock.
extension PostgresStore: StoreTimeLine {
    public func now(wall: Instant) throws -> StoreNow {
        try session.transaction(readOnly: true) { db in try storeNow(db, wall: wall) }
    }

    public func remember(clock instant: Instant) throws {
        guard instant.isSupported else { return }
        guard !isReadOnly else { throw RestoreRefusal.readOnly }
        try write { db in try advance(to: instant, db) }
    }

    public func sharedClock() throws -> SharedClock? {
        try session.rows("SELECT value FROM store_meta WHERE key = 'console_clock'").first
            .flatMap { SharedClock(stored: try $0.decode(String.self)) }
    }

    /// As the SQLite store's: under the clock rows' lock, so two consoles' writes land in order.
    public func share(clock instant: Instant, wall: Instant) throws {
        guard instant.isSupported, wall.isSupported else { return }
        guard !isReadOnly else { throw RestoreRefusal.readOnly }
        try write { db in
            _ = try clockRows(db, locking: true)
            let stored = try db.rows("SELECT value FROM store_meta WHERE key = 'console_clock' FOR UPDATE").first?.decode(String.self)
            if let ahead = stored.flatMap(SharedClock.init(stored:))?.now(wall: wall), ahead > instant { return }
            let value = SharedClock(instant: instant, wall: wall).stored
            try db.run(
                "INSERT INTO store_meta (key, value) VALUES ('console_clock', \(value)) ON CONFLICT (key) DO UPDATE SET value = excluded.value")
            try advance(to: instant, db)
        }
    }
}

extension PostgresStore: PlayerLookup {
    public func user(id: String) throws -> User? {
        try session.rows(#"SELECT * FROM "user" WHERE id = \#(id)"#).first.map { try cells($0).user() }
    }

    public func searchUsers(_ text: String, limit: Int) throws -> [User] {
        try userPage(UserSearch(text: text), from: .first, limit: limit).map(\.user)
    }
}

extension PostgresStore: RestoreDeskStore {
    public func restorePrompts(status: RestoreStatus?, environment: StoreEnvironment?, limit: Int, after cursor: RestoreCursor?) throws
        -> [RestorePrompt]
    {
        let rows = try PostgresRestorePager(store: self, query: RestoreQuery(status: status, environment: environment))
            .page(cursor.map { .after($0) } ?? .first, limit: limit)
        return try session.transaction(readOnly: true) { db in try rows.map { try prompt(db, $0.request) } }
    }

    public func restorePurchases(for target: RestoreAccount, appId: String?, by staff: StaffMember, at now: Instant) throws
        -> RestorePurchases.Plan
    {
        guard !isReadOnly else { throw RestoreRefusal.readOnly }
        return try write { db in
            guard try !db.rows(#"SELECT 1 FROM "user" WHERE id = \#(target.userId)"#).isEmpty else {
                throw RestoreRefusal.unknownAccount(target.userId)
            }
            let now = try stamp(now, in: db)
            let roles = try db.rows(
                #"SELECT * FROM game_account WHERE user_id = \#(target.userId) ORDER BY app_id COLLATE "C", sid COLLATE "C", role_id COLLATE "C""#
            ).map { try cells($0).gameAccount() }
            let account = try RestorePurchases.account(for: target, appId: appId, roles: roles)
            guard let app = try db.rows("SELECT * FROM app WHERE id = \(account.appId)").first.map({ try cells($0).app() }) else {
                throw RestorePurchases.missingApp(of: account)
            }
            // One Restore Purchases an Apple ID at a time, across machines: the second reads what the first wrote.
            try db.run("SELECT pg_advisory_xact_lock(74152028, hashtext(\(account.appleId)))")
            let purchases = try pastPurchases(db, appleId: account.appleId, app: app)
            let numbers = try restoreDeskNumbers(db, needing: purchases.count, now: now)
            let result = RestorePurchases.plan(
                for: RestoreAccount(account), app: app, purchases: purchases, products: try products(db, appId: app.id),
                orderNumbers: numbers, by: staff, at: now)
            switch result {
            case .success(let plan):
                for item in plan.items { if let change = item.change { try write(change, db) } }
                try db.run("UPDATE payment_run SET orders_issued = \(plan.orderNumbers.issued) WHERE id = \(plan.orderNumbers.run)")
                try insert(plan.audit, db)
                return plan
            case .failure(let refusal):
                throw refusal
            }
        }
    }

    /// The Apple ID's past non-consumable and auto-renewable purchases in the app, each with its newest
    /// transaction and the accounts it was granted to (as the SQLite store's `RestoreDesk.pastPurchases`).
    private func pastPurchases(_ db: PostgresSession.Transaction, appleId: String, app: App) throws -> [RestorePurchases.PastPurchase] {
        let players = try db.rows("SELECT DISTINCT user_id FROM game_account WHERE apple_id = \(appleId)").map { try $0.decode(String.self) }
        let transactions = try db.rows(
            #"""
            SELECT t.* FROM store_transaction t JOIN product p ON p.id = t.product_id
            WHERE t.user_id = ANY(\#(players)) AND t.app_id = \#(app.id)
              AND t.state IN ('purchased', 'restored') AND t.finished = 1
              AND p.type IN ('non_consumable', 'auto_renewable')
            ORDER BY t.purchase_date, t.id COLLATE "C"
            """#
        ).map { try cells($0).transaction() }
        return try RestorePurchases.newestByOriginal(transactions).compactMap { newest in
            let original = newest.originalTransactionId
            guard let product = try db.rows("SELECT * FROM product WHERE id = \(newest.productId)").first.map({ try cells($0).product() }) else {
                return nil
            }
            let holders = try db.rows(
                """
                SELECT g.user_id, g.sid, g.role_id FROM store_transaction t
                JOIN payment_order o ON o.transaction_id = t.id JOIN item_grant g ON g.order_id = o.order_id
                WHERE t.original_transaction_id = \(original) ORDER BY g.granted_at, g.id
                """
            ).map { row in
                let (user, sid, role) = try row.decode((String, String, String).self)
                return RestoreAccount(userId: user, sid: sid, roleId: role)
            }
            let count = try db.rows("SELECT count(*) FROM store_transaction WHERE original_transaction_id = \(original)").first?
                .decode(Int64.self) ?? 0
            return RestorePurchases.PastPurchase(latest: newest, product: product, holders: holders, transactionCount: Int(count))
        }
    }
}

extension PostgresStore: AuditLogStore {
    public func auditEntries(
        action: String?, actor: String?, text: String?, oldestFirst: Bool, anchor: KeysetAnchor, limit: Int
    ) throws -> [AuditEntry] {
        try PostgresAuditPager(store: self, query: AuditQuery(action: action, actor: actor, text: text, oldestFirst: oldestFirst))
            .page(anchor, limit: limit)
    }
}
