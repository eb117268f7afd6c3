import Foundation
import GRDB
import StoreDeskCore
import Testing
@testable import StoreDeskSQLite

/// Saving login entries (with history and audit) and the one-click simulator's kept state, on real
/// SQLite files with the real migrations.
@Suite struct LoginEntriesStoreTests {
    static let developer = StaffMember(name: "zhao.dev", role: .developer)
    static let now = Instant(millis: 1_800_000_000_000)

    @Test func theDemoHasAnUnconfiguredAValidAndAViolatingApp() throws {
        let folder = TemporaryFolder()
        let store = try Fixtures.demoStore(at: folder.path("demo.sqlite"))
        let iPhone = LoginPlatform.iPhone
        #expect(try store.loginEntrySetup(appId: "1002").entries == nil)
        #expect(LoginEntryRules.isValid(LoginEntryRules.evaluate(try store.loginEntrySetup(appId: "1001").entries, on: iPhone)))
        #expect(!LoginEntryRules.isValid(LoginEntryRules.evaluate(try store.loginEntrySetup(appId: "1003").entries, on: iPhone)))
        #expect(try store.loginEntrySetup(appId: "1001").configuration?.weChatAppId == "wx5f3a2c7e81d04b6a")
    }

    @Test func aDeveloperSavesAListWithItsHistoryAndAnAuditLine() throws {
        // Given the demo store, app 1002 never configured
        let folder = TemporaryFolder()
        let store = try Fixtures.demoStore(at: folder.path("demo.sqlite"))
        // When a developer sets a list, then clears it back to the default
        let first = try store.setLoginEntries([.apple, .weChat], appId: "1002", by: Self.developer, surface: "cli", at: Self.now)
        try store.setLoginEntries(nil, appId: "1002", by: Self.developer, surface: "console", at: Self.now.adding(.seconds(60)))
        // Then the list is back to unconfigured, and both changes are in the history, newest first
        let setup = try store.loginEntrySetup(appId: "1002")
        #expect(setup.entries == nil)
        #expect(first?.change == "(SDK default) → APPLE_LOGIN,WX_LOGIN")
        #expect(setup.history.map(\.change) == ["APPLE_LOGIN,WX_LOGIN → (SDK default)", "(SDK default) → APPLE_LOGIN,WX_LOGIN"])
        #expect(setup.history.map(\.surface) == ["console", "cli"])
        #expect(setup.history.allSatisfy { $0.actor == "zhao.dev" && $0.role == "developer" })
        let audit = try store.reader.read { try AuditEntry.filter(Column("action") == "login.entries.set" && Column("subject") == "app 1002").fetchAll($0) }
        #expect(audit.count == 2)
        #expect(audit.first?.detail == "(SDK default) → APPLE_LOGIN,WX_LOGIN (from cli)")
    }

    @Test func anUnchangedListWritesNothing() throws {
        let store = try AppDatabase.inMemory()
        try store.write { db in
            try App(id: "9", name: "g", bundleId: "b", appKey: "k", currencyPerYuan: 1, restoreOwnership: .keep, gracePeriodDays: 0).insert(db)
        }
        try store.setLoginEntries([.guest], appId: "9", by: Self.developer, surface: "cli", at: Self.now)
        #expect(try store.setLoginEntries([.guest], appId: "9", by: Self.developer, surface: "cli", at: Self.now) == nil)
        #expect(try store.setLoginEntries([], appId: "9", by: Self.developer, surface: "cli", at: Self.now)?.change == "GUEST_LOGIN → (empty)")
        #expect(try store.loginEntrySetup(appId: "9").history.count == 2)
    }

    @Test(arguments: [StaffRole.operator, .support])
    func onlyADeveloperMayEditAndARefusalLeavesTheFileAsItWas(role: StaffRole) throws {
        let folder = TemporaryFolder()
        let path = folder.path("demo.sqlite")
        _ = try Fixtures.demoStore(at: path)
        let before = Fixtures.checksum(path)
        let store = try AppDatabase.open(path: path, access: .readWrite)
        #expect(throws: StoreError.invalidArgument("only a developer may edit the login configuration (li (\(role)))")) {
            try store.setLoginEntries([.guest], appId: "1001", by: StaffMember(name: "li", role: role), surface: "cli", at: Self.now)
        }
        #expect(throws: StoreError.self) {
            try store.setLoginEntries([.guest], appId: "nope", by: Self.developer, surface: "cli", at: Self.now)
        }
        #expect(Fixtures.checksum(path) == before)
    }

    @Test func aReadOnlyStoreRefusesEdits() throws {
        let folder = TemporaryFolder()
        let path = folder.path("demo.sqlite")
        _ = try Fixtures.demoStore(at: path)
        let store = try AppDatabase.open(path: path, access: .readOnly)
        #expect(throws: StoreError.self) {
            try store.setLoginEntries([.guest], appId: "1001", by: Self.developer, surface: "cli", at: Self.now)
        }
    }

    @Test func oneTapStepsInSeparateOpensContinueOneFlow() throws {
        // Given a demo store file (its clock 2026-11-20T08:00:00Z)
        let folder = TemporaryFolder()
        let path = folder.path("demo.sqlite")
        _ = try Fixtures.demoStore(at: path)
        func open() throws -> AppDatabase { try AppDatabase.open(path: path, access: .readWrite) }
        let wall = Instant(millis: 0)
        // When each step runs on a store opened afresh, as separate commands do
        try open().oneTap(by: Self.developer, wall: wall) { login, _ in
            login.register(appId: "300011862498", appKey: "8F3A9C2E7B1D4F6A0C5E9B3D7F2A8C41")
        }
        let page = try open().oneTap(by: Self.developer, wall: wall) { login, now in login.authorize(buttonText: "一键登录", at: now) }
        try open().oneTap(by: Self.developer, wall: wall) { login, _ in login.advance(seconds: 121) }
        let late = try open().oneTap(by: Self.developer, wall: wall) { login, now in login.exchange(token: page.token ?? "", at: now) }
        // Then the token issued at the store's clock has expired 121 s later
        #expect(page.result.code == "103000")
        #expect(page.at == Instant(iso8601: "2026-11-20T08:00:00Z"))
        #expect(late.result.code == "104201")
        #expect(try open().oneTapClock(wall: wall) == Instant(iso8601: "2026-11-20T08:02:01Z"))
        // And the registration is audited with the key masked
        let audit = try open().reader.read { try AuditEntry.filter(Column("action") == "login.onetap.register").fetchAll($0) }
        #expect(audit.map(\.detail) == ["appKey 8F3A****41"])
    }

    @Test func theOneTapSimulatorIsForDevelopers() throws {
        let store = try AppDatabase.inMemory()
        #expect(throws: StoreError.self) {
            try store.oneTap(by: StaffMember(name: "li", role: .operator), wall: Self.now) { login, _ in login.advance(seconds: 1) }
        }
        #expect(try store.oneTapLogin().clockOffsetMillis == 0)
    }
}

@Suite struct LoginEntriesInvariantTests {
    @Test func aListBrokenOnEveryPlatformIsNeverSavedButAnIOSOnlyRuleIsLeftToCheck() throws {
        let folder = TemporaryFolder()
        let path = folder.path("demo.sqlite")
        let store = try Fixtures.demoStore(at: path)
        let before = Fixtures.checksum(path)
        let developer = LoginEntriesStoreTests.developer
        #expect(throws: StoreError.invalidArgument("not saved: taptap_with_xd (both are in the list)")) {
            try store.setLoginEntries([.tapTap, .platform], appId: "1001", by: developer, surface: "cli", at: LoginEntriesStoreTests.now)
        }
        #expect(throws: StoreError.self) {
            try store.setLoginEntries([.apple, .weChat, .qq, .guest, .tapTap, .apple], appId: "1001", by: developer, surface: "cli", at: LoginEntriesStoreTests.now)
        }
        #expect(Fixtures.checksum(path) == before)
        // WeChat alone is fine for an Android game; `check` on iOS still fails it.
        #expect(try store.setLoginEntries([.weChat], appId: "1001", by: developer, surface: "cli", at: LoginEntriesStoreTests.now) != nil)
    }
}

@Suite struct LoginEntriesMigrationTests {
    /// A store made before v5 keeps its login entries when upgraded; the new AppIDs start empty.
    @Test func upgradingAV4StoreKeepsItsLoginEntries() throws {
        // Given a v4 store with one configured app
        let queue = try DatabaseQueue()
        try SQLiteMigrations.migrator.migrate(queue, upTo: "v4-subscriptions")
        try queue.write { db in
            try db.execute(sql: "INSERT INTO app (id, name, bundle_id, app_key, currency_per_yuan, restore_ownership, grace_period_days) VALUES ('9', 'g', 'b', 'k', 1, 'keep', 0)")
            try db.execute(sql: """
                INSERT INTO login_entry_configuration (app_id, entries, updated_at, updated_by)
                VALUES ('9', '["APPLE_LOGIN","GUEST_LOGIN"]', 0, 'old')
                """)
        }
        // When v5 runs
        try SQLiteMigrations.migrator.migrate(queue)
        // Then the list reads back, with no third-party AppIDs and no history yet
        let configuration = try queue.read { try LoginEntryConfiguration.fetchOne($0, key: "9") }
        #expect(configuration?.entries == [.apple, .guest])
        #expect(configuration?.weChatAppId == nil)
        #expect(try queue.read { try LoginEntryHistory.fetchCount($0) } == 0)
    }
}
