import Foundation
import GRDB
import StoreDeskCore
import Testing
@testable import StoreDeskStore
@testable import StoreDeskUI

/// Every list's title says where the selection is and how many rows the list holds ("12 of 40"), kept by
/// the moves themselves; the count comes from the store after the frame, "…" until it does.
@Suite struct ListPositionTests {
    let size = Size(width: 120, height: 30)

    @Test func everyMoveKeepsThePositionWithoutAskingTheStore() throws {
        let console = try ConsoleHarness(size: Size(width: 80, height: 20))
        let visible = console.state.layout.listRows
        #expect(console.state.users.list.positionText() == "1 of 40")
        #expect(console.text.contains("Users · 1 of 40"))
        console.press(.character("j"), .character("j"))
        #expect(console.state.users.list.positionText() == "3 of 40")
        for _ in 0..<visible { console.press(.character("j")) }
        #expect(console.state.users.list.position == 3 + visible)
        #expect(console.state.users.selectedRow?.user.id == String(10_000_000 + 3 + visible))
        console.press(.character("G"))
        #expect(console.state.users.list.positionText() == "40 of 40")
        console.press(.character("k"))
        #expect(console.state.users.list.positionText() == "39 of 40")
        console.press(.pageUp)
        #expect(console.state.users.list.position.map { String(10_000_000 + $0) } == console.state.users.selectedRow?.user.id)
        console.press(.pageUp, .pageUp, .pageUp)
        #expect(console.state.users.list.positionText() == "\(console.state.users.selected + 1) of 40")
        console.press(.character("g"))
        console.press(.pageDown)
        #expect(console.state.users.list.position.map { String(10_000_000 + $0) } == console.state.users.selectedRow?.user.id)
        console.press(.pageDown, .pageDown, .pageDown)
        #expect(console.state.users.list.position.map { String(10_000_000 + $0) } == console.state.users.selectedRow?.user.id)
    }

    @Test func aJumpAsksTheStoreWhereTheRowStands() throws {
        let console = try ConsoleHarness(size: Size(width: 80, height: 20))
        console.show("user 10000012")
        #expect(console.state.users.selectedRow?.user.id == "10000012")
        #expect(console.state.users.list.positionText() == "12 of 40")
        console.show("user 10000039")
        #expect(console.state.users.list.positionText() == "39 of 40")
        console.press(.character("k"))
        #expect(console.state.users.list.positionText() == "38 of 40")
    }

    @Test func theCountComesAfterTheFrameAndAFilterSaysWhichFieldMatched() throws {
        let console = try ConsoleHarness(size: size)
        console.runtime.dispatch(.key(.character("/")), settle: false)
        for c in "张" { console.runtime.dispatch(.key(.character(c)), settle: false) }
        // The page is there; the count is not yet: "…" rather than a wait.
        #expect(console.state.users.list.positionText().hasSuffix("of …"))
        #expect(console.text.contains("of …"))
        while console.runtime.performDeferred() {}
        let direct = try console.database.searchUsers("张", limit: 1000).count
        #expect(direct > 0)
        #expect(console.state.users.list.positionText() == "1 of \(direct)")
        #expect(console.text.contains("MATCHED"))
        console.press(.enter, .character("/"), .ctrl("u"))
        console.type("10000026")
        #expect(console.state.users.list.positionText() == "1 of 1")
        let row = try #require(console.state.users.selectedRow)
        #expect(UserSearch(text: "10000026").matchedFields(row.user) == ["id"])
        let lines = console.text.split(separator: "\n").filter { $0.contains("10000026") }
        #expect(lines.contains { $0.contains(" id") })
    }

    @Test func aPhoneFilterSaysItMatchedTheLastFourOnly() throws {
        let console = try ConsoleHarness(size: Size(width: 200, height: 40))
        let phones = try console.database.reader.read { try String.fetchAll($0, sql: "SELECT phone FROM user WHERE phone != ''") }
        let ids = try console.database.reader.read { try String.fetchAll($0, sql: "SELECT id || ' ' || name || ' ' || friendly_name FROM user") }
        // A number whose last four appear in no id or name: the filter matches on the phone alone.
        let phone = phones.first { phone in !ids.contains { $0.contains(phone.suffix(4)) } } ?? ""
        #expect(phone.count > 4, "a demo player with a phone")
        let lastFour = String(phone.suffix(4))
        console.press(.character("/"))
        console.type(lastFour)
        let matched = console.state.users.rows.filter { $0.user.phone.hasSuffix(lastFour) }
        #expect(!matched.isEmpty, "the filter finds the player by the last four")
        #expect(matched.allSatisfy { UserSearch(text: lastFour).matchedFields($0.user).contains("last four") })
        #expect(console.text.contains(" last four "))
        // The phone itself is never shown to say so.
        let shown = console.text.contains(phone)
        #expect(!shown, "the whole phone is not on screen")
    }

    @Test func everyListTitleCarriesPositionAndCount() throws {
        let console = try ConsoleHarness(size: size, role: .support)
        for screen in ["queue", "restores", "audit", "subscriptions", "codes"] {
            console.show(screen)
            let top = console.text.split(separator: "\n").dropFirst().first { $0.contains("┌") } ?? ""
            #expect(top.contains(" of ") || top.contains(" · 0"), "\(screen): \(top)")
        }
        console.show("audit")
        let entries = try console.database.reader.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM audit_log") ?? 0 }
        if entries > 0 { #expect(console.state.screenState(AuditScreen.self).list.positionText() == "1 of \(entries)") }
    }

    @Test func storeCountsAreBoundedAndSayAtLeastWhenTheyStop() throws {
        let console = try ConsoleHarness(size: size)
        let like: [(String, StatementArguments)] = [("id LIKE ?", ["1000000%"])]
        let found = try console.database.searchUsers("张", limit: 1000).count
        let counts = try console.database.reader.read { db -> [ListCount?] in
            [
                try ListCounting.count(db, from: "user", indexed: [], bound: 10),
                try ListCounting.count(db, from: "user", indexed: [], bound: 100),
                // A test no index answers is made on at most `scanBound` rows: "at least" what those held.
                try ListCounting.count(db, from: "user", indexed: [], scanned: like, scanBound: 20),
                try ListCounting.count(db, from: "user", indexed: [], scanned: like, scanBound: 100),
                try UserSearch(text: "").count(db),
                try UserSearch(text: "张").count(db),
            ]
        }
        #expect(counts == [.atLeast(10), .exact(40), .atLeast(9), .exact(9), .exact(40), .exact(found)])
        let before = try console.database.reader.read { db in
            [try UserSearch(text: "").rowsBefore(db, rowid: 12), try UserSearch(text: "", descending: true).rowsBefore(db, rowid: 12)]
        }
        #expect(before == [11, 28])
        #expect(try console.database.users(matching: UserSearch(text: "1000002")).count() == .exact(10))
        #expect(try console.database.audit(AuditQuery()).count() != nil)
        #expect(try console.database.queue(QueueQuery(text: "zzzz-none")).count() == .exact(0))
        #expect(try console.database.restores(status: nil, text: "zzzz-none").count() == .exact(0))
    }

    @Test func positionTextSaysWhatItKnows() {
        var window = ListWindow<UserRow>()
        #expect(window.positionText() == "0")
        _ = window.countRead(source: { $0.users(matching: UserSearch(text: "")) }, forget: true)
        #expect(window.positionText() == "…")
    }
}
