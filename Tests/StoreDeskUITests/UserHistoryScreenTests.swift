import Foundation
import GRDB
import StoreDeskCore
import StoreDeskStoreAPI
import Testing
@testable import StoreDeskUI

/// `h` on the Users screen: the selected player's history in the detail pane, paged with `>` and `<`.
@Suite struct UserHistoryScreenTests {
    @Test func hShowsTheSelectedPlayersHistoryAndAgainTheProfile() throws {
        let console = try ConsoleHarness(size: Size(width: 120, height: 40))
        console.show("user 10000006")
        console.press(.character("h"))
        try Golden.check(console.frame, named: "users-history-120x40")
        #expect(console.text.contains("History · 10000006 · page 1"))
        console.press(.character("j"))
        #expect(console.text.contains("History · 10000007 · page 1"))
        console.press(.character("h"))
        #expect(!console.text.contains("History ·") && console.text.contains("Profile"))
    }

    @Test func pagesGoOlderAndBackWithoutOverlap() throws {
        let console = try ConsoleHarness(size: Size(width: 120, height: 40))
        try console.outside().write { db in
            for n in 1...70 {
                try db.execute(
                    sql: """
                        INSERT INTO audit_log (at, actor, role, action, subject, detail)
                        VALUES (?, 'li.support', 'support', 'reveal.phone', '10000006', ?)
                        """, arguments: [1_700_000_000_000 + Int64(n) * 1000, "reveal \(n)"])
            }
        }
        console.show("user 10000006")
        console.press(.character("h"))
        let first = try #require(console.state.screenState(UsersScreen.self).history)
        #expect(first.entries.count == UsersScreen.HistoryView.pageSize && first.hasOlder)
        console.press(.character(">"))
        let second = try #require(console.state.screenState(UsersScreen.self).history)
        #expect(second.starts.count == 2 && !second.entries.isEmpty)
        #expect(Set(first.entries).isDisjoint(with: second.entries))
        #expect(HistoryEntry.newerFirst(first.entries.last!, second.entries.first!))
        #expect(console.text.contains("page 2"))
        console.press(.character("<"))
        #expect(console.state.screenState(UsersScreen.self).history?.entries == first.entries)
    }

    /// The history's first page for `user` is shown on Users, that player selected.
    func expectHistoryShown(_ console: ConsoleHarness, of user: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let users = console.state.screenState(UsersScreen.self)
        #expect(console.state.screen == .users, sourceLocation: sourceLocation)
        #expect(users.selectedRow?.user.id == user, sourceLocation: sourceLocation)
        #expect(users.history?.userId == user && users.history?.starts == [nil], sourceLocation: sourceLocation)
        #expect(console.text.contains("History · \(user) · page 1"), sourceLocation: sourceLocation)
    }

    @Test func hOnAFindResultOpensItsPlayersHistory() throws {
        let console = try ConsoleHarness(size: Size(width: 120, height: 40))
        console.show("find 2000000100000093")
        #expect(console.state.screenState(FindScreen.self).selectedResult?.userId == "10000024")
        console.press(.character("h"))
        expectHistoryShown(console, of: "10000024")
        #expect(console.text.contains("transaction 2000000100000093"))
        // Back on Find, another result's player; h on Users then gives the profile again.
        console.show("find apple.zhangwei88")
        console.press(.character("h"))
        expectHistoryShown(console, of: "10000001")
        console.press(.character("h"))
        #expect(console.state.screenState(UsersScreen.self).history == nil && console.text.contains("Profile"))
    }

    @Test func hWithNoResultSaysWhy() throws {
        let console = try ConsoleHarness(size: Size(width: 120, height: 40))
        console.show("find no-such-id")
        console.press(.character("h"))
        #expect(console.state.screen == .find)
        #expect(console.state.status?.text.contains("no result selected") == true)
    }

    @Test func hOnARestorePromptOpensItsPlayersHistory() throws {
        let console = try ConsoleHarness(size: Size(width: 120, height: 40))
        console.show("restores")
        let prompt = try #require(console.state.screenState(RestoresScreen.self).selectedRow)
        console.press(.character("h"))
        expectHistoryShown(console, of: prompt.request.userId)
        #expect(console.state.screenState(UsersScreen.self).history?.entries.contains { $0.kind == .restore } == true)
    }

    /// A subscriber's history draws each subscription's timeline bar under its first line on the page,
    /// where the pane is wide enough, and not at all in a narrow one.
    @Test(arguments: TimelineBar.Glyphs.allCases)
    func subscriptionsInTheHistoryHaveTheirTimelineBar(glyphs: TimelineBar.Glyphs) throws {
        let console = try ConsoleHarness(size: Size(width: 120, height: 40)) { $0.glyphs = glyphs }
        console.show("user 10000005")
        console.press(.character("h"))
        try Golden.check(console.frame, named: "users-history-chart-\(glyphs.rawValue)-120x40")
        let users = console.state.screenState(UsersScreen.self)
        let history = try #require(users.history)
        let profile = try #require(users.profile)
        let chains = Set(history.entries.compactMap(\.originalTransactionId)).intersection(profile.subscriptions.map(\.id))
        #expect(!chains.isEmpty)
        let lines = users.historyLines(history, zone: console.state.timeZone, chart: (56, glyphs))
        let legends = lines.filter { $0.map(\.text).joined().contains("store clock") }
        #expect(legends.count == chains.count)
        #expect(console.text.contains(glyphs == .unicode ? "┃ store clock" : "| store clock"))
        let narrow = users.historyLines(history, zone: console.state.timeZone, chart: (20, glyphs))
        #expect(!narrow.contains { $0.map(\.text).joined().contains("store clock") })
        #expect(narrow.count == history.entries.count * 2)
    }
}
