import Foundation
import GRDB
import StoreDeskCore
import Testing

@testable import StoreDeskSQLite

@Suite struct SubscriptionSearchTests {
    /// Instants around the demo clock where the demo's subscriptions change state.
    static func instants(_ clock: Instant) -> [Instant] {
        [-200, -120, -60, -20, -5, -1, 0, 1, 2, 5, 7, 10, 15, 30, 45, 60, 75, 100, 400].map { clock.adding(.days($0)) }
    }

    @Test func theSQLStateOfEveryRowIsTheStateCoreComputes() throws {
        let (store, demo) = try SubscriptionImportTests.demoStore()
        let rows = try store.reader.read { try Subscription.fetchAll($0) }
        for instant in Self.instants(demo.meta.clock) {
            let search = SubscriptionSearch(instant: instant)
            let listed = try store.reader.read { db in
                try SubscriptionSearch.order.flatMap { state in
                    try SubscriptionSearch(state: state, instant: instant).page(db, from: .first, limit: 1000).map {
                        ($0.subscription.id, state)
                    }
                }
            }
            let expected = rows.compactMap { row in row.info(at: instant).map { (row.id, $0.state) } }
            #expect(
                Dictionary(uniqueKeysWithValues: listed) == Dictionary(uniqueKeysWithValues: expected),
                "at \(instant.iso8601)")
            #expect(listed.count == Set(listed.map(\.0)).count, "a row listed twice at \(instant.iso8601)")
            let counts = try store.reader.read { try search.counts($0) }
            #expect(counts.values.reduce(0, +) == expected.count)
        }
    }

    @Test func pagesByKeysetGiveTheWholeListInOrder() throws {
        let (store, demo) = try SubscriptionImportTests.demoStore()
        let search = SubscriptionSearch(instant: demo.meta.clock)
        try store.reader.read { db in
            let all = try search.page(db, from: .first, limit: 1000)
            #expect(all.count > 15)
            // Grouped by state in the list's order, soonest expiry first inside a group.
            let states = all.map { $0.cursor(at: demo.meta.clock).state }
            let ranks = states.map { SubscriptionSearch.order.firstIndex(of: $0) ?? -1 }
            #expect(ranks == ranks.sorted())
            var forward: [SubscriptionListRow] = []
            var anchor = SubscriptionSearch.Anchor.first
            while true {
                let page = try search.page(db, from: anchor, limit: 4)
                guard let last = page.last else { break }
                forward += page
                anchor = .after(last.cursor(at: demo.meta.clock))
            }
            #expect(forward == all)
            var backward: [SubscriptionListRow] = []
            anchor = .last
            while true {
                let page = try search.page(db, from: anchor, limit: 3)
                guard let first = page.first else { break }
                backward = page + backward
                anchor = .before(first.cursor(at: demo.meta.clock))
            }
            #expect(backward == all)
            let middle = all[7].cursor(at: demo.meta.clock)
            #expect(try search.page(db, from: .from(middle), limit: 2) == Array(all[7...8]))
        }
    }

    @Test func filtersByStateAndText() throws {
        let (store, demo) = try SubscriptionImportTests.demoStore()
        try store.reader.read { db in
            let grace = try SubscriptionSearch(state: .gracePeriod, instant: demo.meta.clock).page(db, from: .first, limit: 50)
            #expect(grace.map(\.subscription.userId).sorted() == ["10000013", "10000019"])
            // In the order of the date the ENDS column shows, the grace period's end (emma_pro's ends on
            // the 21st, Jay's on the 26th, though Jay's failed period ended first), both ways.
            let ends = grace.map { $0.subscription.info(at: demo.meta.clock)?.gracePeriodExpiresDate }
            #expect(ends == ends.sorted { ($0?.millis ?? 0) < ($1?.millis ?? 0) })
            #expect(grace.map(\.userName) == ["emma_pro", "Jay 黄"])
            let latestFirst = try SubscriptionSearch(state: .gracePeriod, instant: demo.meta.clock, descending: true).page(db, from: .first, limit: 50)
            #expect(latestFirst.map(\.userName) == ["Jay 黄", "emma_pro"])
            let paged = try SubscriptionSearch(state: .gracePeriod, instant: demo.meta.clock).page(db, from: .after(grace[0].cursor(at: demo.meta.clock)), limit: 5)
            #expect(paged.map(\.userName) == ["Jay 黄"])
            // A day later one grace period has run out: billing retry.
            let later = SubscriptionSearch(state: .gracePeriod, instant: demo.meta.clock.adding(.days(1)))
            #expect(try later.page(db, from: .first, limit: 50).map(\.subscription.userId) == ["10000013"])
            let text = SubscriptionSearch(text: "pocketgarden", instant: demo.meta.clock)
            let counts = try text.counts(db)
            #expect(try text.page(db, from: .first, limit: 50).allSatisfy { $0.subscription.productId.contains("pocketgarden") })
            #expect(counts[.revoked] == 1)
            #expect(try SubscriptionSearch(text: "10000008", instant: demo.meta.clock).page(db, from: .first, limit: 9).count == 1)
            #expect(try SubscriptionSearch(text: "50%_", instant: demo.meta.clock).page(db, from: .first, limit: 9).isEmpty)
        }
    }

    @Test func everyStateGroupIsReadThroughAnIndex() throws {
        let store = try AppDatabase.inMemory()
        for state in SubscriptionSearch.order {
            let search = SubscriptionSearch(state: state, instant: Instant(millis: 1_790_000_000_000))
            let sql = "SELECT s.original_transaction_id FROM subscription s WHERE " + search.condition(state)
                + " ORDER BY s.expires_date, s.original_transaction_id LIMIT 30"
            let plan = try store.reader.read { db in
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql).map { $0["detail"] as String }
            }
            #expect(plan.allSatisfy { !$0.hasPrefix("SCAN") }, "\(state): \(plan)")
        }
    }
}
