import Foundation
import GRDB
import GRDBSQLite
import StoreDeskCore

/// Writes a `SyntheticPopulation` into a new store fast enough for a million users in under a minute:
/// one connection with the journal off (the file is private until it is renamed into place), prepared
/// statements reused for every row, and secondary indexes built once at the end.
public enum SyntheticSeeder {
    public typealias Summary = SeedSummary

    /// The most users one seed writes: ten million, ten times the million the README times. The count decides
    /// the run's length and the file's size, so a mistyped one is refused rather than run until killed.
    public static let largestUsers = 10_000_000

    /// - Parameter progress: called with the number of users written so far, every few thousand.
    public static func seed(
        path: String, users: Int, seed: UInt64, catalogue: Catalogue, clock: Instant, replacing: Bool,
        progress: (Int) -> Void = { _ in }
    ) throws -> Summary {
        guard (0...largestUsers).contains(users) else {
            throw StoreError.invalidArgument("--users must be from 0 to \(largestUsers), got \(users)")
        }
        var summary = Summary()
        try FileReplacement.write(to: path, replacing: replacing) { temporary in
            var config = AppDatabase.configuration(readOnly: false)
            config.prepareDatabase { db in
                try db.execute(sql: "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA cache_size = -262144; PRAGMA temp_store = MEMORY; PRAGMA locking_mode = EXCLUSIVE; PRAGMA threads = 4")
            }
            let queue = try DatabaseQueue(path: temporary, configuration: config)
            try SQLiteMigrations.migrator.migrate(queue)
            try queue.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA foreign_keys = OFF")
                // Indexes and the search index's triggers are rebuilt in one pass after the rows are in.
                let deferred = try Row.fetchAll(
                    db, sql: "SELECT type, name, sql FROM sqlite_master WHERE type IN ('index', 'trigger') AND sql IS NOT NULL")
                for row in deferred {
                    let type: String = try row.decode(forColumn: "type"), name: String = try row.decode(forColumn: "name")
                    try db.execute(sql: "DROP \(type == "index" ? "INDEX" : "TRIGGER") \(name.quotedDatabaseIdentifier)")
                }
                var mark = Date()
                func phase(_ name: String) {
                    if ProcessInfo.processInfo.environment["STOREDESK_SEED_PHASES"] != nil {
                        FileHandle.standardError.write(Data("\(name): \(String(format: "%.2f", Date().timeIntervalSince(mark))) s\n".utf8))
                    }
                    mark = Date()
                }
                try db.inTransaction {
                    try StoreMeta.set(.clock, String(clock.millis), in: db)
                    try StoreMeta.set(.dataset, "synthetic: \(users) users, seed \(seed)", in: db)
                    for app in catalogue.apps { try app.insert(db) }
                    for product in catalogue.products { try product.insert(db) }
                    let population = SyntheticPopulation(catalogue: catalogue, seed: seed, now: clock)
                    let writer = try RowWriter(db)
                    // Households are generated on a second core, a batch ahead of the inserts.
                    let batch = 5_000
                    var next = population.prefetch(0..<min(batch, users))
                    var start = 0
                    while start < users {
                        let households = next.wait()
                        let following = start + batch
                        if following < users { next = population.prefetch(following..<min(following + batch, users)) }
                        for household in households { try writer.write(household, into: &summary) }
                        start = following
                        progress(min(start, users))
                    }
                    return .commit
                }
                phase("rows")
                for row in deferred { try db.execute(sql: try row.decode(forColumn: "sql")) }
                phase("indexes")
                try db.execute(sql: "INSERT INTO user_search(user_search) VALUES ('rebuild')")
                try db.execute(sql: "UPDATE store_meta SET value = (SELECT COUNT(*) FROM user) WHERE key = 'user_count'")
                phase("search index")
                try db.execute(sql: "PRAGMA analysis_limit = 1000; ANALYZE")
                phase("analyze")
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
        let user, account, transaction, order, grant, subscription, restore: BulkInsert

        init(_ db: Database) throws {
            user = try BulkInsert(db, sql: """
                INSERT INTO user (id, name, friendly_name, id_card, phone, site, adult_type, fcm, authoriz_state, safety, client_id, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            account = try BulkInsert(db, sql: """
                INSERT INTO game_account (apple_id, user_id, app_id, sid, role_id, role_name, app_account_token)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """)
            transaction = try BulkInsert(db, sql: """
                INSERT INTO store_transaction (id, original_transaction_id, user_id, app_id, product_id, quantity, state,
                  failure_reason, environment, sid, role_id, app_order_id, ext, purchase_date, expires_date,
                  revocation_date, revocation_reason, finished)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            order = try BulkInsert(db, sql: """
                INSERT INTO payment_order (order_id, transaction_id, app_id, user_id, product_id, payment, sub_payment,
                  amount_cents, sid, role_id, app_order_id, ext, created_at, status)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            grant = try BulkInsert(db, sql: """
                INSERT INTO item_grant (order_id, user_id, sid, role_id, product_id, quantity, kind, currency_amount, source, granted_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            subscription = try BulkInsert(db, sql: """
                INSERT INTO subscription (original_transaction_id, user_id, app_id, product_id, group_id, state, auto_renew,
                  original_purchase_date, purchase_date, expires_date, grace_period_expires_date, revocation_date,
                  revocation_reason, expiration_intent, offer_type, offer_id)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            restore = try BulkInsert(db, sql: """
                INSERT INTO restore_request (transaction_id, user_id, product_id, quantity, status, created_at)
                VALUES (?, ?, ?, ?, ?, ?)
                """)
        }

        func write(_ h: SyntheticPopulation.Household, into summary: inout Summary) throws {
            let u = h.user
            try user.insert {
                $0.text(u.id); $0.text(u.name); $0.text(u.friendlyName); $0.text(u.idCard); $0.text(u.phone)
                $0.int(u.site.rawValue); $0.int(u.adultType.rawValue); $0.bool(u.fcm); $0.int(u.authorizState)
                $0.int(u.safety); $0.text(u.clientId); $0.int(u.createdAt.millis)
            }
            for a in h.accounts {
                try account.insert {
                    $0.text(a.appleId); $0.text(a.userId); $0.text(a.appId); $0.text(a.sid); $0.text(a.roleId)
                    $0.text(a.roleName); $0.text(a.appAccountToken)
                }
            }
            for t in h.transactions {
                try transaction.insert {
                    $0.text(t.id); $0.text(t.originalTransactionId); $0.text(t.userId); $0.text(t.appId)
                    $0.text(t.productId); $0.int(t.quantity); $0.text(t.state.rawValue); $0.text(t.failureReason?.rawValue)
                    $0.text(t.environment.rawValue); $0.text(t.sid); $0.text(t.roleId); $0.text(t.appOrderId)
                    $0.text(t.ext); $0.int(t.purchaseDate.millis); $0.int(t.expiresDate?.millis)
                    $0.int(t.revocationDate?.millis); $0.text(t.revocationReason); $0.bool(t.finished)
                }
            }
            for o in h.orders {
                try order.insert {
                    $0.text(o.id); $0.text(o.transactionId); $0.text(o.appId); $0.text(o.userId); $0.text(o.productId)
                    $0.text(o.payment); $0.text(o.subPayment); $0.int(o.amountCents); $0.text(o.sid); $0.text(o.roleId)
                    $0.text(o.appOrderId); $0.text(o.ext); $0.int(o.createdAt.millis); $0.text(o.status.rawValue)
                }
            }
            for g in h.grants {
                try grant.insert {
                    $0.text(g.orderId); $0.text(g.userId); $0.text(g.sid); $0.text(g.roleId); $0.text(g.productId)
                    $0.int(g.quantity); $0.text(g.kind.rawValue); $0.int(g.currencyAmount); $0.text(g.source.rawValue)
                    $0.int(g.grantedAt.millis)
                }
            }
            for s in h.subscriptions {
                try subscription.insert {
                    $0.text(s.id); $0.text(s.userId); $0.text(s.appId); $0.text(s.productId); $0.text(s.groupId)
                    $0.text(s.state.rawValue); $0.bool(s.autoRenew); $0.int(s.originalPurchaseDate.millis)
                    $0.int(s.purchaseDate.millis); $0.int(s.expiresDate.millis); $0.int(s.gracePeriodExpiresDate?.millis)
                    $0.int(s.revocationDate?.millis); $0.text(s.revocationReason); $0.text(s.expirationIntent)
                    $0.text(s.offerType); $0.text(s.offerId)
                }
            }
            for r in h.restoreRequests {
                try restore.insert {
                    $0.text(r.transactionId); $0.text(r.userId); $0.text(r.productId); $0.int(r.quantity)
                    $0.text(r.status.rawValue); $0.int(r.createdAt.millis)
                }
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

/// One prepared INSERT bound straight through SQLite's C API: at millions of rows, building
/// `StatementArguments` for each row costs more than SQLite's own work.
extension SyntheticPopulation {
    /// Starts generating a range of households on another thread.
    func prefetch(_ range: Range<Int>) -> Prefetch {
        let prefetch = Prefetch()
        let population = self
        DispatchQueue.global(qos: .userInitiated).async {
            prefetch.fulfil(range.map { population.household($0) })
        }
        return prefetch
    }

    /// Households being generated elsewhere; `wait` blocks until they are ready.
    final class Prefetch: @unchecked Sendable {
        private let ready = DispatchSemaphore(value: 0)
        private var households: [Household] = []

        func fulfil(_ households: [Household]) {
            self.households = households
            ready.signal()
        }

        func wait() -> [Household] {
            ready.wait()
            return households
        }
    }
}
