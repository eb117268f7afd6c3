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

    /// The one subscription of `subs USER --json` with this original transaction id.
    func subscription(_ user: String, _ id: String, at instant: String? = nil, home: TemporaryHome) throws -> [String: Any] {
        let run = try storedesk(["subs", user, "--json"] + (instant.map { ["--at", $0] } ?? []), home: home)
        #expect(run.status == 0, "\(run.stderr)")
        let all = try #require(try jsonObject(run.stdout)["all"] as? [[String: Any]])
        return try #require(all.first { $0["originalTransactionId"] as? String == id })
    }

    @Test(arguments: [
        // A month every 5 minutes: the renewal at 08:05 fails, 60 days of 10 s end billing retry at 08:15.
        ("5m", "200", "600", "2026-11-20T08:10:00Z", "2026-11-20T08:15:00Z", "Friday 20 November 2026, 08:15 UTC (in 5 minutes)"),
        // A month every 30 seconds: the renewal at 08:00:30 fails, retry ends 60 seconds later.
        ("30s", "10", "60", "2026-11-20T08:01:00Z", "2026-11-20T08:01:30Z", "Friday 20 November 2026, 08:01 UTC"),
    ])
    func aDemoStoppedInBillingRetryEndsItAtTheDemosRate(
        rate: String, failsAt: String, stopsAt: String, end: String, retryEnd: String, spoken: String
    ) throws {
        let home = TemporaryHome()
        _ = try demoStore(home)
        let run = try storedesk(
            ["events", "simulate", "10000004", "--role", "developer", "--rate", rate, "--for", stopsAt,
             "--step", "billing-fails@" + failsAt, "--json"],
            home: home)
        #expect(run.status == 0, "\(run.stderr)")
        let id = try #require(try jsonObject(run.stdout)["originalTransactionId"] as? String)
        // Read back at the store's clock, where the demo stopped: billing retry, until the demo's own end.
        let stopped = try subscription("10000004", id, home: home)
        #expect(stopped["state"] as? String == "billing_retry")
        #expect(stopped["billingRetryExpiresDate"] as? String == retryEnd)
        let text = try storedesk(["subs", "10000004", "--at", end], home: home)
        #expect(text.stdout.contains("retried until " + spoken), "\(text.stdout)")
        // From the retry's end on it has expired on a billing error, not 60 real days later.
        let after = try subscription("10000004", id, at: retryEnd, home: home)
        #expect(after["state"] as? String == "expired")
        #expect(after["expirationIntent"] as? Int == 2)
        #expect(try storedesk(["check"], home: home).status == 0)
    }

    @Test func rowsWithoutADemoRateStillRetryForSixtyRealDays() throws {
        let home = TemporaryHome()
        _ = try demoStore(home)
        let demo = try storedesk(
            ["events", "simulate", "10000004", "--role", "developer", "--rate", "30s", "--for", "60", "--step", "billing-fails@10"],
            home: home)
        #expect(demo.status == 0, "\(demo.stderr)")
        // Beside a demo at 30 s a month, the demo store's own row in billing retry (no rate kept) still
        // retries for 60 real days.
        let row = try subscription("10000037", "2000000100000047", home: home)
        #expect(row["state"] as? String == "billing_retry")
        #expect(row["billingRetryExpiresDate"] as? String == "2027-01-18T03:00:00Z")
        #expect(try subscription("10000037", "2000000100000047", at: "2027-01-18T03:00:00Z", home: home)["state"] as? String == "expired")
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
        // A rate it does not know is refused by the parser, as every value an option does not take: one
        // line naming the option and the three rates, the usage exit status, the store untouched.
        let rate = try storedesk(["events", "simulate", "10000004", "--role", "developer", "--rate", "1h"], home: home)
        #expect(rate.status == 64)
        #expect(rate.stderr.hasPrefix("storedesk: The value '1h' is invalid for '--rate <rate>'. Please provide one of '30s', '5m' or 'real'."))
        #expect(rate.stderr.filter { $0 == "\n" }.count == 1)
        #expect(FileManager.default.contents(atPath: path) == before)
    }
}
