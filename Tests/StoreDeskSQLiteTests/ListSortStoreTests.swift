import Foundation
import GRDB
import StoreDeskCore
import StoreDeskStoreAPI
import Testing

@testable import StoreDeskSQLite

/// The Restores and Subscriptions lists sorted by each column the store seeks on, either way: a keyset
/// walk forward a row at a time and backward a page at a time gives the rows SQL's ORDER BY gives, and
/// no page needs a sort of its own (no TEMP B-TREE) or OFFSET.
@Suite struct ListSortStoreTests {
    /// Every row of `pager`: forward from the first, `step` rows a read.
    func forward<P: ListPager>(_ pager: P, step: Int) throws -> [P.Row] {
        var rows = try pager.first(limit: step)
        while let last = rows.last {
            let next = try pager.page(after: last, limit: step)
            guard !next.isEmpty else { break }
            rows += next
        }
        return rows
    }

    /// Every row of `pager`: backward from the last, `step` rows a read.
    func backward<P: ListPager>(_ pager: P, step: Int) throws -> [P.Row] {
        var rows = try pager.last(limit: step)
        while let first = rows.first {
            let previous = try pager.page(before: first, limit: step)
            guard !previous.isEmpty else { break }
            rows = previous + rows
        }
        return rows
    }

    /// A demo store with more prompts than the demo's five: every dropped order of the players logged in.
    static func storeWithPrompts() throws -> AppDatabase {
        let store = try PaymentQueueStoreTests.demoStore()
        let players = try store.reader.read {
            try String.fetchAll($0, sql: "SELECT DISTINCT user_id FROM store_transaction WHERE state = 'purchased' AND finished = 0")
        }
        let clock = try #require(try store.clock())
        for player in players { _ = try store.recordLogin(userId: player, at: clock) }
        return store
    }

    @Test func restoresPageByEachOrderEitherWayAsSQLOrdersThem() throws {
        let store = try Self.storeWithPrompts()
        let total = try store.reader.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM restore_request") ?? 0 }
        #expect(total >= 5)
        let keys: [RestoreOrder: String] = [.prompted: "created_at, id", .player: "user_id, id", .transaction: "transaction_id"]
        for order in RestoreOrder.allCases {
            for descending in [false, true] {
                for status in [nil, RestoreStatus.open] {
                    let query = RestoreQuery(status: status, order: order, descending: descending)
                    let direction = descending ? " DESC" : ""
                    let orderBy = keys[order]!.split(separator: ", ").map { $0 + direction }.joined(separator: ", ")
                    let expected = try store.reader.read {
                        try String.fetchAll(
                            $0, sql: "SELECT transaction_id FROM restore_request \(status == nil ? "" : "WHERE status = 'open'") ORDER BY \(orderBy)")
                    }
                    let pager = RestorePager(database: store, query: query)
                    let label = "\(order) \(descending ? "desc" : "asc") \(status?.rawValue ?? "all")"
                    #expect(try forward(pager, step: 1).map(\.request.transactionId) == expected, "\(label) forward")
                    #expect(try backward(pager, step: 2).map(\.request.transactionId) == expected, "\(label) backward")
                    // A row found by its id stands where the order puts it.
                    if expected.count > 2, let id = try pager.first(limit: 3).last?.id {
                        #expect(try pager.around(id: id, limit: 2)?.map(\.request.transactionId) == Array(expected[2...3]), "\(label)")
                    }
                    // The order the screen keeps a resolved prompt in agrees with the store's.
                    let rows = try forward(pager, step: 50)
                    for (a, b) in zip(rows, rows.dropFirst()) { #expect(query.precedes(a.cursor, b.cursor), "\(label)") }
                }
            }
        }
    }

    @Test func restoreSortsSeekOnAnIndex() throws {
        let store = try AppDatabase.inMemory()
        for order in RestoreOrder.allCases {
            for descending in [false, true] {
                for status in [nil, RestoreStatus.open] {
                    let query = RestoreQuery(status: status, order: order, descending: descending)
                    let rows = try RestorePager(database: store, query: query).first(limit: 1)
                    #expect(rows.isEmpty)
                    let cursor = RestoreCursor(createdAt: Instant(millis: 0), userId: "u", transactionId: "t", id: 1)
                    let (sql, arguments) = SQLiteTransaction.condition(ListProcedures.restoreStatement(query, anchor: .after(cursor), limit: 20).sql)
                    let plan = try store.reader.read { db in
                        try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: arguments).map { $0["detail"] as String }
                    }
                    let label = "\(order) \(descending) \(status?.rawValue ?? "all"): \(plan)"
                    #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "\(label)")
                    #expect(!plan.contains { $0.hasPrefix("SCAN r") && !$0.contains("INDEX") }, "\(label)")
                }
            }
        }
    }

    @Test func subscriptionsRunByEndEitherWayWithinTheirStates() throws {
        let (store, demo) = try SubscriptionImportTests.demoStore()
        let clock = demo.meta.clock
        for state in [nil, SubscriptionState.active] {
            let ascending = try forward(SubscriptionPager(database: store, search: SubscriptionSearch(state: state, instant: clock)), step: 3)
            let search = SubscriptionSearch(state: state, instant: clock, descending: true)
            let pager = SubscriptionPager(database: store, search: search)
            let descending = try forward(pager, step: 1)
            #expect(descending.count > 3)
            #expect(Set(descending.map(\.id)) == Set(ascending.map(\.id)))
            #expect(try backward(pager, step: 2) == descending)
            // The states keep their order; inside each the latest end comes first (the end the ENDS column
            // shows: in grace period the grace period's).
            let states = descending.map { $0.cursor(at: clock).state }
            let ranks = states.map { SubscriptionSearch.order.firstIndex(of: $0) ?? -1 }
            #expect(ranks == ranks.sorted())
            for group in Set(states) {
                let rows = descending.filter { $0.cursor(at: clock).state == group }
                let keys = rows.map { ($0.cursor(at: clock).expires, $0.subscription.id) }
                #expect(zip(keys, keys.dropFirst()).allSatisfy { $0 > $1 }, "\(group)")
                #expect(rows.map(\.id) == ascending.filter { $0.cursor(at: clock).state == group }.map(\.id).reversed())
            }
            let middle = descending[2]
            #expect(try pager.page(from: middle, limit: 2) == Array(descending[2...3]))
            #expect(try pager.around(id: middle.id, limit: 2) == Array(descending[2...3]))
        }
    }
}
