import Foundation
import GRDB
import StoreDeskCore
import Testing
@testable import StoreDeskSQLite

@Suite struct MigrationTests {
    @Test func migratesAnEmptyFileToTheWholeSchema() throws {
        let folder = TemporaryFolder()
        let store = try AppDatabase.create(path: folder.path("new.sqlite"))
        let tables = try store.reader.read { try String.fetchAll($0, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") }
        for table in ["app", "audit_log", "game_account", "item_grant", "login_entry_configuration", "payment_order",
                      "product", "restore_request", "server_callback", "store_meta", "store_transaction", "subscription", "user"] {
            #expect(tables.contains(table), "missing table \(table)")
        }
        let applied = try store.reader.read { try String.fetchAll($0, sql: "SELECT identifier FROM grdb_migrations") }
        #expect(applied == SQLiteMigrations.migrator.migrations)
        #expect(try store.check().isEmpty)
    }

    @Test("a store from v12b upgrades with --migrate and keeps its callbacks; the new columns are empty")
    func callbacksOverHTTPUpgrade() throws {
        let folder = TemporaryFolder()
        let path = folder.path("old.sqlite")
        let queue = try DatabaseQueue(path: path)
        try SQLiteMigrations.migrator.migrate(queue, upTo: "v12b-catalogue")
        try queue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO server_callback (order_id, attempt, body, sign_expected, sign_received, verdict, reason, reply, received_at)
                    VALUES ('O1', 1, 'order_id=O1&sign=x', 'x', 'x', 'accepted', 'ok', 'success', 1)
                    """)
        }
        try queue.close()
        let missing = Array(SQLiteMigrations.migrator.migrations.drop { $0 != "v13-callbacks-over-http" })
        #expect(throws: StoreError.olderSchema(path: path, missing: missing)) {
            try AppDatabase.open(path: path, access: .readWrite)
        }
        let store = try AppDatabase.open(path: path, access: .readWrite, migrate: true)
        let callbacks = try store.reader.read { try CallbackAttempt.fetchAll($0, sql: "SELECT * FROM server_callback") }
        #expect(callbacks.map(\.orderId) == ["O1"])
        #expect(callbacks.first?.url == nil && callbacks.first?.httpStatus == nil && callbacks.first?.latencyMicros == nil)
        #expect(try store.gameServerGrants().isEmpty)
    }

    @Test("a store from v11a upgrades with --migrate and keeps its notifications; the line they came from is not known")
    func notificationSourceLineUpgrade() throws {
        let folder = TemporaryFolder()
        let path = folder.path("old.sqlite")
        let queue = try DatabaseQueue(path: path)
        try SQLiteMigrations.migrator.migrate(queue, upTo: "v11a-trust-roots-and-provenance")
        try queue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO subscription_event (notification_uuid, original_transaction_id, notification_type, signed_date,
                      provenance, payload, source, imported_at)
                    VALUES ('n-1', '1', 'DID_RENEW', 1, 'decoded_json', '{}', 'old.jsonl', 1)
                    """)
        }
        try queue.close()
        let missing = Array(SQLiteMigrations.migrator.migrations.drop { $0 != "v11b-notification-source-line" })
        #expect(missing.first == "v11b-notification-source-line")
        #expect(throws: StoreError.olderSchema(path: path, missing: missing)) {
            try AppDatabase.open(path: path, access: .readWrite)
        }
        let store = try AppDatabase.open(path: path, access: .readWrite, migrate: true)
        let rows = try store.reader.read { try Row.fetchAll($0, sql: "SELECT notification_uuid, source, source_line FROM subscription_event") }
        #expect(rows.count == 1)
        #expect(rows.first?["notification_uuid"] == "n-1" && rows.first?["source"] == "old.jsonl")
        #expect(rows.first?.hasNull(atIndex: 2) == true)
    }

    @Test func everyScreenLookupHasAnIndex() throws {
        let store = try AppDatabase.inMemory()
        let plans: [(String, StatementArguments)] = [
            ("SELECT * FROM game_account WHERE user_id = ?", ["u"]),
            ("SELECT * FROM store_transaction WHERE user_id = ? ORDER BY purchase_date DESC LIMIT 10", ["u"]),
            ("SELECT * FROM subscription WHERE user_id = ?", ["u"]),
            ("SELECT COUNT(*) FROM restore_request WHERE user_id = ? AND status = 'open'", ["u"]),
            ("SELECT rowid FROM user WHERE substr(phone, -4) = ?", ["0000"]),
            ("SELECT * FROM user WHERE id = ?", ["u"]),
            ("SELECT * FROM item_grant WHERE order_id = ?", ["o"]),
            ("SELECT provenance, payload FROM subscription_event WHERE original_transaction_id IN (?, ?)", ["a", "b"]),
            ("""
                SELECT provenance, payload FROM subscription_event WHERE original_transaction_id IN
                  (SELECT original_transaction_id FROM subscription WHERE user_id = ?)
                """, ["u"]),
            ("SELECT 1 FROM subscription_event WHERE notification_uuid = ?", ["n"]),
            ("SELECT user_id FROM game_account WHERE app_account_token = ?", ["t"]),
            ("SELECT user_id FROM subscription WHERE original_transaction_id = ?", ["o"]),
            ("SELECT user_id FROM store_transaction WHERE original_transaction_id = ? ORDER BY purchase_date LIMIT 1", ["o"]),
        ]
        for (sql, arguments) in plans {
            let plan = try store.reader.read { db in
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: arguments).map { $0["detail"] as String }
            }
            #expect(plan.allSatisfy { !$0.hasPrefix("SCAN") }, "\(sql) scans: \(plan)")
        }
    }
}

@Suite struct RecordRoundTripTests {
    @Test func everyRecordComesBackAsItWent() throws {
        let store = try AppDatabase.inMemory()
        let demo = try Fixtures.demo()
        try store.write { try DemoDatasetLoader.insert(demo, into: $0) }
        try store.reader.read { db in
            #expect(try App.fetchAll(db, sql: "SELECT * FROM app ORDER BY id") == demo.apps.sorted { $0.id < $1.id })
            #expect(try Product.fetchAll(db).sorted { $0.id < $1.id } == demo.products.sorted { $0.id < $1.id })
            // Every demo notification names a demo player by its token: the import adds no one.
            #expect(try User.fetchAll(db, sql: "SELECT * FROM user ORDER BY rowid") == demo.users)
            #expect(try StoreTransaction.fetchAll(db).sorted { $0.id < $1.id } == demo.transactions.sorted { $0.id < $1.id })
            #expect(try PaymentOrder.fetchAll(db).sorted { $0.id < $1.id } == demo.orders.sorted { $0.id < $1.id })
            let fromEvents = Set(demo.notifications.events.compactMap(\.originalTransactionId))
            let rows = try Subscription.fetchAll(db).sorted { $0.id < $1.id }
            #expect(rows.filter { !fromEvents.contains($0.id) } == demo.subscriptions.sorted { $0.id < $1.id })
            #expect(Set(rows.map(\.id)).isSuperset(of: fromEvents))
            #expect(try LoginEntryConfiguration.fetchAll(db).sorted { $0.appId < $1.appId } == demo.loginEntries.sorted { $0.appId < $1.appId })
            let accounts = try GameAccount.fetchAll(db, sql: "SELECT * FROM game_account ORDER BY id")
            #expect(accounts.map { var a = $0; a.id = nil; return a } == demo.gameAccounts)
            let grants = try Grant.fetchAll(db, sql: "SELECT * FROM item_grant ORDER BY id")
            #expect(grants.map { var g = $0; g.id = nil; return g } == demo.grants)
            let restores = try RestoreRequest.fetchAll(db, sql: "SELECT * FROM restore_request ORDER BY id")
            #expect(restores.map { var r = $0; r.id = nil; return r } == demo.restoreRequests)
            let audit = try AuditEntry.fetchAll(db, sql: "SELECT * FROM audit_log ORDER BY id")
            #expect(audit.map { var a = $0; a.id = nil; return a } == demo.audit)
            #expect(try StoreMeta.clock(in: db) == demo.meta.clock)
        }
    }

    @Test func theDemoDatasetCoversWhatTheScreensShow() throws {
        let demo = try Fixtures.demo()
        #expect(demo.users.count >= 30)
        #expect(Set(demo.users.map(\.site)) == Set(Site.allCases))
        #expect(Set(demo.users.map(\.adultType)) == Set(AdultType.allCases))
        #expect(demo.users.contains { $0.isGuest })
        #expect(demo.users.contains { $0.name.unicodeScalars.contains { $0.properties.isEmojiPresentation } || $0.friendlyName.unicodeScalars.contains { $0.properties.isEmojiPresentation } })
        #expect(demo.users.allSatisfy { Masking.isMaskedIDCard($0.idCard) })
        let byAppleId = Dictionary(grouping: demo.gameAccounts, by: \.appleId)
        #expect(byAppleId.values.contains { $0.count >= 3 })
        #expect(Set(demo.subscriptions.map(\.state)) == Set(SubscriptionState.allCases))
        #expect(demo.transactions.contains { $0.isDropped })
        #expect(demo.restoreRequests.contains { $0.status == .open })
    }
}

@Suite struct AppCallbackMigrationTests {
    /// A store written before v12 keeps its apps, with no callback URL until a developer sets one.
    @Test func anOlderStoresAppsUpgradeWithTheirDataAndNoCallbackURL() throws {
        let folder = TemporaryFolder()
        let path = folder.path("v11.sqlite")
        let queue = try DatabaseQueue(path: path)
        try SQLiteMigrations.migrator.migrate(queue, upTo: "v11-app-apple-identity")
        try queue.write { db in
            try db.execute(sql: """
                INSERT INTO app (id, name, bundle_id, app_key, currency_per_yuan, restore_ownership, grace_period_days,
                  apple_app_id, environment)
                VALUES ('2001', '旧游戏', 'com.example.old', '0123456789abcdef', 10, 'keep', 3, 6741000999, 'sandbox')
                """)
        }
        try queue.close()
        let store = try AppDatabase.open(path: path, access: .readWrite, migrate: true)
        let app = try #require(try store.reader.read { try App.fetchOne($0, key: "2001") })
        #expect(app == App(
            id: "2001", name: "旧游戏", bundleId: "com.example.old", appKey: "0123456789abcdef", currencyPerYuan: 10,
            restoreOwnership: .keep, gracePeriodDays: 3, appleAppId: 6_741_000_999, environments: .sandbox, callbackURL: nil))
        #expect(try store.check().isEmpty)
    }

    /// Saving an app writes every column: a cleared Apple app id or callback URL is stored as cleared.
    @Test func anAppsSettingsRoundTripAndClear() throws {
        let store = try AppDatabase.inMemory()
        var app = App(
            id: "9", name: "g", bundleId: "com.example.g", appKey: "k", currencyPerYuan: 1, restoreOwnership: .keep,
            gracePeriodDays: 0, appleAppId: 6_741_000_999, environments: .sandbox, callbackURL: "https://game.example/pay")
        try store.write { try app.insert($0) }
        #expect(try store.reader.read { try App.fetchOne($0, key: "9") } == app)
        app.appleAppId = nil
        app.callbackURL = nil
        app.environments = .production
        try store.write { try app.update($0) }
        #expect(try store.reader.read { try App.fetchOne($0, key: "9") } == app)
        #expect(throws: DatabaseError.self) {
            try store.write { try $0.execute(sql: "UPDATE app SET callback_url = 'ftp://x' WHERE id = '9'") }
        }
    }
}
