import Foundation
import GRDB
import StoreDeskCore
import Testing
@testable import StoreDeskSQLite
@testable import StoreDeskUI

/// Every binding in the keymap, pressed on a console over the demo store.
@Suite struct ReducerTests {
    let size = Size(width: 100, height: 30)

    @Test func everyKeyReachesItsBinding() throws {
        let console = try ConsoleHarness(size: size, role: .support)
        for binding in Keymap.all {
            var state = console.state
            state.screen = binding.screen ?? .users
            for key in binding.keys {
                let found = Keymap.binding(for: key, in: state)
                #expect(
                    (found?.command == binding.command && found?.screen == binding.screen && found?.summary == binding.summary)
                        || (binding.command == .goToTab(0)), "\(key.label) → \(found?.summary ?? "nothing")")
            }
        }
    }

    @Test func qAndCtrlCQuit() throws {
        for key in [Key.character("q"), .ctrl("c")] {
            let console = try ConsoleHarness(size: size)
            console.press(key)
            #expect(console.state.quitting)
        }
        // Ctrl-C quits even while typing a filter; q there is just a letter.
        let typing = try ConsoleHarness(size: size)
        typing.press(.character("/"), .character("q"))
        #expect(!typing.state.quitting)
        #expect(typing.state.users.filter == "q")
        typing.press(.ctrl("c"))
        #expect(typing.state.quitting)
    }

    @Test func jkArrowsGTopAndBottomMoveTheSelection() throws {
        let console = try ConsoleHarness(size: size)
        #expect(console.state.users.selectedRow?.user.id == "10000001")
        console.press(.character("j"), .down)
        #expect(console.state.users.selectedRow?.user.id == "10000003")
        console.press(.character("k"))
        #expect(console.state.users.selectedRow?.user.id == "10000002")
        console.press(.up, .up)
        #expect(console.state.users.selectedRow?.user.id == "10000001")
        console.press(.character("G"))
        #expect(console.state.users.selectedRow?.user.id == "10000040")
        console.press(.character("g"))
        #expect(console.state.users.selectedRow?.user.id == "10000001")
        console.press(.end)
        #expect(console.state.users.selectedRow?.user.id == "10000040")
        console.press(.home)
        #expect(console.state.users.selectedRow?.user.id == "10000001")
        #expect(console.state.users.profile?.user.id == "10000001")
    }

    @Test func scrollingPastTheWindowFetchesOneRowAndNeverHoldsMoreThanItShows() throws {
        let console = try ConsoleHarness(size: Size(width: 80, height: 20))
        let visible = console.state.layout.listRows
        #expect(console.state.users.rows.count == visible)
        for _ in 0..<(visible + 3) { console.press(.character("j")) }
        #expect(console.state.users.rows.count == visible)
        #expect(console.state.users.selectedRow?.user.id == String(10_000_001 + visible + 3))
        #expect(console.state.users.selected == visible - 1)
        for _ in 0..<(visible + 3) { console.press(.character("k")) }
        #expect(console.state.users.selectedRow?.user.id == "10000001")
        #expect(console.state.users.rows.count == visible)
    }

    @Test func pageDownAndUpMoveByAWindow() throws {
        let console = try ConsoleHarness(size: Size(width: 80, height: 20))
        let visible = console.state.layout.listRows
        console.press(.pageDown)
        #expect(console.state.users.rows.first?.user.id == String(10_000_001 + visible))
        console.press(.ctrl("f"), .ctrl("f"), .ctrl("f"))
        #expect(console.state.users.rows.last?.user.id == "10000040")
        #expect(console.state.users.rows.count == visible)
        console.press(.pageUp, .ctrl("b"), .ctrl("b"), .ctrl("b"), .ctrl("b"))
        #expect(console.state.users.rows.first?.user.id == "10000001")
    }

    @Test func slashFiltersAsYouTypeEnterKeepsEscClears() throws {
        let console = try ConsoleHarness(size: size)
        console.press(.character("/"))
        console.type("张")
        #expect(console.state.users.rows.map(\.user.name).allSatisfy { $0.contains("张") } || console.state.users.rows.contains { $0.user.friendlyName.contains("张") })
        console.type("伟")
        #expect(console.state.users.rows.map(\.user.id) == ["10000001"])
        console.press(.enter)
        #expect(console.state.mode == .normal)
        #expect(console.state.users.filter == "张伟")
        console.press(.character("/"), .backspace)
        #expect(console.state.users.filter == "张")
        console.press(.escape)
        #expect(console.state.users.filter == "张伟")
        console.press(.character("/"), .escape)
        #expect(console.state.users.filter == "")
        #expect(console.state.users.rows.count == console.state.layout.listRows)
    }

    @Test func filterMatchesTheLastFourPhoneDigitsAndIds() throws {
        let console = try ConsoleHarness(size: size)
        console.press(.character("/"))
        console.type("zzzz-nobody")
        #expect(console.state.users.rows.isEmpty)
        #expect(console.text.contains("no user matches"))
        console.press(.ctrl("u"))
        console.type("10000026")
        #expect(console.state.users.rows.map(\.user.id) == ["10000026"])
    }

    /// A short filter scans the table in slices: the keystroke is answered with what the first slice
    /// found, the rest arrives between keys, and typing on drops the unfinished scan.
    @Test func aShortFilterScansInSlicesBetweenKeys() throws {
        let console = try ConsoleHarness(size: size) { state in
            state.users.scanSlice = 10
            state.users.scanBudget = 0
        }
        console.runtime.dispatch(.key(.character("/")), settle: false)
        console.runtime.dispatch(.key(.character("a")), settle: false)
        #expect(console.state.users.scanProgress != nil)
        #expect(console.text.contains("searching"))
        var turns = 0
        while console.runtime.performDeferred() { turns += 1 }
        #expect(turns >= 3)
        #expect(console.state.users.scanProgress == nil)
        let all = console.state.users.rows.map(\.user.id)
        let direct = try console.database.searchUsers("a", limit: 100).map(\.id)
        #expect(all == Array(direct.prefix(console.state.layout.listRows)))
        #expect(!all.isEmpty)
        // A new key mid-scan starts over; the old scan's turns are dropped.
        console.runtime.dispatch(.key(.character("x")), settle: false)
        console.runtime.dispatch(.key(.backspace), settle: false)
        console.runtime.dispatch(.key(.backspace), settle: false)
        while console.runtime.performDeferred() {}
        #expect(console.state.users.filter == "")
        #expect(console.state.users.rows.first?.user.id == "10000001")
    }

    @Test func escBacksOutOfEverythingTransient() throws {
        let console = try ConsoleHarness(size: size)
        console.press(.character("?"))
        #expect(console.state.mode == .help(scroll: 0))
        console.press(.escape)
        #expect(console.state.mode == .normal)
        console.press(.character(":"), .escape)
        #expect(console.state.mode == .normal)
        console.press(.enter)
        #expect(console.state.focus == .detail)
        console.press(.escape)
        #expect(console.state.focus == .list)
    }

    @Test func tabAndShiftTabSwitchPanesAndTheDetailScrolls() throws {
        let console = try ConsoleHarness(size: size)
        console.press(.tab)
        #expect(console.state.focus == .detail)
        console.press(.character("j"), .character("j"))
        #expect(console.state.users.detailScroll == 2)
        #expect(console.state.users.selectedRow?.user.id == "10000001")
        console.press(.backTab)
        #expect(console.state.focus == .list)
    }

    @Test func numberKeysAndBracketsSwitchScreens() throws {
        let console = try ConsoleHarness(size: size)
        console.press(.character("1"))
        #expect(console.state.screen == .users)
        console.press(.character("]"))
        #expect(console.state.screen == ScreenID.allCases[1 % ScreenID.allCases.count])
        console.press(.character("["))
        #expect(console.state.screen == .users)
        console.press(.character("9"))
        #expect(console.state.screen == .find)
    }

    @Test func helpScrollsAndCloses() throws {
        let console = try ConsoleHarness(size: size)
        console.press(.character("?"), .character("j"), .down)
        #expect(console.state.mode == .help(scroll: 2))
        console.press(.character("k"))
        #expect(console.state.mode == .help(scroll: 1))
        console.press(.character("?"))
        #expect(console.state.mode == .normal)
    }

    @Test func commandLineCompletesAndRuns() throws {
        let console = try ConsoleHarness(size: size)
        console.press(.character(":"))
        console.type("th")
        console.press(.tab)
        #expect(console.state.mode == .command(text: "theme "))
        console.type("li")
        console.press(.tab)
        #expect(console.state.mode == .command(text: "theme light"))
        console.press(.enter)
        #expect(console.state.themeName == "light")
        #expect(console.runtime.theme.name == "light")
        console.press(.character(":"))
        console.type("theme nope")
        console.press(.enter)
        #expect(console.state.status?.kind == .error)
        #expect(console.state.status?.text.contains("no such theme") == true)
        console.press(.character(":"))
        console.type("frobnicate")
        console.press(.enter)
        #expect(console.state.status?.text == "unknown command ':frobnicate' (try tab for completions)")
        console.press(.character(":"))
        console.type("q")
        console.press(.enter)
        #expect(console.state.quitting)
    }

    /// One clock: the header says it is the store's, and when another process moves the store's clock on
    /// (an import), every view follows it, never back.
    @Test func theConsoleAnswersAtTheStoresClockAndFollowsItOn() throws {
        let console = try ConsoleHarness(size: Size(width: 120, height: 40))
        let opened = console.state.clock
        #expect(console.text.contains("store clock 2026-11-20 08:00:00"))
        func setStoreClock(_ instant: Instant) throws {
            try console.outside().write { db in
                try db.execute(sql: "UPDATE store_meta SET value = ? WHERE key = 'clock'", arguments: [String(instant.millis)])
            }
            console.runtime.dispatch(.storeChanged)
        }
        try setStoreClock(opened.adding(.days(3)))
        #expect(console.state.clock == opened.adding(.days(3)))
        #expect(console.text.contains("store clock 2026-11-23 08:00:00"))
        try setStoreClock(opened)
        #expect(console.state.clock == opened.adding(.days(3)))
    }

    @Test func theConsoleClockRunsOnFromTheStoresAndCatchesUpNeverBack() {
        let store = Instant(millis: 1_800_000_000_000), wall = Instant(millis: 1_900_000_000_000)
        var clock = ConsoleClock(storeClock: store, wall: wall)
        #expect(clock.source == .store && clock.now(wall: wall) == store)
        #expect(clock.now(wall: wall.adding(.seconds(5))) == store.adding(.seconds(5)))
        clock.catchUp(to: store.adding(.days(1)), wall: wall.adding(.seconds(5)))
        #expect(clock.now(wall: wall.adding(.seconds(6))) == store.adding(.days(1)).adding(.seconds(1)))
        clock.catchUp(to: store, wall: wall.adding(.seconds(7)))
        #expect(clock.now(wall: wall.adding(.seconds(7))) == store.adding(.days(1)).adding(.seconds(2)))
        let bare = ConsoleClock(storeClock: nil, wall: wall)
        #expect(bare.source == .wall && bare.now(wall: wall) == wall && bare.source.label == "wall clock")
    }

    @Test func ctrlRRefetchesAndKeepsTheSelectionOnTheSameRow() throws {
        let console = try ConsoleHarness(size: size)
        console.press(.character("j"), .character("j"))
        try console.outside().write { db in
            try db.execute(sql: "UPDATE user SET friendly_name = '改名了' WHERE id = '10000003'")
        }
        console.press(.ctrl("r"))
        #expect(console.state.users.selectedRow?.user.id == "10000003")
        #expect(console.state.users.selectedRow?.user.friendlyName == "改名了")
    }

    @Test func aStoreChangeKeepsTheSelectionOnItsRowEvenWhenRowsAreAddedAbove() throws {
        let console = try ConsoleHarness(size: size)
        console.press(.character("j"), .character("j"), .character("j"))
        try console.outside().write { db in
            try db.execute(sql: "DELETE FROM user_search WHERE 0")
            try db.execute(sql: "UPDATE user SET name = '新名字' WHERE id = '10000002'")
        }
        console.runtime.dispatch(.storeChanged)
        #expect(console.state.users.selectedRow?.user.id == "10000004")
        #expect(console.state.users.rows.contains { $0.user.name == "新名字" })
    }

    @Test func revealPhoneIsForSupportOnlyAndAudited() throws {
        let operatorConsole = try ConsoleHarness(size: size, role: .operator)
        operatorConsole.press(.character("p"))
        #expect(operatorConsole.state.status?.text == "reveal: revealing a phone number needs the support role")
        #expect(!operatorConsole.text.contains("13800000000"))

        let support = try ConsoleHarness(size: size, role: .support)
        #expect(support.text.contains("138****0000"))
        support.press(.character("p"))
        // A reveal asks why first, and shows nothing until a reason is given.
        guard case .prompt(let ask) = support.state.mode else { Issue.record("no reason asked"); return }
        #expect(ask.label.hasPrefix("reveal the phone of 10000001"), "\(ask.label)")
        #expect(!support.text.contains("13800000000"))
        support.type("ticket #8812: caller verification")
        support.press(.enter)
        #expect(support.text.contains("13800000000"))
        let audit = try support.outside().read {
            try AuditEntry.fetchOne($0, sql: "SELECT * FROM audit_log WHERE action = 'reveal.phone' ORDER BY id DESC")
        }
        #expect(audit?.subject == "user 10000001")
        #expect(audit?.detail == "phone revealed on the Users screen: ticket #8812: caller verification")
        #expect(audit?.actor == "tester")
        #expect(audit?.role == "support")
    }

    @Test func readOnlyRegistersNoWriteActionAndHelpSaysWhy() throws {
        let console = try ConsoleHarness(size: size, role: .support, readOnly: true)
        #expect(Keymap.binding(for: .character("p"), in: console.state) == nil)
        console.press(.character("p"))
        #expect(!console.text.contains("13800000000"))
        #expect(console.text.contains(" RO"))
        console.press(.character("?"))
        #expect(console.text.contains("unavailable: the store is open read-only"))
    }

    @Test func resizingBelowTheMinimumAndBackRedraws() throws {
        let console = try ConsoleHarness(size: size)
        console.runtime.dispatch(.resize(Size(width: 40, height: 10)))
        #expect(console.text.contains("terminal too small"))
        console.press(.character("j"))
        #expect(console.state.users.selectedRow?.user.id == "10000001")
        console.runtime.dispatch(.resize(Size(width: 120, height: 40)))
        #expect(console.state.users.rows.count == console.state.layout.listRows)
        #expect(console.text.contains("Profile"))
        console.runtime.dispatch(.resize(Size(width: 40, height: 10)))
        console.press(.character("q"))
        #expect(console.state.quitting)
    }
}
