import Foundation
import GRDB
import StoreDeskCore

/// Writes a `SyntheticPopulation` into a new store fast enough for a million users in under a minute:
/// one connection with the journal off (the file is private until it is renamed into place), prepared
/// statements reused for every row, and secondary indexes built once at the end.
public enum SyntheticSeeder {
    public struct Summary: Sendable, Codable {
        public var users = 0
        public var gameAccounts = 0
        public var transactions = 0
        public var orders = 0
        public var grants = 0
        public var subscriptions = 0
        public var restoreRequests = 0
    }

    /// - Parameter progress: called with the number of users written so far, every few thousand.
    public static func seed(
        path: String, users: Int, seed: UInt64, catalogue: Catalogue, clock: Instant, replacing: Bool,
        progress: (Int) -> Void = { _ in }
    ) throws -> Summary {
        guard users >= 0 else { throw StoreError.invalidArgument("--users must be 0 or more, got \(users)") }
        var summary = Summary()
        try FileReplacement.write(to: path, replacing: replacing) { temporary in
            var config = AppDatabase.configuration(readOnly: false)
            config.prepareDatabase { db in
                try db.execute(sql: "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA cache_size = -262144; PRAGMA temp_store = MEMORY; PRAGMA locking_mode = EXCLUSIVE")
            }
            let queue = try DatabaseQueue(path: temporary, configuration: config)
            try AppDatabase.migrator.migrate(queue)
            try queue.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA foreign_keys = OFF")
                let indexes = try String.fetchAll(
                    db, sql: "SELECT sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL")
                for name in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL") {
                    try db.execute(sql: "DROP INDEX \(name.quotedDatabaseIdentifier)")
                }
                try db.inTransaction {
                    try StoreMeta.set(.clock, String(clock.millis), in: db)
                    try StoreMeta.set(.dataset, "synthetic: \(users) users, seed \(seed)", in: db)
                    for app in catalogue.apps { try app.insert(db) }
                    for product in catalogue.products { try product.insert(db) }
                    let population = SyntheticPopulation(catalogue: catalogue, seed: seed, now: clock)
                    var writer = try RowWriter(db)
                    for index in 0..<users {
                        try writer.write(population.household(index), into: &summary)
                        if index % 10_000 == 9_999 { progress(index + 1) }
                    }
                    progress(users)
                    return .commit
                }
                for sql in indexes { try db.execute(sql: sql) }
                try db.execute(sql: "PRAGMA analysis_limit = 1000; ANALYZE")
                try db.execute(sql: "PRAGMA foreign_keys = ON")
            }
            try queue.close()
            // Reopen normally so the finished file is in WAL mode like every store StoreDesk makes.
            let pool = try DatabasePool(path: temporary, configuration: AppDatabase.configuration(readOnly: false))
            try pool.close()
        }
        return summary
    }

    /// Prepared statements, one per table, bound and stepped for every row.
    struct RowWriter {
        let user, account, transaction, order, grant, subscription, restore: Statement

        init(_ db: Database) throws {
            user = try db.makeStatement(sql: """
                INSERT INTO user (id, name, friendly_name, id_card, phone, site, adult_type, fcm, authoriz_state, safety, client_id, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            account = try db.makeStatement(sql: """
                INSERT INTO game_account (apple_id, user_id, app_id, sid, role_id, role_name, app_account_token)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """)
            transaction = try db.makeStatement(sql: """
                INSERT INTO store_transaction (id, original_transaction_id, user_id, app_id, product_id, quantity, state,
                  failure_reason, environment, sid, role_id, app_order_id, ext, purchase_date, expires_date,
                  revocation_date, revocation_reason, finished)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            order = try db.makeStatement(sql: """
                INSERT INTO payment_order (order_id, transaction_id, app_id, user_id, product_id, payment, sub_payment,
                  amount_cents, sid, role_id, app_order_id, ext, created_at, status)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            grant = try db.makeStatement(sql: """
                INSERT INTO item_grant (order_id, user_id, sid, role_id, product_id, quantity, kind, currency_amount, source, granted_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            subscription = try db.makeStatement(sql: """
                INSERT INTO subscription (original_transaction_id, user_id, app_id, product_id, group_id, state, auto_renew,
                  original_purchase_date, purchase_date, expires_date, grace_period_expires_date, revocation_date,
                  revocation_reason, expiration_intent, offer_type, offer_id)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            restore = try db.makeStatement(sql: """
                INSERT INTO restore_request (transaction_id, user_id, product_id, quantity, status, created_at)
                VALUES (?, ?, ?, ?, ?, ?)
                """)
        }

        mutating func write(_ h: SyntheticPopulation.Household, into summary: inout Summary) throws {
            let u = h.user
            try user.execute(arguments: [
                u.id, u.name, u.friendlyName, u.idCard, u.phone, u.site.rawValue, u.adultType.rawValue, u.fcm,
                u.authorizState, u.safety, u.clientId, u.createdAt.millis,
            ])
            for a in h.accounts {
                try account.execute(arguments: [a.appleId, a.userId, a.appId, a.sid, a.roleId, a.roleName, a.appAccountToken])
            }
            for t in h.transactions {
                try transaction.execute(arguments: [
                    t.id, t.originalTransactionId, t.userId, t.appId, t.productId, t.quantity, t.state.rawValue,
                    t.failureReason?.rawValue, t.environment.rawValue, t.sid, t.roleId, t.appOrderId, t.ext,
                    t.purchaseDate.millis, t.expiresDate?.millis, t.revocationDate?.millis, t.revocationReason, t.finished,
                ])
            }
            for o in h.orders {
                try order.execute(arguments: [
                    o.id, o.transactionId, o.appId, o.userId, o.productId, o.payment, o.subPayment, o.amountCents, o.sid,
                    o.roleId, o.appOrderId, o.ext, o.createdAt.millis, o.status.rawValue,
                ])
            }
            for g in h.grants {
                try grant.execute(arguments: [
                    g.orderId, g.userId, g.sid, g.roleId, g.productId, g.quantity, g.kind.rawValue, g.currencyAmount,
                    g.source.rawValue, g.grantedAt.millis,
                ])
            }
            for s in h.subscriptions {
                try subscription.execute(arguments: [
                    s.id, s.userId, s.appId, s.productId, s.groupId, s.state.rawValue, s.autoRenew,
                    s.originalPurchaseDate.millis, s.purchaseDate.millis, s.expiresDate.millis,
                    s.gracePeriodExpiresDate?.millis, s.revocationDate?.millis, s.revocationReason, s.expirationIntent,
                    s.offerType, s.offerId,
                ])
            }
            for r in h.restoreRequests {
                try restore.execute(arguments: [r.transactionId, r.userId, r.productId, r.quantity, r.status.rawValue, r.createdAt.millis])
            }
            summary.users += 1
            summary.gameAccounts += h.accounts.count
            summary.transactions += h.transactions.count
            summary.orders += h.orders.count
            summary.grants += h.grants.count
            summary.subscriptions += h.subscriptions.count
            summary.restoreRequests += h.restoreRequests.count
        }
    }
}
