import Foundation
import StoreDeskCore
import Testing

/// `storedesk support ...` through the real binary on a seeded store: refunds and their reversal (a
/// consumable's and a subscription's, which `subs` and `check` then see), a renewal extension, a token,
/// an order id looked up, the consumption-request desk; each bad input one line, a non-zero exit and the
/// store untouched.
@Suite struct SupportCommandTests {
    /// The seeded store's (30 players, seed 8) consumable purchase and active subscription.
    static let consumable = "2000000000000001"
    static let subscription = "2000000000000388"

    static func run(_ arguments: [String], _ store: String, _ home: TemporaryHome, role: String = "support") throws -> Binary.Result {
        try storedesk(["support"] + arguments + ["--db", store, "--role", role, "--as", "li.na"], home: home)
    }

    @Test func refundsAndReversalsWriteApplesNotificationsThatSubsAndCheckSee() throws {
        let home = TemporaryHome()
        let store = try SubscriptionCommandTests.seededStore(home)
        let refunded = try Self.run(["refund", Self.consumable, "--reason", "charged twice", "--json"], store, home)
        #expect(refunded.status == 0, "\(refunded.stderr)")
        let json = try jsonObject(refunded.stdout)
        #expect(json["notificationType"] as? String == "REFUND" && json["subscription"] as? Bool == false)
        #expect(json["transactionId"] as? String == Self.consumable && (json["notificationUUID"] as? String)?.count == 36)
        let events = home.path("events.txt")
        _ = try shell("sqlite3 '\(store)' \"SELECT notification_type || ' ' || source FROM subscription_event WHERE original_transaction_id = '\(Self.consumable)'\" > '\(events)'")
        #expect(try String(contentsOfFile: events, encoding: .utf8) == "REFUND support\n")

        let before = SubscriptionCommandTests.bytes(store)
        for (arguments, role, message) in [
            (["refund", Self.consumable, "--reason", "again"], "support", "storedesk: transaction \(Self.consumable) is already refunded (reverse it with support unrefund)\n"),
            (["refund", Self.subscription, "--reason", "x"], "operator", "storedesk: refunds, extensions and consumption answers need the support or developer role"),
            (["refund", Self.subscription, "--reason", " "], "support", "storedesk: a reason is needed: the audit log keeps why\n"),
            (["refund", "no-such", "--reason", "x"], "support", "storedesk: no transaction or subscription 'no-such' in the store\n"),
            (["extend", Self.subscription, "--days", "91", "--reason-code", "1"], "support", "storedesk: --days must be from 1 to 90\n"),
            (["extend", Self.subscription, "--days", "9", "--reason-code", "4"], "support", "storedesk: --reason-code must be 0 (undeclared), 1 (customer satisfaction), 2 (other) or 3 (service issue)\n"),
            (["token", Self.subscription, "not-a-uuid"], "support", "storedesk: the app account token must be a UUID, got 'not-a-uuid'\n"),
        ] {
            let refused = try Self.run(arguments, store, home, role: role)
            #expect(refused.status != 0 && refused.stdout.isEmpty, "\(arguments)")
            #expect(refused.stderr.hasPrefix(message), "\(arguments): \(refused.stderr)")
            #expect(refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")
        }
        #expect(SubscriptionCommandTests.bytes(store) == before)

        let extended = try Self.run(["extend", Self.subscription, "--days", "10", "--reason-code", "3", "--request-id", "outage-1", "--json"], store, home)
        #expect(extended.status == 0, "\(extended.stderr)")
        let effective = try #require(try jsonObject(extended.stdout)["effectiveDate"] as? String)
        let subscriptionRefund = try Self.run(["refund", Self.subscription, "--reason", "app crashed", "--app-issue"], store, home)
        #expect(subscriptionRefund.status == 0, "\(subscriptionRefund.stderr)")
        #expect(subscriptionRefund.stdout.contains("REFUND ") && subscriptionRefund.stdout.contains("written to the notification log"))
        let subs = try storedesk(["subs", Self.subscription, "--db", store], home: home)
        #expect(subs.stdout.contains("● refunded") && subs.stdout.contains("reason: app issue"), "\(subs.stdout)")
        let reversed = try Self.run(["unrefund", Self.subscription, "--reason", "goodwill"], store, home)
        #expect(reversed.status == 0 && reversed.stdout.hasPrefix("refund reversed: "), "\(reversed.stderr)")
        let after = try jsonObject(try storedesk(["subs", Self.subscription, "--db", store, "--json"], home: home).stdout)
        #expect(after["unlocked"] as? Bool == true, "\(after)")
        let expiry = try #require(Instant(iso8601: effective))
        #expect(try storedesk(["subs", Self.subscription, "--db", store], home: home).stdout.contains(expiry.iso8601.prefix(10)))
        let token = try Self.run(["token", Self.subscription, "7E3FB20B-4CDB-47CC-936D-99D65F608138"], store, home)
        #expect(token.stdout == "app account token of \(Self.subscription) (and its chain) set to 7e3fb20b-4cdb-47cc-936d-99d65f608138\n")
        let check = try storedesk(["check", "--db", store], home: home)
        #expect(check.status == 0 && check.stdout.hasPrefix("ok: "), "\(check.stdout)\(check.stderr)")
        let audit = try storedesk(["audit", "--db", store, "--action", "apple", "--json"], home: home)
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(audit.stdout.utf8)) as? [[String: Any]])
        #expect(entries.compactMap { $0["action"] as? String } == [
            "apple.app_account_token.set", "apple.refund.reverse", "apple.refund", "apple.renewal.extend", "apple.refund",
        ])
        #expect(entries.allSatisfy { $0["actor"] as? String == "li.na" && $0["role"] as? String == "support" })
    }

    @Test func anOrderIdFindsItsPurchase() throws {
        let home = TemporaryHome()
        let store = try SubscriptionCommandTests.seededStore(home)
        let order = AppleOrderId.of(transactionId: Self.consumable)
        let found = try storedesk(["support", "order", order.lowercased(), "--db", store], home: home)
        #expect(found.status == 0, "\(found.stderr)")
        #expect(found.stdout.hasPrefix("order \(order): transaction \(Self.consumable) of 20000000, com.storedesk.starvoyage.gems.6480 (1001)"))
        #expect(found.stdout.contains("storedesk support refund \(Self.consumable) --reason TEXT"))
        let json = try jsonObject(try storedesk(["support", "order", order, "--db", store, "--json"], home: home).stdout)
        #expect(json["transactionId"] as? String == Self.consumable && json["userId"] as? String == "20000000")
        let malformed = try storedesk(["support", "order", "X", "--db", store], home: home)
        #expect(malformed.status != 0 && malformed.stderr == "storedesk: 'X' is not an order id: ten letters and digits, as Apple's receipt prints it\n")
        let missing = try storedesk(["support", "order", "ZZZZZZZZZZ", "--db", store], home: home)
        #expect(missing.status != 0 && missing.stderr.hasPrefix("storedesk: no purchase has order id ZZZZZZZZZZ"))
    }

    @Test func theConsumptionDeskRaisesAnswersAndListsRequests() throws {
        let home = TemporaryHome()
        let store = try SubscriptionCommandTests.seededStore(home)
        let raised = try Self.run(["consumption", "request", Self.consumable, "--reason", "UNINTENDED_PURCHASE"], store, home)
        #expect(raised.status == 0, "\(raised.stderr)")
        #expect(raised.stdout.contains("UNINTENDED_PURCHASE  requested ") && raised.stdout.contains(": open, 12h 0m left"))
        for (arguments, message) in [
            (["consumption", "request", Self.consumable, "--reason", "OTHER"], "has a consumption request open until"),
            (["consumption", "request", Self.subscription, "--reason", "OTHER"], "is auto-renewable, not a consumable"),
            (["consumption", "request", Self.consumable, "--reason", "BORED"], "--reason must be one of UNINTENDED_PURCHASE, FULFILLMENT_ISSUE"),
            (["consumption", "answer", Self.consumable, "--consumption-status", "3", "--platform", "1", "--delivery-status", "9"],
             "consumption information refused: Invalid request. The delivery status field is invalid. (4000036)"),
            (["consumption", "answer", Self.subscription, "--consumption-status", "3", "--platform", "1", "--delivery-status", "0"],
             "has no consumption request"),
        ] {
            let refused = try Self.run(arguments, store, home)
            #expect(refused.status != 0 && refused.stderr.contains(message), "\(arguments): \(refused.stderr)")
        }
        let answered = try Self.run(
            ["consumption", "answer", Self.consumable, "--consumption-status", "3", "--platform", "1", "--delivery-status", "0", "--play-time", "4"],
            store, home)
        #expect(answered.status == 0 && answered.stdout.contains(": answered"), "\(answered.stderr)")
        let listed = try jsonObject(try storedesk(["support", "consumption", "list", "--db", store, "--json"], home: home).stdout)
        let requests = try #require(listed["requests"] as? [[String: Any]])
        #expect(requests.count == 1 && requests[0]["standing"] as? String == "answered" && requests[0]["answeredBy"] as? String == "li.na")
        #expect((requests[0]["answer"] as? String)?.contains("\"playTime\":4") == true)
        let events = home.path("events.txt")
        _ = try shell("sqlite3 '\(store)' \"SELECT notification_type FROM subscription_event WHERE original_transaction_id = '\(Self.consumable)'\" > '\(events)'")
        #expect(try String(contentsOfFile: events, encoding: .utf8) == "CONSUMPTION_REQUEST\n")
        #expect(try storedesk(["check", "--db", store], home: home).status == 0)
    }
}
