import Foundation
import Testing
@testable import StoreDeskUI

@Suite struct GoldenFrameTests {
    @Test(arguments: [Size(width: 80, height: 24), Size(width: 120, height: 40)])
    func usersScreen(size: Size) throws {
        let console = try ConsoleHarness(size: size)
        try Golden.check(console.frame, named: "users-\(size)")
    }

    @Test func usersScreenFilteredByAChineseName() throws {
        let console = try ConsoleHarness(size: Size(width: 80, height: 24))
        console.press(.character("/"))
        console.type("王")
        try Golden.check(console.frame, named: "users-filter-wang-80x24")
    }

    @Test func usersScreenReadOnlyWithAUserSelected() throws {
        let console = try ConsoleHarness(size: Size(width: 120, height: 40), readOnly: true)
        console.press(.character(":"))
        console.type("user 10000026")
        console.press(.enter)
        try Golden.check(console.frame, named: "users-readonly-selected-120x40")
    }

    /// Names with every kind of cluster: the border stays in the last column on every row.
    @Test func usersScreenWithEmojiSequencesFlagsSkinTonesAndCombiningMarks() throws {
        let console = try ConsoleHarness(size: Size(width: 120, height: 40))
        let names = [
            "10000001": "张伟🇨🇳", "10000002": "芳芳👍🏽", "10000003": "Zoe\u{301} Ngu\u{31B}\u{303}yễn", "10000004": "爱❤️你",
            "10000005": "彩虹🏳️‍🌈", "10000006": "一家👨‍👩‍👧‍👦", "10000007": "码农👩🏽‍💻", "10000008": "No 1️⃣ 한국어",
        ]
        try console.outside().write { db in
            for (id, name) in names { try db.execute(sql: "UPDATE user SET friendly_name = ? WHERE id = ?", arguments: [name, id]) }
        }
        console.press(.ctrl("r"))
        try Golden.check(console.frame, named: "users-clusters-120x40")
        let lines = console.text.split(separator: "\n")
        #expect(lines[2].columns == 120 && lines[37].columns == 120)
        for line in lines[3..<37] {
            #expect(line.columns == 120 && line.hasSuffix("│"), "\(line)")
        }
    }

    @Test func helpOverlay() throws {
        let console = try ConsoleHarness(size: Size(width: 80, height: 24))
        console.press(.character("?"))
        try Golden.check(console.frame, named: "help-80x24")
    }

    @Test(arguments: [Size(width: 40, height: 10), Size(width: 59, height: 30), Size(width: 100, height: 14)])
    func tooSmall(size: Size) throws {
        let console = try ConsoleHarness(size: size)
        try Golden.check(console.frame, named: "too-small-\(size)")
        let joined = console.text.replacingOccurrences(of: "\n", with: " ")
        #expect(joined.contains("terminal too small: need 60x15, have \(size)"))
    }

    @Test(arguments: [Size(width: 80, height: 24), Size(width: 120, height: 40)])
    func queueScreen(size: Size) throws {
        let console = try ConsoleHarness(size: size)
        console.press(.character("2"))
        try Golden.check(console.frame, named: "queue-\(size)")
    }

    /// A simulation run from the console under a controlled clock: the same frame every time.
    @Test func queueScreenWithASimulationAndARejectedCallback() throws {
        let console = try ConsoleHarness(size: Size(width: 120, height: 40), role: .developer)
        console.press(.character("2"), .character("r"), .character("x"))
        console.type("tamperedSign:1")
        console.press(.enter)
        var now = console.state.clock
        for _ in 0..<25 {
            now = now.adding(.init(millis: 100))
            console.runtime.dispatch(.tick(now))
        }
        console.press(.character(" "), .character("s"), .character("s"), .enter)
        try Golden.check(console.frame, named: "queue-simulation-callback-120x40")
        #expect(console.text.contains("bad_signature"))
    }

    /// A player's subscriptions in the Users detail pane: state badges, dates, offers, access and the
    /// notifications under Apple's names.
    @Test(arguments: [("10000005", Size(width: 120, height: 40)), ("10000006", Size(width: 80, height: 24))])
    func usersScreenWithSubscriptions(user: String, size: Size) throws {
        let console = try ConsoleHarness(size: size)
        console.press(.character(":"))
        console.type("user " + user)
        console.press(.enter, .tab)
        if size.height < 30 { for _ in 0..<13 { console.press(.character("j")) } }
        try Golden.check(console.frame, named: "users-subscriptions-\(user)-\(size)")
    }

    @Test(arguments: [Size(width: 80, height: 24), Size(width: 120, height: 40)])
    func subscriptionsScreen(size: Size) throws {
        let console = try ConsoleHarness(size: size)
        console.show("subscriptions")
        try Golden.check(console.frame, named: "subscriptions-\(size)")
    }

    /// Grace period only, the second row selected, then the same screen a day later: its grace is over.
    @Test func subscriptionsScreenInGraceAsTheClockMoves() throws {
        let console = try ConsoleHarness(size: Size(width: 120, height: 40))
        console.show("subscriptions")
        console.press(.character("s"), .character("s"), .character("j"))
        try Golden.check(console.frame, named: "subscriptions-grace-120x40")
        console.press(.character("s"), .character("j"))
        console.runtime.dispatch(.tick(console.state.clock.adding(.days(1))))
        try Golden.check(console.frame, named: "subscriptions-retry-a-day-later-120x40")
    }

    @Test func codesScreenSearched() throws {
        let console = try ConsoleHarness(size: Size(width: 100, height: 30))
        console.show("codes")
        console.press(.character("/"))
        console.type("offer")
        console.press(.enter, .character("j"), .character("j"))
        try Golden.check(console.frame, named: "codes-offer-100x30")
    }
}
