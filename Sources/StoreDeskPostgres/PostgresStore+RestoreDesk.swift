import Foundation
import PostgresNIO
import StoreDeskCore
import StoreDeskStoreAPI

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
