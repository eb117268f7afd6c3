import Foundation
import StoreDeskCore
import Testing
@testable import StoreDeskUI

/// The Subscriptions detail with the selected subscription's timeline bar, in block elements and in
/// ASCII, at the two sizes a ticket is read at.
@Suite struct TimelineBarGoldenTests {
    /// A demo subscription paid, then in grace at the store's clock, then in billing retry.
    static let graceThenRetry = "2000000100000043"

    @Test(arguments: [Size(width: 80, height: 24), Size(width: 120, height: 40)], TimelineBar.Glyphs.allCases)
    func subscriptionsDetailWithTheBar(size: Size, glyphs: TimelineBar.Glyphs) throws {
        let console = try ConsoleHarness(size: size) { $0.glyphs = glyphs }
        console.show("subscriptions")
        console.press(.character("/"))
        console.type(Self.graceThenRetry)
        console.press(.enter)
        try Golden.check(console.frame, named: "subscriptions-chart-\(glyphs.rawValue)-\(size)")
        let text = console.text
        for words in ["paid", "grace period", "billing retry", "store clock"] { #expect(text.contains(words), "\(words)") }
        if glyphs == .ascii {
            #expect(text.contains("|"))
            #expect(!text.contains("█") && !text.contains("░") && !text.contains("┃"))
        } else {
            #expect(text.contains("█") && text.contains("░") && text.contains("▚") && text.contains("┃"))
        }
    }

    /// The player's profile on Users: each subscription's bar under its lines, scrolled to it.
    @Test(arguments: TimelineBar.Glyphs.allCases)
    func usersProfileWithTheBar(glyphs: TimelineBar.Glyphs) throws {
        let console = try ConsoleHarness(size: Size(width: 120, height: 40)) { $0.glyphs = glyphs }
        console.press(.character(":"))
        console.type("user 10000013")
        console.press(.enter, .tab)
        for _ in 0..<10 { console.press(.character("j")) }
        try Golden.check(console.frame, named: "users-chart-\(glyphs.rawValue)-120x40")
        #expect(console.text.contains(glyphs == .ascii ? "# paid  - grace period" : "█ paid  ░ grace period"))
    }

    /// The profile's bars are made in update, where the profile, the clock and the pane's width are
    /// known, and kept in the model: the view only draws them (the frames above stay as they were).
    @Test func usersProfileBarsAreMadeInUpdateNotInTheView() throws {
        let console = try ConsoleHarness(size: Size(width: 120, height: 40))
        console.show("user 10000013")
        var users = console.state.screenState(UsersScreen.self)
        let profile = try #require(users.profile)
        let chain = try #require(profile.subscriptions.first?.id)
        // 120 columns: a detail pane of 60, 58 inside its frame, 56 of text, a bar of 54 after its indent
        #expect(users.subscriptionBars.made == .init(owner: "10000013", clock: console.state.clock, width: 54))
        let expected = TimelineBar(
            rows: profile.subscriptions, events: profile.subscriptionEvents, originalTransactionId: chain, clock: console.state.clock,
            width: 54)
        #expect(expected != nil && users.subscriptionBars[chain] == expected)

        // A tick moves the clock: the bars are made again at it
        let later = console.state.clock.adding(.days(20))
        console.runtime.dispatch(.tick(later))
        users = console.state.screenState(UsersScreen.self)
        #expect(users.subscriptionBars.made?.clock == later)
        #expect(
            users.subscriptionBars[chain]
                == TimelineBar(
                    rows: profile.subscriptions, events: profile.subscriptionEvents, originalTransactionId: chain, clock: later, width: 54))

        // A wider terminal of the same height (no list read): the bars are made at the new pane's width
        console.runtime.dispatch(.resize(Size(width: 140, height: 40)))
        users = console.state.screenState(UsersScreen.self)
        #expect(users.subscriptionBars.made?.width == 64)
        #expect(console.text.contains("store clock"))

        // Another player selected: the bars follow the profile that came
        console.show("user 10000001")
        users = console.state.screenState(UsersScreen.self)
        #expect(users.subscriptionBars.made?.owner == "10000001")
    }
}
