import Foundation
import StoreDeskCore
import Testing
@testable import StoreDeskSQLite
@testable import StoreDeskUI

/// The subscription panes and screens over the demo store, with the console's clock moved by ticks.
@Suite struct SubscriptionScreensTests {
    let size = Size(width: 120, height: 40)

    func command(_ console: ConsoleHarness, _ line: String) {
        console.press(.character(":"))
        console.type(line)
        console.press(.enter)
    }

    func tick(_ console: ConsoleHarness, days: Int64) {
        console.runtime.dispatch(.tick(console.state.clock.adding(.days(days))))
    }

    func tick(_ console: ConsoleHarness, hours: Int64) {
        console.runtime.dispatch(.tick(console.state.clock.adding(.hours(hours))))
    }

    var subscriptions: (ConsoleHarness) -> SubscriptionsScreen { { $0.state.screenState(SubscriptionsScreen.self) } }

    @Test func theUserPaneShowsStateDatesOfferAccessAndTheTimelineByApplesNames() throws {
        let console = try ConsoleHarness(size: size)
        command(console, "user 10000006")
        let text = console.text
        #expect(text.contains("access         unlocked"))
        #expect(text.contains("group          starvoyage.vip active"))
        #expect(text.contains("● active         vip.yearly"))
        #expect(text.contains("renews 2027-11-02 as vip.monthly"))
        for name in ["SUBSCRIBED/INITIAL_BUY", "DID_RENEW", "DID_CHANGE_RENEWAL_PREF/UPGRADE", "DID_CHANGE_RENEWAL_PREF/DOWNGRADE"] {
            #expect(text.contains(name), "\(name)")
        }
        // The badge is drawn in the theme's role for its state.
        let frame = console.frame
        let badgeRow = try #require(text.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.contains("● active         vip.yearly") })
        #expect(frame.roles(row: badgeRow).contains(.subscriptionActive))
        command(console, "user 10000008")
        // The demo's signed lines are verified by the demo's own root, and say it is not Apple's.
        #expect(console.text.contains("2026-11-09 ✓ test CA REFUND"))
        #expect(console.text.contains("refunded 2026-11-09, reason: app issue; access removed"))
        // A chain the demo left unsigned is marked decoded, on every line.
        command(console, "user 10000036")
        #expect(console.text.contains("2026-10-25 decoded SUBSCRIBED/INITIAL_BUY"))
        #expect(console.text.contains("2026-11-15 decoded DID_CHANGE_RENEWAL_STATUS"))
    }

    @Test func theUserPaneMovesAsTheClockAdvances() throws {
        let console = try ConsoleHarness(size: size)
        command(console, "user 10000013")
        #expect(console.text.contains("unlocked, grace period until 2026-11-26"))
        #expect(console.text.contains("● grace period"))
        tick(console, days: 7)
        #expect(console.text.contains("access         locked"))
        #expect(console.text.contains("● billing retry"))
        #expect(console.text.contains("billing failed 2026-11-10; retried until 2027-01-09"))
        tick(console, days: 60)
        #expect(console.text.contains("● expired"))
    }

    @Test func theListGroupsByStateAndRowsChangeGroupAsTheClockTicks() throws {
        let console = try ConsoleHarness(size: size)
        command(console, "subscriptions")
        #expect(console.state.screen == .subscriptions)
        let states = subscriptions(console).rows.compactMap { $0.subscription.info(at: console.state.clock)?.state }
        #expect(states == states.sorted { SubscriptionSearch.order.firstIndex(of: $0)! < SubscriptionSearch.order.firstIndex(of: $1)! })
        #expect(subscriptions(console).counts == [.active: 9, .gracePeriod: 2, .billingRetry: 1, .expired: 5, .revoked: 3])
        // `s` twice: grace period only.
        console.press(.character("s"), .character("s"))
        #expect(subscriptions(console).state == .gracePeriod)
        #expect(console.state.status?.text == "showing grace period")
        // In ENDS order: Emma's grace period ends first.
        #expect(subscriptions(console).rows.map(\.subscription.userId) == ["10000019", "10000013"])
        // A day later Emma's three-day grace period is over: her row leaves the group on the next tick.
        tick(console, days: 1)
        #expect(subscriptions(console).rows.map(\.subscription.userId) == ["10000013"])
        #expect(subscriptions(console).counts[.billingRetry] == 2)
        console.press(.character("s"))
        #expect(subscriptions(console).rows.map(\.subscription.userId).sorted() == ["10000019", "10000037"])
        #expect(console.text.contains("● retry"))
        // Round the states back to all.
        console.press(.character("s"), .character("s"), .character("s"))
        #expect(subscriptions(console).state == nil)
    }

    @Test func ticksFetchNothingUntilTheNextStateChange() throws {
        let console = try ConsoleHarness(size: size)
        command(console, "subscriptions")
        let fetched = subscriptions(console).fetchedAt
        #expect(fetched == console.state.clock)
        // Emma's three-day grace period is the first thing to end after the demo store's clock.
        #expect(subscriptions(console).nextChange == Instant(iso8601: "2026-11-21T06:00:00Z"))
        tick(console, hours: 21)
        #expect(subscriptions(console).fetchedAt == fetched)
        tick(console, hours: 1)
        #expect(subscriptions(console).fetchedAt == Instant(iso8601: "2026-11-21T06:00:00Z"))
        #expect(subscriptions(console).counts[.billingRetry] == 2)
        #expect(subscriptions(console).nextChange == Instant(iso8601: "2026-11-21T18:00:00Z"))
    }

    @Test func movingPastTheWindowFetchesByKeysetAndTheDetailFollows() throws {
        let console = try ConsoleHarness(size: Size(width: 80, height: 20))
        command(console, "subscriptions")
        let page = SubscriptionsScreen.listRows(console.state.context)
        let all = try console.database.subscriptions(SubscriptionSearch(instant: console.state.clock), from: .first, limit: 100)
            .map(\.subscription.id)
        #expect(all.count > page)
        let ids = { subscriptions(console).rows.map(\.subscription.id) }
        #expect(ids() == Array(all.prefix(page)))
        console.press(.character("G"))
        #expect(ids() == Array(all.suffix(page)))
        #expect(subscriptions(console).selectedRow?.subscription.state == .revoked)
        console.press(.character("g"))
        #expect(ids() == Array(all.prefix(page)))
        // One row past the window: the window slides by one, never holding more than it shows.
        for _ in 0..<page { console.press(.character("j")) }
        #expect(ids() == Array(all[1...page]))
        #expect(subscriptions(console).selectedRow?.subscription.id == all[page])
        #expect(subscriptions(console).detail?.row.subscription.id == all[page])
        console.press(.pageDown)
        #expect(ids() == Array(all.suffix(page)))
        console.press(.pageUp)
        #expect(ids() == Array(all.prefix(page)))
        // The filter matches ids and products; `:select` goes straight to a subscription.
        console.press(.character("/"))
        console.type("guild")
        console.press(.enter)
        #expect(subscriptions(console).rows.map(\.subscription.userId).sorted() == ["10000014", "10000026", "10000040"])
        command(console, "select 2000000100000231")
        #expect(subscriptions(console).selectedRow?.subscription.userId == "10000006")
        #expect(subscriptions(console).detail?.events.map(\.appleName).contains("DID_CHANGE_RENEWAL_PREF/UPGRADE") == true)
    }

    @Test func theCodesScreenSearchesEverySource() throws {
        let console = try ConsoleHarness(size: size)
        command(console, "codes")
        let codes = { console.state.screenState(CodesScreen.self) }
        #expect(codes().rows.count == SubscriptionCodes.all.count + OneTapResultCode.table.count)
        console.press(.character("/"))
        console.type("receipt")
        #expect(codes().rows.map(\.code) == ["30000", "30001", "30002", "30003", "30004", "30005", "30006", "30007", "30008"])
        console.press(.enter, .character("G"))
        #expect(codes().selectedRow?.name == "purchaseItemError")
        #expect(console.text.contains("A purchase in the receipt could not be read."))
        command(console, "select 4")
        #expect(codes().rows.map(\.family) == ["InAppPurchaseError", "SKError code", "expirationIntent", "status", "offerType"])
        command(console, "select nothing-like-this")
        #expect(codes().rows.isEmpty)
        #expect(console.state.status?.text == "no code matches 'nothing-like-this'")
    }

    /// A support action's pane names who did it and why, from the audit log (not
    /// Apple's `reason: other`): an extension's days and reason in words, a refund's and its reversal's
    /// reason as typed.
    @Test func supportActionsSayWhoAndWhyInThePane() throws {
        let console = try ConsoleHarness(size: Size(width: 200, height: 60), role: .support)
        let id = "2000000100000050", mia = StaffMember(name: "mia", role: .support)
        let request = try RenewalExtensionRequest(extendByDays: 7, extendReasonCode: 1, requestIdentifier: "ticket-4411")
        _ = try console.database.extendRenewalDate(originalTransactionId: id, request, by: mia, readOnly: false, at: console.state.clock)
        _ = try console.database.refund(id, reason: "charged twice for one month", appIssue: false, by: mia, at: console.state.clock)
        console.runtime.dispatch(.storeChanged)
        command(console, "subscriptions")
        command(console, "select \(id)")
        #expect(subscriptions(console).detail?.actions.count == 2)
        var text = console.text
        #expect(text.contains("refunded by  mia (support): charged twice for one month"), "\(text)")
        #expect(text.contains("mia (support): 7 days, Apple's reason 1 (customer satisfaction)"), "\(text)")
        // Counted as support's actions, never as simulated ones.
        #expect(text.contains("trust        2 support actions, 1 from the store's record") && !text.contains("simulated"), "\(text)")
        _ = try console.database.reverseRefund(id, reason: "goodwill", by: mia, at: console.state.clock)
        console.runtime.dispatch(.storeChanged)
        text = console.text
        #expect(!text.contains("refunded by"), "\(text)")
        #expect(text.contains("mia (support): charged twice for one month") && text.contains("mia (support): goodwill"), "\(text)")
    }
}
