import Foundation
import GRDB
import GRDBSQLite
import StoreDeskCore
import Testing
@testable import StoreDeskSQLite

/// `find` on real stores: every id kind on the demo store and on a seeded one, exact and prefix, names
/// in Chinese and with emoji, and the query plans (seeks, never a scan of a big table).
@Suite struct FindTests {
    func find(_ store: AppDatabase, _ text: String, limit: Int = 50) throws -> [FindResult] {
        try store.find(try FindQuery(text, limit: limit))
    }

    /// The first result, which must be an exact match of this kind in this field.
    func exact(_ store: AppDatabase, _ text: String, _ kind: FindKind, _ field: FindField) throws -> FindResult? {
        let first = try find(store, text).first
        #expect(first?.kind == kind && first?.field == field && first?.match == .exact, "\(text): \(String(describing: first))")
        return first
    }

    @Test("every id kind on the demo store, exact, with the player it belongs to")
    func demoExact() throws {
        let folder = TemporaryFolder()
        let store = try Fixtures.demoStore(at: folder.path("demo.sqlite"))
        #expect(try exact(store, "10000001", .player, .playerId)?.userName == "阿伟")
        #expect(try exact(store, "张伟", .player, .name)?.userId == "10000001")
        #expect(try exact(store, "阿伟", .player, .friendlyName)?.userId == "10000001")
        #expect(try exact(store, "熊猫🐼", .player, .name)?.userId == "10000026")
        let phone = try exact(store, "13800000000", .player, .phone)
        #expect(phone?.matched == "138****0000" && phone?.userId == "10000001")
        #expect(try exact(store, "+86 138-0000-0000", .player, .phone)?.userId == "10000001")
        #expect(try exact(store, "0000", .player, .phoneLast4)?.matched == "138****0000")
        let accounts = try find(store, "apple.zhangwei88")
        #expect(accounts.map(\.gameAccount) == ["1001 s1/r10000001-1", "1001 s7/r10000001-2"])
        #expect(accounts.allSatisfy { $0.kind == .gameAccount && $0.field == .appleId && $0.userId == "10000001" })
        #expect(try exact(store, "r10000001-1", .gameAccount, .roleId)?.gameAccount == "1001 s1/r10000001-1")
        #expect(try exact(store, "剑客阿伟", .gameAccount, .roleName)?.userId == "10000001")
        #expect(try exact(store, "s7", .gameAccount, .sid) != nil)
        let order = try exact(store, "2611120001", .order, .orderId)
        #expect(order?.transactionId == "2000000100000088" && order?.userId == "10000001")
        let appOrder = try exact(store, "G20261111-0004", .transaction, .appOrderId)
        #expect(appOrder?.transactionId == "2000000100000088" && appOrder?.orderId == "2611120001")
        let transaction = try find(store, "2000000100000093")
        #expect(transaction.map(\.kind) == [.transaction, .restorePrompt], "\(transaction)")
        #expect(transaction.first?.userId == "10000024" && transaction.last?.restorePromptId == 3)
        let subscription = try exact(store, "2000000100000201", .subscription, .originalTransactionId)
        #expect(subscription?.originalTransactionId == "2000000100000201" && subscription?.userId == "10000005")
        let notification = try exact(store, "f435876c-0770-4f70-a5d3-70f508088bff", .notification, .notificationUUID)
        #expect(notification?.originalTransactionId == "2000000100000201" && notification?.userId == "10000005")
        #expect(try exact(store, "3", .restorePrompt, .restorePromptId)?.transactionId == "2000000100000093")
        #expect(try find(store, "no-such-id-anywhere").isEmpty)
    }

    @Test("prefixes range on the same indexes; names containing the text come last; each thing once")
    func demoPrefixAndContains() throws {
        let folder = TemporaryFolder()
        let store = try Fixtures.demoStore(at: folder.path("demo.sqlite"))
        let prefix = try find(store, "2000000100", limit: 5)
        #expect(prefix.count == 5 && prefix.allSatisfy { $0.match == .prefix && $0.matched.hasPrefix("2000000100") })
        #expect(try find(store, "G20261111").contains { $0.field == .appOrderId && $0.transactionId == "2000000100000088" })
        #expect(try find(store, "apple.zhang").first?.field == .appleId)
        #expect(try find(store, "剑客").contains { $0.field == .roleName && $0.match == .prefix && $0.matched == "剑客阿伟" })
        #expect(try find(store, "f435876c").first?.notificationUUID == "f435876c-0770-4f70-a5d3-70f508088bff")
        // An exact match comes before prefixes of the same text.
        let mixed = try find(store, "10000001")
        #expect(mixed.first?.match == .exact)
        #expect(mixed.map(\.match) == mixed.map(\.match).sorted())
        // CJK and emoji inside a name, through the trigram index.
        let contains = try find(store, "欧阳娜")
        #expect(contains.contains { $0.userId == "10000010" && $0.match != .exact })
        let emoji = try find(store, "ax 🚀")
        #expect(emoji.contains { $0.userId == "10000009" && $0.field == .friendlyName && $0.match == .contains })
        #expect(try find(store, "阳娜娜").contains { $0.userId == "10000010" && $0.field == .name && $0.match == .contains })
        let ids = try find(store, "1000000").filter { $0.kind == .player }.map(\.userId)
        #expect(Set(ids).count == ids.count)
    }

    @Test("empty or blank text and a limit of zero are refused")
    func refusals() {
        #expect(throws: StoreError.self) { try FindQuery("   ") }
        #expect(throws: StoreError.self) { try FindQuery("") }
        #expect(throws: StoreError.self) { try FindQuery("x", limit: 0) }
    }

    @Test("a seeded store: every id kind its rows hold is found exactly, and by prefix")
    func seeded() throws {
        let folder = TemporaryFolder()
        let store = try Self.seeded(folder, users: 300, seed: 7)
        // A notification with a web order line item id, on a seeded subscription.
        let original = try store.reader.read { try String.fetchOne($0, sql: "SELECT original_transaction_id FROM subscription LIMIT 1") }
        let chain = try #require(original)
        try store.write { db in
            try db.execute(
                sql: """
                    INSERT INTO subscription_event (notification_uuid, original_transaction_id, notification_type, signed_date,
                      provenance, payload, source, imported_at)
                    VALUES ('0a1b2c3d-0000-4000-8000-00000000f1d0', ?, 'DID_RENEW', 0, 'decoded_json',
                      '{"data":{"transactionInfo":{"webOrderLineItemId":"990000123456"}}}', 'test', 0)
                    """, arguments: [chain])
        }
        let row = try #require(try store.reader.read { db in
            try Row.fetchOne(db, sql: """
                SELECT t.id, t.user_id, t.app_order_id, o.order_id, g.apple_id, g.role_id, g.role_name, u.name, u.phone
                FROM store_transaction t JOIN payment_order o ON o.transaction_id = t.id
                JOIN game_account g ON g.user_id = t.user_id JOIN user u ON u.id = t.user_id
                WHERE u.phone <> '' LIMIT 1
                """)
        })
        let user: String = row["user_id"]
        #expect(try exact(store, user, .player, .playerId)?.userId == user)
        #expect(try find(store, row["name"]).contains { $0.userId == user && $0.field == .name && $0.match == .exact })
        #expect(try find(store, row["phone"]).contains { $0.userId == user && $0.field == .phone })
        #expect(try find(store, row["apple_id"]).contains { $0.userId == user && $0.field == .appleId })
        #expect(try find(store, row["role_id"]).contains { $0.userId == user && $0.field == .roleId })
        #expect(try find(store, row["role_name"]).contains { $0.userId == user && $0.field == .roleName })
        #expect(try exact(store, row["id"], .transaction, .transactionId)?.userId == user)
        #expect(try exact(store, row["order_id"], .order, .orderId)?.userId == user)
        #expect(try exact(store, row["app_order_id"], .transaction, .appOrderId)?.userId == user)
        #expect(try find(store, chain).contains { $0.kind == .subscription && $0.field == .originalTransactionId })
        let web = try exact(store, "990000123456", .notification, .webOrderLineItemId)
        #expect(web?.originalTransactionId == chain && web?.notificationUUID == "0a1b2c3d-0000-4000-8000-00000000f1d0")
        #expect(try find(store, "99000012").first?.field == .webOrderLineItemId)
        let id: String = row["id"]
        #expect(try find(store, String(id.prefix(12))).allSatisfy { $0.match == .prefix })
    }

    /// An id found exactly is what the ticket gave: ids starting with it and names holding it are not
    /// searched (the trigram index reads long lists for digits). A name, or an id that matches nothing
    /// exactly, still finds names holding it.
    @Test("prefixes and names holding the text are searched unless an id matched it exactly")
    func containsOnlyWithoutAnExactId() throws {
        let folder = TemporaryFolder()
        let store = try Fixtures.demoStore(at: folder.path("demo.sqlite"))
        try store.write { db in
            try db.execute(sql: "UPDATE user SET friendly_name = 'fan of 10000003' WHERE id = '10000004'")
            try db.execute(sql: "UPDATE user SET friendly_name = 'fan of 9999999' WHERE id = '10000005'")
        }
        let byId = try find(store, "10000003")
        #expect(byId.first?.userId == "10000003" && byId.first?.field == .playerId)
        #expect(byId.allSatisfy { $0.match == .exact }, "\(byId)")
        let noExact = try find(store, "9999999")
        #expect(noExact.contains { $0.userId == "10000005" && $0.field == .friendlyName && $0.match == .contains }, "\(noExact)")
        // A role's name found exactly is a name, not an id: players named with it are still found.
        try store.write { db in try db.execute(sql: "UPDATE user SET name = '老剑客阿伟' WHERE id = '10000006'") }
        let byName = try find(store, "剑客阿伟")
        #expect(byName.first?.field == .roleName && byName.first?.match == .exact)
        #expect(byName.contains { $0.userId == "10000006" && $0.field == .name && $0.match == .contains }, "\(byName)")
    }

    /// A store of `users` synthetic players (with their transactions, orders, game accounts) in `folder`.
    static func seeded(_ folder: TemporaryFolder, users: Int, seed: UInt64) throws -> AppDatabase {
        let path = folder.path("seeded.sqlite")
        let demo = try Fixtures.demo()
        _ = try SyntheticSeeder.seed(
            path: path, users: users, seed: seed, catalogue: demo.catalogue, clock: demo.meta.clock, replacing: false)
        return try AppDatabase.open(path: path, access: .readWrite)
    }

    /// The plan of every statement `find` runs, for exact text and for a prefix.
    static func plans(_ store: AppDatabase, _ text: String) throws -> [(String, [String])] {
        try store.reader.read { db in
            try FindPlan(try FindQuery(text), .sqlite).statements().map { sql, arguments in
                let details = try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: StatementArguments(arguments))
                    .map { $0["detail"] as String }
                return (sql, details)
            }
        }
    }

    @Test("every lookup seeks an index: no SCAN of a big table, for exact ids and prefixes alike")
    func queryPlans() throws {
        let folder = TemporaryFolder()
        let store = try Fixtures.demoStore(at: folder.path("demo.sqlite"))
        for text in ["13800000000", "2000000100000093", "G20261111-0004", "990000123456", "1234", "apple.zhangwei88", "剑客阿伟"] {
            let plans = try Self.plans(store, text)
            #expect(plans.count >= 15)
            for (sql, details) in plans {
                #expect(details.contains { $0.hasPrefix("SEARCH") }, "\(text): \(details) in \(sql)")
                for detail in details { #expect(!detail.hasPrefix("SCAN"), "\(text): \(detail) in \(sql)") }
            }
        }
    }

    /// `run` first probes its lookups together, one `EXISTS` each in one statement (exact, then prefix):
    /// every probe seeks an index, and none scans a table.
    @Test("the probes find runs first seek an index each")
    func probePlans() throws {
        let folder = TemporaryFolder()
        let store = try Fixtures.demoStore(at: folder.path("demo.sqlite"))
        for text in ["13800000000", "2000000100000093", "G20261111-0004", "1234", "剑客阿伟"] {
            let plan = FindPlan(try FindQuery(text), .sqlite)
            for arms in [plan.exactArms(), plan.prefixArms()] where !arms.isEmpty {
                let (sql, arguments) = FindPlan.probe(arms)
                let details = try store.reader.read { db in
                    try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: StatementArguments(arguments)).map { $0["detail"] as String }
                }
                // A restore prompt by another id of its purchase seeks that id's index, then the prompt's.
                let seeks = arms.reduce(0) { $0 + ($1.statement.0.contains(" IN (SELECT ") ? 2 : 1) }
                #expect(details.filter { $0.hasPrefix("SEARCH") }.count == seeks, "\(text): \(details)")
                // The one row of flags is SQLite's constant row; no table is scanned.
                #expect(!details.contains { $0.hasPrefix("SCAN") && $0 != "SCAN CONSTANT ROW" }, "\(text): \(details)")
            }
        }
    }

    /// A prefix range stops at the limit: a lookup that filters the rows its range walks would walk a whole
    /// index when most of them fail the filter (the original id of a transaction that is its own original:
    /// 2.6 s for `20000000` on a 3,000,000-transaction store). Measured in the virtual machine's steps, on
    /// a prefix every transaction id shares: each statement takes fewer steps than there are transactions.
    @Test("every prefix lookup stops at its limit, whatever its range holds")
    func prefixRangesStopAtTheLimit() throws {
        let folder = TemporaryFolder()
        let store = try Self.seeded(folder, users: 2000, seed: 3)
        let (transactions, first) = try store.reader.read { db in
            (try Int.fetchOne(db, sql: "SELECT count(*) FROM store_transaction") ?? 0,
             try String.fetchOne(db, sql: "SELECT min(id) FROM store_transaction") ?? "")
        }
        #expect(transactions > 4000)
        let prefix = String(first.prefix(4))
        let shared = try store.reader.read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM store_transaction WHERE id LIKE ? || '%'", arguments: [prefix]) ?? 0
        }
        #expect(shared == transactions, "\(prefix) is not every transaction's prefix")
        try store.reader.read { db in
            for (sql, arguments) in FindPlan(try FindQuery(prefix, limit: 5), .sqlite).statements() {
                let statement = try db.makeStatement(sql: sql)
                try statement.setArguments(StatementArguments(arguments))
                _ = try Row.fetchAll(statement)
                let steps = Int(sqlite3_stmt_status(statement.sqliteStatement, SQLITE_STMTSTATUS_VM_STEP, 0))
                #expect(steps < transactions, "\(steps) steps for \(sql)")
            }
        }
    }
}
