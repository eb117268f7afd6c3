import Foundation
import StoreDeskCore
import StoreDeskPostgres
import StoreDeskSQLite
import StoreDeskStoreAPI
import Testing

/// Login entries and the one-click login simulator on both backends: the same setup, the same refusals,
/// the same history and audit lines, and a simulator that continues one flow across connections.
@Suite(.serialized) struct LoginContractTests {
    static func said<T>(_ body: () throws -> T) -> String {
        do { return "ok \(try body())" } catch { return "refused: \(error)" }
    }

    @Test(arguments: Backend.allCases) func entriesAreSetRefusedAndRememberedAsTheSQLiteStoreDoes(_ backend: Backend) throws {
        let store = try ContractStores.get().store(backend)
        let reference = try ContractStores.get().sqlite()
        for app in ["1001", "1002", "1003"] {
            #expect(try store.loginEntrySetup(appId: app, historyLimit: 20) == reference.loginEntrySetup(appId: app, historyLimit: 20), "\(app)")
        }
        #expect(Self.said { try store.loginEntrySetup(appId: "9", historyLimit: 5) } == Self.said { try reference.loginEntrySetup(appId: "9", historyLimit: 5) })
        let developer = StaffMember(name: "zhao.dev", role: .developer)
        let at = Instant(millis: StoreContractTests.demoClock.millis + 60_000)
        let steps: [(StaffMember, [LoginEntry]?, String)] = [
            (developer, [.apple, .weChat, .guest], "1002"),
            (developer, [.apple, .weChat, .guest], "1002"),  // unchanged: nothing written
            (StaffMember(name: "wang.qiang", role: .operator), [.guest], "1001"),
            (developer, [], "1003"),
            (developer, nil, "1001"),
            (developer, [.weChat], "9"),
        ]
        for (staff, entries, app) in steps {
            let expected = Self.said { try reference.setLoginEntries(entries, appId: app, by: staff, surface: "contract", at: at) }
            let got = Self.said { try store.setLoginEntries(entries, appId: app, by: staff, surface: "contract", at: at) }
            #expect(got == expected, "\(staff.role) \(String(describing: entries)) \(app)")
        }
        for app in ["1001", "1002", "1003"] {
            let setup = try store.loginEntrySetup(appId: app, historyLimit: 20)
            let expected = try reference.loginEntrySetup(appId: app, historyLimit: 20)
            #expect(setup.configuration == expected.configuration && setup.history.map(\.change) == expected.history.map(\.change), "\(app)")
        }
        #expect(try store.audit(AuditQuery(action: "login")).first(limit: 20).map(\.detail)
            == reference.audit(AuditQuery(action: "login")).first(limit: 20).map(\.detail))
    }

    @Test(arguments: Backend.allCases) func theOneTapSimulatorContinuesOneFlowAcrossConnections(_ backend: Backend) throws {
        let store = try ContractStores.get().store(backend)
        let other = try ContractStores.another(store)
        let developer = StaffMember(name: "zhao.dev", role: .developer)
        let wall = StoreContractTests.demoClock
        #expect(Self.said { try store.oneTap(by: StaffMember(name: "li.na", role: .support), wall: wall) { login, _ in login.advance(seconds: 1) } }.hasPrefix("refused"))
        try store.oneTap(by: developer, wall: wall) { login, _ in login.register(appId: "300011912345", appKey: "8F3A9C2E7B1D4F60A5C3E9B7D2F1A4C8") }
        let prefetched = try other.oneTap(by: developer, wall: wall) { login, now in login.prefetch(at: now) }
        let authorized = try store.oneTap(by: developer, wall: wall) { login, now in login.authorize(buttonText: "本机号码一键登录", at: now) }
        try other.oneTap(by: developer, wall: wall) { login, _ in login.advance(seconds: 30) }
        let kept = try store.oneTapLogin()
        #expect(kept.registration?.appId == "300011912345")
        #expect(kept.clockOffsetMillis == 30_000)
        #expect(try store.oneTapClock(wall: wall) == Instant(millis: wall.millis + 30_000))
        #expect(kept.tokens.count == (try other.oneTapLogin()).tokens.count)
        #expect("\(prefetched)" != "" && "\(authorized)" != "")
        let audit = try store.audit(AuditQuery(action: "login.onetap")).first(limit: 5)
        #expect(audit.map(\.action) == ["login.onetap.register"])
        #expect(audit.first.map { !$0.detail.contains("8F3A9C2E7B1D4F60A5C3E9B7D2F1A4C8") } == true, "the AppKey is masked in the audit line")
    }
}
