import Foundation
import Testing

/// `storedesk events simulate`: the console's demo subscription, headless, through the real binary.
@Suite struct EventsSimulateCommandTests {
    /// The embedded demo store in a fresh home, built by a first command.
    func demoStore(_ home: TemporaryHome) throws -> String {
        let built = try storedesk(["check"], home: home)
        #expect(built.status == 0, "\(built.stderr)")
        return home.path("data/storedesk/storedesk.sqlite")
    }

    @Test func aMonthEvery30SecondsWithBillingTroubleRecoveryAndARefund() throws {
        let home = TemporaryHome()
        _ = try demoStore(home)
        let run = try storedesk(
            ["events", "simulate", "10000004", "--role", "developer", "--step", "billing-fails@40", "--step", "billing-fixed@75",
             "--step", "refund@100", "--json"],
            home: home)
        #expect(run.status == 0, "\(run.stderr)")
        let result = try jsonObject(run.stdout)
        #expect(result["productId"] as? String == "com.storedesk.starvoyage.vip.monthly")
        #expect(result["start"] as? String == "2026-11-20T08:00:00Z")
        #expect(result["end"] as? String == "2026-11-20T08:02:00Z")
        let names = try #require(result["notifications"] as? [[String: Any]]).compactMap { $0["name"] as? String }
        #expect(names == ["SUBSCRIBED/INITIAL_BUY", "DID_RENEW", "DID_FAIL_TO_RENEW/GRACE_PERIOD", "DID_RENEW/BILLING_RECOVERY", "DID_RENEW", "REFUND"])
        let subscription = try #require(result["subscription"] as? [String: Any])
        #expect(subscription["state"] as? String == "revoked")
        #expect(subscription["entitled"] as? Bool == false)
        // The app's 16-day grace period lasted 16 seconds.
        #expect(subscription["status"] as? Int == 5)

        // The store holds it like any imported subscription, at its moved clock, and stays consistent.
        let subs = try storedesk(["subs", "10000004", "--json"], home: home)
        let state = try jsonObject(subs.stdout)
        #expect(state["at"] as? String == "2026-11-20T08:02:00Z")
        #expect(state["unlocked"] as? Bool == false)
        #expect((state["groups"] as? [[String: Any]])?.first?["status"] as? Int == 5)
        #expect(try storedesk(["check"], home: home).status == 0)
    }

    @Test func refusedStepsRolesAndBadInputLeaveTheStoreAsItWas() throws {
        let home = TemporaryHome()
        let path = try demoStore(home)
        let before = FileManager.default.contents(atPath: path)
        let cases: [([String], String)] = [
            (["10000004", "--role", "developer", "--step", "refund@10", "--step", "refund@20"],
             "storedesk: --step refund@20 refused: subscription 3000000001000001 is refunded; nothing was imported"),
            (["10000004", "--step", "refund@10"], "storedesk: --role operator: driving a simulation needs --role developer"),
            (["10000004", "--role", "developer", "--readonly"],
             "storedesk: --readonly: `storedesk events simulate` writes the store, so nothing was done"),
            (["10000004", "--role", "developer", "--rate", "1h"], "storedesk: --rate must be 30s, 5m or real, got '1h'"),
            (["10000004", "--role", "developer", "--step", "refund"],
             "storedesk: --step 'refund': expected ACTION@SECONDS with ACTION one of billing-fails, billing-fixed, auto-renew-off, auto-renew-on, refund, change:PRODUCT"),
            (["10000001", "--role", "developer"],
             "storedesk: 10000001 already has subscription 2000000100000030 in starvoyage.vip (active): pick another player or group"),
            (["nobody", "--role", "developer"], "storedesk: no user with id 'nobody'"),
        ]
        for (arguments, message) in cases {
            let run = try storedesk(["events", "simulate"] + arguments, home: home)
            #expect(run.status == 1, "\(arguments)")
            #expect(run.stderr == message + "\n", "\(arguments)")
            #expect(FileManager.default.contents(atPath: path) == before, "\(arguments)")
        }
    }
}
