import Foundation
import GRDB
import StoreDeskCore
import Testing
@testable import StoreDeskSQLite
@testable import StoreDeskUI

/// `:sort COLUMN [asc|desc]`, `o` and `O`: a list sorted by a column the store seeks on, either way,
/// paged by the same engine, kept per screen for the session; any other column refused by name.
@Suite struct ListSortTests {
    let size = Size(width: 120, height: 20)

    /// Every user id as the console walks the list with `j` from the top.
    func walk(_ console: ConsoleHarness) -> [String] {
        console.press(.character("g"))
        var ids: [String] = []
        for _ in 0..<45 {
            if let id = console.state.users.selectedRow?.user.id, ids.last != id { ids.append(id) }
            console.press(.character("j"))
        }
        return ids
    }

    func ordered(_ console: ConsoleHarness, _ sql: String) throws -> [String] {
        try console.database.reader.read { try String.fetchAll($0, sql: sql) }
    }

    @Test func eachSortableColumnEitherWayPagesLikeTheStoresOrder() throws {
        let console = try ConsoleHarness(size: size)
        console.show("sort name")
        #expect(console.state.users.sort == ListSort("name"))
        #expect(console.state.status?.text == "users sorted by name ↑")
        // NAME as the list shows it: the friendly name, else the login name (not the login name alone).
        let shown = "CASE WHEN friendly_name = '' THEN name ELSE friendly_name END"
        #expect(walk(console) == (try ordered(console, "SELECT id FROM user ORDER BY \(shown), rowid")))
        #expect(console.state.users.list.positionText() == "40 of 40")
        console.press(.character("O"))
        #expect(console.state.users.sort == ListSort("name", descending: true))
        #expect(walk(console) == (try ordered(console, "SELECT id FROM user ORDER BY \(shown) DESC, rowid DESC")))
        // CREATED as the list shows it (10000009, created 2025-01-06, comes before 10000001, created 2025-03-02).
        console.show("sort created")
        let created = try ordered(console, "SELECT id FROM user ORDER BY created_at, rowid")
        #expect(walk(console) == created)
        #expect(try #require(created.firstIndex(of: "10000009")) < (try #require(created.firstIndex(of: "10000001"))))
        console.show("sort added desc")
        #expect(walk(console) == (try ordered(console, "SELECT id FROM user ORDER BY rowid DESC")))
        console.press(.character("G"), .pageUp)
        #expect(console.state.users.list.position.map { 41 - $0 } == console.state.users.selectedRow.map { Int($0.user.id)! - 10_000_000 })
        console.press(.character("o"), .character("o"))
        #expect(console.state.users.sort == ListSort("id"))
        #expect(console.text.contains("id ↑"))
        #expect(walk(console) == (try ordered(console, "SELECT id FROM user ORDER BY id")))
        console.press(.character("o"))
        #expect(console.state.users.sort == ListSort("name"))
    }

    @Test func otherColumnsAndFilteredListsAreRefusedWithTheReason() throws {
        let console = try ConsoleHarness(size: size)
        console.show("sort type")
        #expect(console.state.status?.text == "cannot sort by type: the store seeks only on added, created, id, name")
        console.show("sort name sideways")
        #expect(console.state.status?.text == ":sort name sideways: the direction is asc or desc")
        console.show("sort")
        #expect(console.state.status?.text.hasPrefix(":sort needs a column") == true)
        #expect(console.state.users.sort == ListSort("added"))
        console.press(.character("/"))
        console.type("张")
        console.press(.enter)
        console.press(.character("o"))
        #expect(console.state.status?.text.contains("a filtered list is in the order its players came into the store") == true)
        console.show("sort name")
        #expect(console.state.status?.text.contains("a filtered list is in the order its players came into the store") == true)
        #expect(console.state.users.sort == ListSort("added"))
    }

    @Test func theSortIsKeptPerScreenForTheSessionAndCompletes() throws {
        let console = try ConsoleHarness(size: size)
        console.show("sort id desc")
        let first = console.state.users.selectedRow?.user.id
        console.show("audit")
        console.show("users")
        #expect(console.state.users.sort == ListSort("id", descending: true))
        #expect(console.state.users.selectedRow?.user.id == first)
        #expect(ConsoleCommandLine.completions(for: "sort n", state: console.state) == ["sort name", "sort name asc", "sort name desc"])
        #expect(ConsoleCommandLine.completions(for: "sort id d", state: console.state) == ["sort id desc"])
    }

    @Test func sortedPagesSeekOnAnIndex() throws {
        let console = try ConsoleHarness(size: size)
        for order in UserOrder.allCases {
            guard let column = order.keySQL else { continue }
            let plan = try console.database.reader.read { db in
                try Row.fetchAll(
                    db, sql: "EXPLAIN QUERY PLAN SELECT rowid, * FROM user WHERE (\(column), rowid) > (?, ?) ORDER BY \(column), rowid LIMIT 20",
                    arguments: [order == .created ? 5.databaseValue : "m".databaseValue, 5]
                ).map { $0["detail"] as String? ?? "" }
            }
            #expect(!plan.joined().contains("SCAN user") || plan.joined().contains("USING INDEX"), "\(column): \(plan)")
            #expect(!plan.joined().contains("TEMP B-TREE"), "\(column): \(plan)")
        }
    }

    @Test func theAuditLogAndTheQueueRunEitherWayEachKeepingItsOwn() throws {
        let console = try ConsoleHarness(size: size)
        console.show("sort name desc")
        console.show("audit")
        let newest = try ordered(console, "SELECT CAST(id AS TEXT) FROM audit_log ORDER BY id DESC")
        #expect(console.state.screenState(AuditScreen.self).list.rows.compactMap(\.id).map(String.init) == Array(newest.prefix(console.state.screenState(AuditScreen.self).list.rows.count)))
        console.press(.character("O"))
        #expect(console.state.status?.text == "audit log sorted by when ↑")
        #expect(console.state.screenState(AuditScreen.self).list.rows.compactMap(\.id).map(String.init) == Array(newest.reversed().prefix(console.state.screenState(AuditScreen.self).list.rows.count)))
        #expect(console.text.contains("Audit · 1 of \(newest.count) · when ↑"))
        console.show("queue")
        console.show("sort when")
        #expect(console.state.status?.text == "cannot sort by when: the store seeks only on purchased")
        console.show("sort purchased asc")
        let oldest = try ordered(console, "SELECT id FROM store_transaction WHERE finished = 0 ORDER BY purchase_date, id")
        #expect(console.state.screenState(QueueScreen.self).rows.map(\.id) == Array(oldest.prefix(console.state.screenState(QueueScreen.self).rows.count)))
        #expect(ConsoleCommandLine.completions(for: "sort p", state: console.state) == ["sort purchased", "sort purchased asc", "sort purchased desc"])
        // Each screen keeps its own.
        console.show("users")
        #expect(console.state.users.sort == ListSort("name", descending: true))
        console.show("audit")
        #expect(console.state.screenState(AuditScreen.self).sort == ListSort("when"))
    }

    @Test func aListVerbOnAScreenWithoutItSaysWhereItWorks() throws {
        let console = try ConsoleHarness(size: size)
        console.show("codes")
        console.show("sort created")
        #expect(console.state.screen == .codes)
        #expect(console.state.status?.text == ":sort works on Users, Queue, Restores, Audit, Subscriptions, not on Codes")
        console.show("export csv /tmp/never.csv")
        #expect(console.state.status?.text == ":export works on Users, Queue, Restores, Audit, Subscriptions, not on Codes")
        #expect(!FileManager.default.fileExists(atPath: "/tmp/never.csv"))
    }

    /// The transaction ids of the Restores list as the console walks it with `j` from the top.
    func walkRestores(_ console: ConsoleHarness) -> [String] {
        console.press(.character("g"))
        var ids: [String] = []
        for _ in 0..<12 {
            if let id = console.state.screenState(RestoresScreen.self).selectedRow?.request.transactionId, ids.last != id { ids.append(id) }
            console.press(.character("j"))
        }
        return ids
    }

    @Test func restoresSortByPromptedPlayerOrTransactionEitherWay() throws {
        let console = try ConsoleHarness(size: Size(width: 120, height: 15), role: .support)
        console.show("restores")
        console.show("status all")
        #expect(walkRestores(console) == (try ordered(console, "SELECT transaction_id FROM restore_request ORDER BY created_at, id")))
        console.show("sort player")
        #expect(console.state.status?.text == "restore prompts sorted by player ↑")
        #expect(console.text.contains("Restores · all 1 of 5 · player ↑"))
        #expect(walkRestores(console) == (try ordered(console, "SELECT transaction_id FROM restore_request ORDER BY user_id, id")))
        #expect(console.text.contains("Restores · all 5 of 5 · player ↑"))
        console.press(.character("O"))
        #expect(console.state.screenState(RestoresScreen.self).sort == ListSort("player", descending: true))
        #expect(walkRestores(console) == (try ordered(console, "SELECT transaction_id FROM restore_request ORDER BY user_id DESC, id DESC")))
        // `o` steps to the next column, from its first direction; the status filter keeps the order.
        console.press(.character("o"))
        #expect(console.state.screenState(RestoresScreen.self).sort == ListSort("transaction"))
        console.show("status open")
        #expect(console.text.contains("Restores · open 1 of 3 · transaction ↑"))
        #expect(walkRestores(console) == (try ordered(console, "SELECT transaction_id FROM restore_request WHERE status = 'open' ORDER BY transaction_id")))
        console.show("sort prompted desc")
        #expect(walkRestores(console) == (try ordered(console, "SELECT transaction_id FROM restore_request WHERE status = 'open' ORDER BY created_at DESC, id DESC")))
        // Bad input: one line naming the columns; the order stays.
        console.show("sort age")
        #expect(console.state.status?.text == "cannot sort by age: the store seeks only on prompted, player, transaction")
        #expect(console.state.screenState(RestoresScreen.self).sort == ListSort("prompted", descending: true))
        #expect(ConsoleCommandLine.completions(for: "sort pl", state: console.state) == ["sort player", "sort player asc", "sort player desc"])
        // Kept for the session, beside the other screens' own.
        console.show("users")
        console.show("restores")
        #expect(console.state.screenState(RestoresScreen.self).sort == ListSort("prompted", descending: true))
        #expect(console.state.users.sort == ListSort("added"))
    }

    @Test func subscriptionsSortByTheirEndEitherWayWithinEachState() throws {
        let console = try ConsoleHarness(size: Size(width: 120, height: 15))
        console.show("subscriptions")
        func walk() -> [String] {
            console.press(.character("g"))
            var ids: [String] = []
            for _ in 0..<30 {
                if let id = console.state.screenState(SubscriptionsScreen.self).selectedRow?.id, ids.last != id { ids.append(id) }
                console.press(.character("j"))
            }
            return ids
        }
        let clock = console.state.clock
        let ascending = walk()
        #expect(ascending.count == 20)
        console.press(.character("O"))
        #expect(console.state.status?.text == "subscriptions sorted by ends ↓")
        #expect(console.text.contains("Subscriptions · 1 of 20 · ends ↓"))
        let descending = walk()
        #expect(Set(descending) == Set(ascending))
        // The states keep their order; inside each, the latest end first: each group reversed.
        let rows = try console.database.subscriptions(SubscriptionSearch(instant: clock), from: .first, limit: 100)
        let state = Dictionary(uniqueKeysWithValues: rows.map { ($0.id, $0.cursor(at: clock).state) })
        for group in SubscriptionSearch.order {
            #expect(descending.filter { state[$0] == group } == ascending.filter { state[$0] == group }.reversed(), "\(group)")
        }
        #expect(descending.map { SubscriptionSearch.order.firstIndex(of: state[$0]!)! } == ascending.map { SubscriptionSearch.order.firstIndex(of: state[$0]!)! })
        console.show("sort player")
        #expect(console.state.status?.text == "cannot sort by player: the store seeks only on ends")
        console.show("sort ends asc")
        #expect(walk() == ascending)
    }
}
