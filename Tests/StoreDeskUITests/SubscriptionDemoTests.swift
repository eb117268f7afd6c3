import Foundation
import StoreDeskCore
import Testing
@testable import StoreDeskSQLite
@testable import StoreDeskUI

/// A developer drives a subscription live on the Subscriptions screen: a month every 30 seconds, with
/// grace and retry scaled alike; what the simulation sends lands in the store as notifications.
@Suite struct SubscriptionDemoTests {
    let size = Size(width: 120, height: 40)

    func tick(_ console: ConsoleHarness, seconds: Int64) {
        console.runtime.dispatch(.tick(console.state.clock.adding(.seconds(seconds))))
    }

    func screen(_ console: ConsoleHarness) -> SubscriptionsScreen { console.state.screenState(SubscriptionsScreen.self) }

    /// The demo's subscription as the store folds it from the notifications, at the demo's last action
    /// (a key pressed within a tick acts a millisecond after the one before).
    func stored(_ console: ConsoleHarness) throws -> SubscriptionInfo {
        let demo = try #require(screen(console).demo)
        let records = try console.database.subscriptionRecords(userId: demo.setup.userId)
        return try #require(records.snapshot(at: max(console.state.clock, demo.simulation.now)).subscription(originalTransactionId: demo.originalTransactionId))
    }

    func types(_ console: ConsoleHarness) throws -> [String] {
        let demo = try #require(screen(console).demo)
        return try console.database.subscriptionRecords(userId: demo.setup.userId).events
            .filter { $0.originalTransactionId == demo.originalTransactionId }
            .sorted { $0.signedDate < $1.signedDate }
            .map { $0.notificationType.rawValue + ($0.subtype.map { "/" + $0.rawValue } ?? "") }
    }

    @Test func aMonthRenewsEvery30SecondsAndBillingTroubleGoesThroughGraceRetryAndRecovery() throws {
        let console = try ConsoleHarness(size: size, role: .developer)
        console.show("subscriptions")
        console.show("demo 10000004")
        let demo = try #require(screen(console).demo, "\(String(describing: console.state.status))")
        #expect(demo.setup.product.id == "com.storedesk.starvoyage.vip.monthly")
        #expect(screen(console).filter == demo.originalTransactionId)
        #expect(screen(console).rows.map(\.subscription.id) == [demo.originalTransactionId])
        #expect(try stored(console).state == .active)
        #expect(try types(console) == ["SUBSCRIBED/INITIAL_BUY"])
        #expect(console.text.contains("filter “\(demo.originalTransactionId)”"))
        #expect(console.text.contains("this period  2026-11-20 08:00:00 → 2026-11-20 08:00:30"))
        #expect(console.text.contains("driven live: a month every 30 s"))

        // 31 seconds later the month has renewed, on the notification Apple would send.
        tick(console, seconds: 31)
        #expect(try types(console) == ["SUBSCRIBED/INITIAL_BUY", "DID_RENEW"])
        #expect(try stored(console).state == .active)

        // The card stops working: at the next period end the app's 16-day grace period (16 s here) starts.
        console.press(.character("b"))
        #expect(screen(console).demo?.billingProblem == true)
        tick(console, seconds: 30)
        #expect(try stored(console).state == .gracePeriod)
        #expect(try types(console).last == "DID_FAIL_TO_RENEW/GRACE_PERIOD")
        #expect(console.text.contains("● grace"))
        tick(console, seconds: 17)
        #expect(try stored(console).state == .billingRetry)
        #expect(try stored(console).isEntitled == false)
        // Fixed: the subscription recovers and access is back.
        console.press(.character("b"))
        #expect(try stored(console).state == .active)
        #expect(try stored(console).isEntitled)
        #expect(try types(console).last == "DID_RENEW/BILLING_RECOVERY")

        // A refund revokes it and removes the entitlement; `storedesk check` stays clean.
        console.press(.character("R"))
        #expect(try stored(console).state == .revoked)
        #expect(try types(console).last == "REFUND")
        #expect(try console.database.check().isEmpty)

        console.press(.character("x"))
        #expect(screen(console).demo == nil)
    }

    @Test func aDemoStoppedInBillingRetryStillEndsItAtItsRate() throws {
        let console = try ConsoleHarness(size: size, role: .developer)
        console.show("subscriptions")
        console.show("demo 10000004")
        let demo = try #require(screen(console).demo)
        // The renewal at 08:00:30 fails; 16 s of grace, then billing retry, which ends 60 s after the period.
        console.press(.character("b"))
        tick(console, seconds: 50)
        #expect(try stored(console).state == .billingRetry)
        console.press(.character("x"))
        #expect(screen(console).demo == nil)
        let row = try #require(try console.outside().read { try Subscription.fetchOne($0, key: demo.originalTransactionId) })
        #expect(row.timeRate == .monthEvery30Seconds)
        // Stopped, it is read back from the store alone: retry ends at 08:01:30, not 60 real days later.
        tick(console, seconds: 39)
        #expect(screen(console).rows.first?.subscription.info(at: console.state.clock)?.state == .billingRetry)
        #expect(console.text.contains("● retry"), "\(console.text)")
        #expect(console.text.contains("retry 1 expired 0"))
        // While it is retried the player cannot start another demo in the group; once retry has ended, can.
        console.show("demo 10000004")
        #expect(screen(console).demo == nil)
        #expect(console.text.contains("already has subscription \(demo.originalTransactionId) in starvoyage.vip (billing retry)"))
        tick(console, seconds: 2)
        let records = try console.database.subscriptionRecords(userId: demo.setup.userId)
        #expect(records.snapshot(at: console.state.clock).subscription(originalTransactionId: demo.originalTransactionId)?.state == .expired)
        #expect(console.text.contains("● expired"), "\(console.text)")
        #expect(console.text.contains("retry 0 expired 1"))
        console.show("demo 10000004")
        #expect(screen(console).demo.map(\.originalTransactionId) != nil)
        #expect(screen(console).demo?.originalTransactionId != demo.originalTransactionId)
    }

    @Test func autoRenewOffExpiresVoluntarilyAndUpgradesTakeEffectAtOnce() throws {
        let console = try ConsoleHarness(size: size, role: .developer)
        console.show("subscriptions")
        console.show("demo 10000004")
        console.press(.character("c"))
        console.type("com.storedesk.starvoyage.vip.yearly")
        console.press(.enter)
        #expect(try stored(console).productId == "com.storedesk.starvoyage.vip.yearly")
        let afterUpgrade = try types(console)
        #expect(afterUpgrade.last == "DID_CHANGE_RENEWAL_PREF/UPGRADE", "\(String(describing: console.state.status)) \(afterUpgrade)")
        console.press(.character("a"))
        #expect(try types(console).last == "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED")
        // A year is 12 × 30 s here.
        tick(console, seconds: 361)
        #expect(try stored(console).state == .expired)
        #expect(try types(console).last == "EXPIRED/VOLUNTARY")
    }

    @Test func theRateIsChosenBeforeTheDemoAndBadInputIsOneLine() throws {
        let console = try ConsoleHarness(size: size, role: .developer)
        console.show("subscriptions")
        console.press(.character("t"))
        #expect(console.state.status?.text == "the next demo runs at a month every 5 min")
        console.show("demo nobody")
        #expect(console.state.status?.text == "demo not started: no user with id 'nobody'")
        console.show("demo 10000001")
        #expect(console.state.status?.text.contains("10000001 already has subscription") == true)
        console.show("demo 10000004 com.storedesk.starvoyage.gems.60")
        #expect(console.state.status?.text == "demo not started: com.storedesk.starvoyage.gems.60 is not an auto-renewable subscription")
        console.show("demo 10000004 nope")
        #expect(console.state.status?.text == "demo not started: no product 'nope'")
        console.show("demo 10000004")
        #expect(screen(console).demo?.simulation.rate == .monthEvery5Minutes)
        // Five minutes make a month: nothing renews after 31 seconds.
        tick(console, seconds: 31)
        #expect(try types(console) == ["SUBSCRIBED/INITIAL_BUY"])
    }

    @Test func operatorsAndReadOnlyConsolesCannotDriveADemo() throws {
        let console = try ConsoleHarness(size: size, role: .operator)
        console.show("subscriptions")
        console.press(.character("n"))
        #expect(screen(console).demo == nil)
        #expect(console.state.status?.text.contains("developer role") == true)
        console.show("demo 10000004")
        #expect(screen(console).demo == nil)

        let readOnly = try ConsoleHarness(size: size, role: .developer, readOnly: true)
        readOnly.show("subscriptions")
        let before = try readOnly.database.subscriptionEventCount()
        readOnly.show("demo 10000004")
        #expect(screen(readOnly).demo == nil)
        #expect(try readOnly.database.subscriptionEventCount() == before)
    }
}
