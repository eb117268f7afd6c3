import Foundation
import StoreDeskCore
import Testing
@testable import StoreDeskUI

/// Every screen at the smallest size, a common one and a wide one: golden frames, and what must hold
/// at every size (the current tab whole, `? help` in the footer, wide lists that use the room).
@Suite struct EverySizeGoldenTests {
    static let screens = ["users", "queue", "restores", "audit", "subscriptions", "codes", "login", "onetap"]

    @Test(arguments: [Size(width: 60, height: 20), Size(width: 80, height: 24), Size(width: 200, height: 60)])
    func everyScreen(size: Size) throws {
        let console = try ConsoleHarness(size: size)
        for (index, screen) in Self.screens.enumerated() {
            console.press(.character(Character("\(index + 1)")))
            try Golden.check(console.frame, named: "size-\(screen)-\(size)")
            let rows = console.text.split(separator: "\n", omittingEmptySubsequences: false)
            // The current tab whole; at 80 columns by its short title, so that every tab has a name.
            let title = "\(index + 1) \(size.width == 80 ? console.state.screen.shortTitle : console.state.screen.title)"
            #expect(rows[1].contains(title), "\(screen) at \(size): \(rows[1])")
            if size.width == 80 {
                for (i, id) in ScreenID.allCases.enumerated() { #expect(rows[1].contains("\(i + 1) \(id.shortTitle)"), "\(screen) at \(size): \(rows[1])") }
            }
            #expect(rows[size.height - 2].contains("? help"), "\(screen) at \(size): \(rows[size.height - 2])")
            for row in rows.prefix(size.height) { #expect(row.columns <= size.width) }
        }
    }

    @Test func wideTerminalsWidenListsAndGainColumns() throws {
        let narrow = try ConsoleHarness(size: Size(width: 80, height: 24))
        let wide = try ConsoleHarness(size: Size(width: 200, height: 60))
        for console in [narrow, wide] { console.press(.character("2")) }
        let header = { (console: ConsoleHarness) in
            // Below the header's two lines and the sparklines' two.
            String(console.text.split(separator: "\n")[7].split(separator: "│")[0])
        }
        // The Queue keeps the ids a ticket gives at 80x24, and shows far more at 200x60.
        #expect(header(narrow).contains("TRANSACTION") && header(narrow).contains("USER"))
        for title in ["TRANSACTION", "USER", "STATE", "AGE", "PRODUCT", "PURCHASED"] { #expect(header(wide).contains(title), "\(header(wide))") }
        #expect(wide.text.split(separator: "\n")[6].hasPrefix("┌─ Queue ") && wide.text.split(separator: "\n")[6].split(separator: "┐")[0].count >= 99)
        // At 200 columns the list takes all but the detail pane's 80, so nothing of the
        // demo store is cut: the Queue's products and accounts, Subscriptions' names, Users' login names.
        #expect(wide.state.layout[.list].width == 120 && wide.state.layout[.detail].width == 80)
        #expect(wide.text.contains("dragonatlas.codex ×1") && wide.text.contains("s2/r10000021-1") && !wide.text.contains("dragonatlas.co…"))
        wide.press(.character("5"))
        #expect(wide.text.contains("Morning✨端木晨曦の旅团长") && !wide.text.contains("…  10000040"), "\(wide.text)")
        wide.press(.character("1"))
        #expect(wide.text.contains("Maximilian Alexander Richter-Wong") && wide.text.contains("星海征途第一剑客·欧阳娜娜大人"))
        // A line with room to spare ends a space short of the border.
        #expect(!wide.text.contains("not verified││"), "\(wide.text)")
        // Login keeps half: its detail pane is the panel's preview.
        wide.press(.character("7"))
        #expect(wide.state.layout[.list].width == 100)
        // Restores keeps its transaction id at 80x24.
        narrow.press(.character("3"))
        #expect(narrow.text.split(separator: "\n")[3].contains("TRANSACTION"))
        #expect(narrow.text.contains("2000000100000093"))
    }

    @Test func theTabBarShowsTheCurrentTabAt60Columns() throws {
        let console = try ConsoleHarness(size: Size(width: 60, height: 20))
        for (key, title) in [("7", "7 Login"), ("8", "8 One-tap"), ("1", "1 Users"), ("5", "5 Subscriptions")] {
            console.press(.character(Character(key)))
            #expect(console.text.split(separator: "\n")[1].contains(title), "\(console.text.split(separator: "\n")[1])")
        }
    }
}

/// The Subscriptions list and its detail say what they mean in words.
@Suite struct SubscriptionsInWordsTests {
    func listLines(_ console: ConsoleHarness) -> [Substring] {
        console.text.split(separator: "\n").filter { $0.hasPrefix("│ ● ") }
    }

    @Test func theStateBarNamesEveryStateWithItsCountAndTheTitleFollowsTheState() throws {
        let console = try ConsoleHarness(size: Size(width: 120, height: 40))
        console.show("subscriptions")
        var lines = console.text.split(separator: "\n")
        #expect(lines[2].contains("Subscriptions · 1 of 20 "))
        for label in ["all 20", "active 9", "grace 2", "retry 1", "expired 5", "refunded 3"] { #expect(lines[3].contains(label), "\(lines[3])") }
        console.press(.character("s"), .character("s"))
        lines = console.text.split(separator: "\n")
        #expect(lines[2].contains("Subscriptions · grace 1 of 2 "), "\(lines[2])")
        // Narrow: short names with their counts, never bullets alone.
        let narrow = try ConsoleHarness(size: Size(width: 80, height: 24))
        narrow.show("subscriptions")
        let bar = narrow.text.split(separator: "\n")[3]
        #expect(bar.contains("all 20") && bar.contains("act 9") && !bar.contains("●"), "\(bar)")
    }

    @Test func graceRowsShowTheGraceEndAndRefundedRowsTheirRefund() throws {
        let console = try ConsoleHarness(size: Size(width: 120, height: 40))
        console.show("subscriptions")
        let today = console.state.clock.dayText(in: TimeZone(identifier: "UTC")!)
        let header = console.text.split(separator: "\n")[4]
        #expect(header.contains("ENDS") && !header.contains("EXPIRES"))
        let rows = listLines(console)
        let grace = rows.filter { $0.hasPrefix("│ ● grace") }, refunded = rows.filter { $0.hasPrefix("│ ● refunded") }
        #expect(grace.count == 2 && refunded.count == 3, "\(rows)")
        func date(_ row: Substring) -> String { String(row.dropFirst(13).prefix(10)) }
        for row in grace { #expect(date(row) >= today, "\(row)") }
        for row in refunded { #expect(date(row) <= today, "\(row)") }
    }

    @Test func detailsSayStatesInWords() throws {
        let console = try ConsoleHarness(size: Size(width: 120, height: 40))
        console.show("subscriptions")
        for _ in 0..<20 {
            let text = console.text
            #expect(!text.contains("status 1") && !text.contains("status 4") && !text.contains("Timeline: none"), "\(text)")
            console.press(.character("j"))
        }
        console.show("user 10000006")
        #expect(!console.text.contains("status 4"))
    }
}
