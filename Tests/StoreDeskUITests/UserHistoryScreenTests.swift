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
}
