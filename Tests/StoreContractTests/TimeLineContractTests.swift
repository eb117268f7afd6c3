import Foundation
import StoreDeskCore
import StoreDeskStoreAPI
import Testing

/// The time line, player lookup, the restore desk's commands and the audit log as commands read it, on
/// both backends: the same answers, and Restore Purchases deciding, refusing and writing as SQLite does.
@Suite(.serialized) struct TimeLineContractTests {
    static let clock = StoreContractTests.demoClock

    @Test(arguments: Backend.allCases) func theTimeLineAnswersAndMovesOnlyForward(_ backend: Backend) throws {
        let store = try ContractStores.get().commandsStore(backend)
        let reference = try ContractStores.get().sqlite()
        for wall in [Instant(millis: 0), Self.clock, Instant(millis: Self.clock.millis + 3_600_000)] {
            #expect(try store.now(wall: wall) == reference.now(wall: wall), "\(wall)")
        }
        for instant in [Instant(millis: Self.clock.millis + 90_000), Instant(millis: Self.clock.millis + 30_000), Instant(millis: -5)] {
            try store.remember(clock: instant)
            try reference.remember(clock: instant)
            #expect(try store.clock() == reference.clock())
            #expect(try store.now(wall: Self.clock) == reference.now(wall: Self.clock))
        }
        #expect(try store.clock() == Instant(millis: Self.clock.millis + 90_000))
        // A write proposed before the remembered clock is stamped at it.
        try store.recordAudit(AuditEntry(at: Self.clock, actor: "li.na", role: "support", action: "note", subject: "x", detail: "y"))
        #expect(try store.auditEntries(limit: 1).first?.at == Instant(millis: Self.clock.millis + 90_000))
    }

    @Test(arguments: Backend.allCases) func playersAreLookedUpAsTheSQLiteStoreFindsThem(_ backend: Backend) throws {
        let store = try ContractStores.get().commandsStore(backend)
        let reference = try ContractStores.get().sqlite()
        for id in ["10000001", "10000040", "nobody"] {
            #expect(try store.user(id: id) == reference.user(id: id), "\(id)")
        }
        let someone = try #require(try reference.user(id: "10000007"))
        for text in ["王", "张伟", "1000001", String(someone.phone.suffix(4)), "GUEST", "%", "zz-nothing"] {
            for limit in [3, 100] {
                #expect(try store.searchUsers(text, limit: limit) == reference.searchUsers(text, limit: limit), "“\(text)” \(limit)")
            }
        }
    }

    @Test(arguments: Backend.allCases) func promptsAndAuditPagesReadAsTheSQLiteStore(_ backend: Backend) throws {
        let store = try ContractStores.get().commandsStore(backend)
        let reference = try ContractStores.get().sqlite()
        for status in [nil] + RestoreStatus.allCases.map(Optional.some) {
            let expected = try reference.restorePrompts(status: status, limit: 500)
            var paged: [RestorePrompt] = []
            var cursor: RestoreCursor?
            while true {
                let page = try store.restorePrompts(status: status, limit: 2, after: cursor)
                guard let last = page.last else { break }
                paged += page
                cursor = RestoreRow(request: last.request, appId: last.app.id).cursor
            }
            #expect(paged == expected, "\(String(describing: status))")
        }
        let filters: [(String?, String?, String?)] = [(nil, nil, nil), ("restore", nil, nil), (nil, "li.na", nil), (nil, nil, "REFUND"), ("login.entries", nil, "app")]
        for (action, actor, text) in filters {
            for oldestFirst in [false, true] {
                let expected = try reference.auditEntries(action: action, actor: actor, text: text, oldestFirst: oldestFirst, anchor: .first, limit: 1000)
                var paged: [AuditEntry] = []
                var anchor = KeysetAnchor.first
                while true {
                    let page = try store.auditEntries(action: action, actor: actor, text: text, oldestFirst: oldestFirst, anchor: anchor, limit: 3)
                    guard let last = page.last else { break }
                    paged += page
                    anchor = .after(KeysetCursor(time: last.at, id: last.id ?? 0))
                }
                #expect(paged == expected, "\(String(describing: action)) \(String(describing: actor)) \(String(describing: text)) \(oldestFirst)")
            }
        }
    }

    @Test(arguments: Backend.allCases) func restorePurchasesDecidesRefusesAndWritesAsTheSQLiteStore(_ backend: Backend) throws {
        let store = try ContractStores.get().commandsStore(backend)
        let reference = try ContractStores.get().sqlite()
        let support = StaffMember(name: "li.na", role: .support)
        var targets: [(RestoreAccount, String?, StaffMember)] = []
        for user in ["10000001", "10000002", "10000003", "10000017"] {
            for account in try reference.profile(userId: user).gameAccounts {
                targets.append((RestoreAccount(userId: user, sid: account.sid, roleId: account.roleId), account.appId, support))
                targets.append((RestoreAccount(userId: user, sid: account.sid, roleId: account.roleId), nil, support))
            }
        }
        targets += [
            (RestoreAccount(userId: "nobody", sid: "s1", roleId: "r1"), nil, support),
            (RestoreAccount(userId: "10000001", sid: "no-sid", roleId: "no-role"), nil, support),
            (RestoreAccount(userId: "10000001", sid: "no-sid", roleId: "no-role"), "1002", support),
        ]
        if let (target, app, _) = targets.first { targets.append((target, app, StaffMember(name: "wang.qiang", role: .operator))) }
        var restored = 0
        for (index, (target, app, staff)) in targets.enumerated() {
            let at = Instant(millis: Self.clock.millis + Int64(index) * 1_000)
            let expected = said { try reference.restorePurchases(for: target, appId: app, by: staff, at: at) }
            #expect(said { try store.restorePurchases(for: target, appId: app, by: staff, at: at) } == expected, "\(target) \(String(describing: app))")
            if expected.hasPrefix("ok") { restored += 1 }
        }
        #expect(restored >= 1)
        for user in ["10000001", "10000002", "10000003", "10000017"] {
            #expect(try store.profile(userId: user, recent: 50) == reference.profile(userId: user, recent: 50), "\(user)")
        }
        #expect(try store.auditEntries(action: "restore", limit: 50) == reference.auditEntries(action: "restore", limit: 50))
        #expect(try store.check() == [])
    }
}
