import Foundation
import GRDB
import StoreDeskCore
import Testing
@testable import StoreDeskSQLite
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

    /// A list that fit whole on a tall terminal, refreshed (the store changed), then shown shorter: the
    /// title still says the first row is the first, not "24 of 40" (a page made up from above counted
    /// itself from the bottom).
    @Test func aWholeListRefreshedThenShownShorterKeepsItsPlace() throws {
        let console = try ConsoleHarness(size: Size(width: 200, height: 60))
        console.runtime.dispatch(.storeChanged)
        #expect(console.state.users.list.positionText() == "1 of 40")
        console.press(.character("4"))
        console.runtime.dispatch(.resize(Size(width: 80, height: 24)))
        console.press(.character("1"))
        #expect(console.state.users.list.positionText() == "1 of 40")
        #expect(console.text.contains("Users · 1 of 40"))
        console.press(.character("G"))
        console.runtime.dispatch(.storeChanged)
        #expect(console.state.users.list.positionText() == "40 of 40")
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

    /// Every list with a text filter says which field each row matched, only while the filter is on, with
    /// the list's count and place in the title.
    @Test func everyFilteredListSaysWhichFieldMatched() throws {
        let console = try ConsoleHarness(size: Size(width: 160, height: 30), role: .support)
        func filter(_ text: String) {
            console.press(.character("/"), .ctrl("u"))
            console.type(text)
            console.press(.enter)
        }
        /// The list pane's lines (the left half), after the frame's top.
        func lines() -> [String] {
            console.text.split(separator: "\n").map { String($0.prefix(console.state.layout[.list].width)) }
        }
        func line(holding id: String) -> String { lines().first { $0.contains(id) } ?? "" }

        console.show("queue")
        #expect(!console.text.contains("MATCHED"))
        filter("PASS")
        let queue = console.state.screenState(QueueScreen.self)
        #expect(!queue.rows.isEmpty && queue.rows.allSatisfy { $0.productId.contains("pass") })
        #expect(console.text.contains("MATCHED"))
        for row in queue.rows { #expect(line(holding: row.id).contains(" product"), "\(row.id)") }
        #expect(console.text.contains("Queue · 1 of \(queue.rows.count) · filter “PASS”"))
        // A filter that names its field (`state:`) needs no column.
        filter("state:purchased")
        #expect(!console.text.contains("MATCHED"))
        filter("")
        #expect(!console.text.contains("MATCHED"))

        console.show("restores")
        console.show("status all")
        let player = try #require(console.state.screenState(RestoresScreen.self).list.rows.first?.request.userId)
        filter(player)
        let restores = console.state.screenState(RestoresScreen.self)
        #expect(restores.list.rows.allSatisfy { $0.request.userId == player || $0.request.transactionId.contains(player) })
        for row in restores.list.rows {
            let expected: [String] = (row.request.transactionId.contains(player) ? ["transaction"] : []) + (row.request.userId == player ? ["player"] : [])
            #expect(RestoresScreen.columns(showing: nil, filter: player, now: console.state.clock, zone: .gmt).contains { $0.title == "MATCHED" })
            #expect(line(holding: row.request.transactionId).contains(" " + expected.joined(separator: ", ") + " "), "\(row.request.transactionId)")
        }
        #expect(console.text.contains("Restores · all 1 of \(restores.list.rows.count) · “\(player)”"))
        // As the store compares it: as typed, so another case matches nothing.
        filter("STORE")
        #expect(console.state.screenState(RestoresScreen.self).list.rows.isEmpty)
        filter("store")
        #expect(console.state.screenState(RestoresScreen.self).list.rows.allSatisfy { line(holding: $0.request.transactionId).contains(" product ") })
        filter("")
        #expect(!console.text.contains("MATCHED"))

        console.show("audit")
        filter("action:restore")
        #expect(!console.text.contains("MATCHED"))
        filter("RESTORE.CONFIRM")
        let audit = console.state.screenState(AuditScreen.self)
        #expect(!audit.list.rows.isEmpty)
        #expect(console.text.contains("MATCHED"))
        for entry in audit.list.rows where entry.action == "restore.confirm" {
            #expect(line(holding: entry.at.shortText(in: .gmt)).contains("action"))
        }
        filter("")

        console.show("subscriptions")
        filter("POCKETGARDEN")
        let subscriptions = console.state.screenState(SubscriptionsScreen.self)
        #expect(!subscriptions.rows.isEmpty && subscriptions.rows.allSatisfy { $0.subscription.productId.contains("pocketgarden") })
        #expect(console.text.contains("MATCHED"))
        for row in subscriptions.rows { #expect(line(holding: row.subscription.userId).contains(" product "), "\(row.id)") }
        #expect(console.text.contains("Subscriptions · 1 of \(subscriptions.rows.count) · filter “POCKETGARDEN”"))
        console.press(.character("O"))
        #expect(console.text.contains("Subscriptions · 1 of \(subscriptions.rows.count) · ends ↓ · filter “POCKETGARDEN”"))
        filter("")

        console.show("codes")
        filter("13")
        let codes = console.state.screenState(CodesScreen.self)
        #expect(codes.rows.contains { $0.code == "13" })
        #expect(CodesScreen.columns(filter: "13").contains { $0.title == "MATCHED" })
        #expect(lines().contains { $0.contains("    13 ") && $0.contains(" code") })
    }

    /// MATCHED folds the filter once, not once a row: the same names for any case of it.
    @Test func matchedFieldsCompareAsTheStoreDoes() {
        var folded = MatchedFields<(id: String, user: String)>()
        folded.contains("transaction", "AbC", ignoringCase: true) { $0.id }
        folded.contains("user", "AbC", ignoringCase: true) { $0.user }
        #expect(folded.names((id: "xabcx", user: "ABC")) == ["transaction", "user"])
        #expect(folded.names((id: "xyz", user: "y")) == [])
        var typed = MatchedFields<String>()
        typed.contains("id", "Ab") { $0 }
        typed.contains("id", "b") { $0 }
        typed.equals("code", "7") { $0 }
        #expect(typed.names("xAb") == ["id"])
        #expect(typed.names("xab") == ["id"])
        #expect(typed.names("7") == ["code"])
        var none = MatchedFields<String>()
        none.contains("id", "") { $0 }
        none.contains("id", nil) { $0 }
        #expect(none.isEmpty && none.column(priority: 3).isEmpty)
        #expect(typed.column(priority: 3).map(\.title) == ["MATCHED"])
        var search = UserSearch(text: "ZHANG")
        let user = User(
            id: "1", name: "zhang.wei", friendlyName: "", idCard: "", phone: "", site: .qq, adultType: .unverified, fcm: false,
            authorizState: 0, safety: 0, clientId: "", createdAt: Instant(millis: 0))
        #expect(search.matchedFields(user) == ["name"])
        search.text = "WEI"
        #expect(search.matchedFields(user) == ["name"])
        search.text = "li"
        #expect(search.matchedFields(user) == [])
    }

    @Test func storeCountsAreBoundedAndSayAtLeastWhenTheyStop() throws {
        let console = try ConsoleHarness(size: size)
        let like: [StoreSQL] = ["id LIKE \("1000000%")"]
        let found = try console.database.searchUsers("张", limit: 1000).count
        let counts = try console.database.reader.read { db -> [ListCount?] in
            let db = console.database.procedures(db)
            return [
                try ListProcedures.count(db, from: "user", indexed: [], bound: 10),
                try ListProcedures.count(db, from: "user", indexed: [], bound: 100),
                // A test no index answers is made on at most `scanBound` rows: "at least" what those held.
                try ListProcedures.count(db, from: "user", indexed: [], scanned: like, scanBound: 20),
                try ListProcedures.count(db, from: "user", indexed: [], scanned: like, scanBound: 100),
                try UserSearch(text: "").count(db),
                try UserSearch(text: "张").count(db),
            ]
        }
        #expect(counts == [.atLeast(10), .exact(40), .atLeast(9), .exact(9), .exact(40), .exact(found)])
        // A user's place in the list is its place in the list's order (CREATED, then the sequence), either way.
        let all = try console.database.users(matching: UserSearch(text: "")).first(limit: 100)
        let twelfth = try #require(all.first { $0.sequence == 12 })
        let place = try #require(all.firstIndex(of: twelfth))
        let before = try console.database.reader.read { db in
            [try UserSearch(text: "").rowsBefore(db, row: twelfth), try UserSearch(text: "", descending: true).rowsBefore(db, row: twelfth)]
        }
        #expect(before == [place, all.count - 1 - place])
        #expect(try console.database.users(matching: UserSearch(text: "1000002")).count() == .exact(10))
        #expect(try console.database.audit(AuditQuery()).count() != nil)
        #expect(try console.database.queue(QueueQuery(text: "zzzz-none")).count() == .exact(0))
        #expect(try console.database.restores(RestoreQuery(text: "zzzz-none")).count() == .exact(0))
    }

    @Test func positionTextSaysWhatItKnows() {
        var window = ListWindow<UserRow>()
        #expect(window.positionText() == "0")
        _ = window.countRead(source: { $0.users(matching: UserSearch(text: "")) }, forget: true)
        #expect(window.positionText() == "…")
    }

    /// A read out, or one that failed (a team store's server gone), leaves an empty window saying "…", not
    /// "0": nothing says the list is empty until a page says so.
    @Test func anEmptyWindowWhoseReadFailedIsNotAnEmptyList() throws {
        let console = try ConsoleHarness(size: size)
        var window = ListWindow<UserRow>()
        let source: ListWindow<UserRow>.Source = { $0.users(matching: UserSearch(text: "zzzz-none")) }
        let failed = window.reload(pageSize: 10, source: source)
        #expect(window.positionText() == "…")
        // Its answer never comes (the read threw); the next read's does, and it is empty.
        _ = failed
        let read = window.reload(pageSize: 10, source: source)
        #expect(window.show(try read(console.database)) != nil)
        #expect(window.positionText() == "0")
    }
}
