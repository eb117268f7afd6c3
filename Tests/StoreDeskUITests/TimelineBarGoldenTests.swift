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
}
