import Foundation
import StoreDeskCore
import Testing
@testable import StoreDeskSQLite
@testable import StoreDeskUI

/// `:find` in the console over the demo store: the results list, and Enter opening each where it lives.
@Suite struct FindScreenTests {
    let size = Size(width: 120, height: 40)

    func find(_ console: ConsoleHarness, _ text: String) {
        console.press(.character(":"))
        console.type("find " + text)
        console.press(.enter)
    }

    @Test func anOrderIdFromATicketOpensItsTransactionInTheQueue() throws {
        let console = try ConsoleHarness(size: size)
        find(console, "2000000100000093")
        #expect(console.state.screen == .find)
        let screen = console.state.screenState(FindScreen.self)
        #expect(screen.results.map(\.kind) == [.transaction, .restorePrompt])
        #expect(console.text.contains("Find · “2000000100000093” · 1 of 2"))
        console.press(.enter)
        #expect(console.state.screen == .queue)
        #expect(console.state.screenState(QueueScreen.self).detail?.transaction.id == "2000000100000093")
        // The restore prompt on it opens on Restores.
        console.show("find")
        console.press(.character("j"), .enter)
        #expect(console.state.screen == .restores)
        #expect(console.text.contains("Restores · all 1 of 1 · “2000000100000093”"))
    }

    @Test func aNotificationOpensItsSubscription() throws {
        let console = try ConsoleHarness(size: size)
        find(console, "f435876c")
        #expect(console.state.screenState(FindScreen.self).results.first?.kind == .notification)
        console.press(.enter)
        #expect(console.state.screen == .subscriptions)
        #expect(console.text.contains("Subscriptions · 1 of 1 · filter “2000000100000201”"))
    }

    @Test func anAppleIdOpensItsPlayerOnUsers() throws {
        let console = try ConsoleHarness(size: size)
        find(console, "apple.zhangwei88")
        #expect(console.state.screenState(FindScreen.self).results.count == 2)
        console.press(.character("j"))
        #expect(console.state.screenState(FindScreen.self).selected == 1)
        console.press(.enter)
        #expect(console.state.screen == .users)
        #expect(console.state.screenState(UsersScreen.self).selectedRow?.user.id == "10000001")
    }

    @Test func nothingFoundSaysSoAndTheScreenKeepsItsQuery() throws {
        let console = try ConsoleHarness(size: size)
        find(console, "no-such-id")
        #expect(console.text.contains("nothing matches “no-such-id”"))
        // `:find` alone is the screen's name: it shows the Find screen as it was left.
        console.show("users")
        console.show("find")
        #expect(console.state.screen == .find && console.state.screenState(FindScreen.self).query == "no-such-id")
    }

    @Test func aFilterOnUsersThatMatchesNoPlayerFindsTheIdAnywhereOnEnter() throws {
        let console = try ConsoleHarness(size: size)
        console.press(.character("/"))
        console.type("2611120001")
        #expect(console.state.screen == .users && console.state.users.rows.isEmpty)
        #expect(console.text.contains("enter finds it as any id (:find)"))
        console.press(.enter)
        #expect(console.state.screen == .find)
        let found = console.state.screenState(FindScreen.self).results
        #expect(found.first?.kind == .order && found.first?.transactionId == "2000000100000088")
        // Its transaction is finished, so not in the Queue: enter opens its player's history, which lists it.
        #expect(console.text.contains("enter opens 10000001's history on Users"))
        console.press(.enter)
        #expect(console.state.screen == .users)
        let users = console.state.screenState(UsersScreen.self)
        #expect(users.selectedRow?.user.id == "10000001")
        #expect(users.history?.userId == "10000001")
        #expect(users.history?.entries.contains { $0.transactionId == "2000000100000088" } == true)
        #expect(console.text.contains("2000000100000088"))
        // A filter that matches players stays on Users.
        console.show("users")
        console.press(.character("/"))
        console.press(.ctrl("u"))
        console.type("张伟")
        console.press(.enter)
        #expect(console.state.screen == .users)
    }

    @Test func theFindScreenGolden() throws {
        let console = try ConsoleHarness(size: size)
        find(console, "张伟")
        try Golden.check(console.frame, named: "find-name-120x40")
    }

    /// At 80x24 the list keeps the id the ticket gave whole, and what kind of thing it found, in words,
    /// before the field, the player.
    @Test func aNarrowFindListKeepsTheFoundIdWhole() throws {
        let console = try ConsoleHarness(size: Size(width: 80, height: 24))
        find(console, "2611120001")
        let rows = console.frame.plainText.split(separator: "\n").map(String.init)
        #expect(rows[3].contains("KIND") && rows[3].contains("FOUND") && !rows[3].contains("FIELD"), "\(rows[3])")
        #expect(rows[4].contains("order ") && rows[4].contains("2611120001 "), "\(rows[4])")
        #expect(rows[3].contains("order, its order id (exact)"), "\(rows[3])")
        try Golden.check(console.frame, named: "find-order-80x24")
    }

    /// One transaction id finds the transaction and the restore prompt on it: at 80x24 the two rows differ
    /// by their kind (they looked the same when KIND was the first column dropped), and at 200x60 no kind
    /// or field is cut.
    @Test func oneIdsTwoKindsStayApartAtEverySize() throws {
        let narrow = try ConsoleHarness(size: Size(width: 80, height: 24))
        find(narrow, "2000000100000093")
        let rows = narrow.frame.plainText.split(separator: "\n").map(String.init)
        #expect(rows[4].contains("│ transaction  2000000100000093 "), "\(rows[4])")
        #expect(rows[5].contains("│ restore      2000000100000093 "), "\(rows[5])")
        let wide = try ConsoleHarness(size: Size(width: 200, height: 60))
        find(wide, "2000000100000093")
        let text = wide.frame.plainText
        #expect(text.contains("restore      transaction id  2000000100000093"), "\(text)")
        #expect(!text.contains("…  "), "\(text)")
    }

    /// At 80x24 a ticket's order, opened from Find, shows in its player's history with its ids whole: on a
    /// line of their own when they do not fit beside the date and kind, the detail wrapped, nothing cut.
    @Test func aNarrowHistoryShowsEveryIdWhole() throws {
        let console = try ConsoleHarness(size: Size(width: 80, height: 24))
        find(console, "2611120001")
        console.press(.enter)
        let history = try #require(console.state.screenState(UsersScreen.self).history)
        let frame = console.frame.plainText
        #expect(frame.contains("History · 10000001"))
        let pane = frame.split(separator: "\n").dropFirst(3).map { String($0.split(separator: "│").last ?? "") }
        #expect(!pane.contains { $0.contains("…") }, "\(pane.joined(separator: "\n"))")
        let shown = history.entries.prefix(3).compactMap(\.transactionId)
        #expect(!shown.isEmpty)
        for id in shown { #expect(frame.contains("transaction " + id), "transaction \(id) not whole") }
    }
}
