import GRDB
import StoreDeskCore
import Testing
@testable import StoreDeskSQLite

@Suite struct AppIdentityMigrationTests {
    /// A store made before v11 keeps its apps; each takes both environments and has no Apple ID yet.
    @Test func upgradingAV8StoreKeepsItsAppsAndTakesBothEnvironments() throws {
        // Given a v8 store with one app
        let queue = try DatabaseQueue()
        try SQLiteMigrations.migrator.migrate(queue, upTo: "v8-subscription-apple-revocation-reason")
        try queue.write { db in
            try db.execute(sql: """
                INSERT INTO app (id, name, bundle_id, app_key, currency_per_yuan, restore_ownership, grace_period_days)
                VALUES ('9', 'g', 'com.example.g', 'k', 1, 'keep', 0)
                """)
        }
        // When v11 runs
        try SQLiteMigrations.migrator.migrate(queue)
        // Then the app reads back whole, taking Sandbox and Production, with no Apple ID
        let app = try queue.read { try App.fetchOne($0, key: "9") }
        #expect(app?.bundleId == "com.example.g")
        #expect(app?.environments == .both)
        #expect(app?.appleAppId == nil)
        // And a limit and an Apple ID round-trip
        try queue.write { db in
            try db.execute(sql: "UPDATE app SET environment = 'production', apple_app_id = 1234 WHERE id = '9'")
        }
        let limited = try queue.read { try App.fetchOne($0, key: "9") }
        #expect(limited?.environments == .production)
        #expect(limited?.appleAppId == 1234)
        #expect(limited?.environments.takes(.sandbox) == false)
        // And the schema refuses an environment it does not know
        #expect(throws: DatabaseError.self) {
            try queue.write { try $0.execute(sql: "UPDATE app SET environment = 'xcode' WHERE id = '9'") }
        }
    }
}
