import Foundation
import GRDB
import StoreDeskCore
import Testing

@testable import StoreDeskSQLite

/// `queueActivity`: the Queue's sparklines bucketed in SQL over `transaction_event_activity` (v17).
@Suite struct QueueActivityTests {
    static let start = Instant(millis: 1_800_000_000_000)

    /// A seeded store (players, transactions with their orders, subscriptions) that then ran a minute of
    /// the payment simulation with every fault.
    static func simulatedStore(_ folder: TemporaryFolder) throws -> AppDatabase {
        let path = folder.path("seeded.sqlite")
        let demo = try Fixtures.demo()
        _ = try SyntheticSeeder.seed(path: path, users: 300, seed: 7, catalogue: demo.catalogue, clock: demo.meta.clock, replacing: false)
        let store = try AppDatabase.open(path: path, access: .readWrite)
        let catalogue = try store.paymentCatalogue()
        var simulation = PaymentSimulation(
            PaymentSimulation.Configuration(
                seconds: 60, rate: 10, seed: 42, faults: PaymentQueueStoreTests.allFaults, start: start,
                accounts: catalogue.accounts, apps: catalogue.apps, products: catalogue.products, run: 1, idPrefix: "sim"))
        try simulation.run { try store.apply($0) }
        return store
    }

    /// The same figures counted in Swift from every event of the window, read plainly.
    static func counted(_ store: AppDatabase, _ window: QueueActivity.Window) throws -> QueueActivity {
        var expected = QueueActivity(window: window)
        try store.reader.read { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT e.at, e.kind, o.created_at FROM transaction_event e
                    LEFT JOIN payment_order o ON o.transaction_id = e.transaction_id
                    """)
            for row in rows {
                let at = Instant(millis: row["at"]), kind = PaymentEvent.Kind(rawValue: row["kind"])
                guard let kind, let index = window.index(of: at) else { continue }
                expected.add(1, of: kind, bucket: index)
                if QueueActivity.replyKinds.contains(kind), let created: Int64 = row["created_at"] {
                    expected.reply(after: Int(at.millis - created), bucket: index)
                }
            }
        }
        return expected
    }

    @Test("a seeded store after a minute of simulation: the buckets are the events counted one by one")
    func bucketsMatchTheEventsCountedOneByOne() throws {
        let folder = TemporaryFolder()
        let store = try Self.simulatedStore(folder)
        let window = QueueActivity.Window.ending(at: Self.start.adding(.seconds(59)), bucket: .seconds(5), count: 12)
        let activity = try store.queueActivity(window)
        #expect(activity == (try Self.counted(store, window)))
        #expect(activity.purchases.reduce(0, +) > 300 && activity.grants.reduce(0, +) > 100)
        #expect(activity.failures.reduce(0, +) > 0 && activity.latencyMillis.contains { $0 >= 200 })
        // A window before anything happened is empty; one across the start holds only what followed it.
        let before = QueueActivity.Window.ending(at: Self.start.adding(.seconds(-10)), bucket: .seconds(5), count: 12)
        #expect(try store.queueActivity(before) == QueueActivity(window: before))
        let across = QueueActivity.Window.ending(at: Self.start.adding(.seconds(10)), bucket: .seconds(5), count: 6)
        #expect(try store.queueActivity(across) == (try Self.counted(store, across)))
        #expect(try store.queueActivity(across).purchases.prefix(3) == [0, 0, 0])
    }

    @Test func bothStatementsSeekTheActivityIndexByTime() throws {
        let store = try PaymentQueueStoreTests.demoStore()
        let statements = [
            "SELECT (at - 0) / 5000 AS bucket, kind, COUNT(*) FROM transaction_event WHERE \(QueueProcedures.activityKinds) AND at >= 0 AND at < 60000 GROUP BY bucket, kind",
            """
            SELECT (e.at - 0) / 5000 AS bucket, MAX(e.at - o.created_at) FROM transaction_event e
            JOIN payment_order o ON o.transaction_id = e.transaction_id
            WHERE e.\(QueueProcedures.activityKinds) AND e.kind IN ('callback_accepted') AND e.at >= 0 AND e.at < 60000 GROUP BY bucket
            """,
        ]
        for sql in statements {
            let plan = try store.reader.read { db in
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql).map { $0["detail"] as String }
            }
            #expect(!plan.contains { $0.hasPrefix("SCAN") }, "\(plan)")
            #expect(plan.contains { $0.contains("transaction_event_activity (at>? AND at<?)") }, "\(plan)")
        }
    }

    /// The partial index's condition is written out (a shipped migration is never edited): it must name
    /// exactly the kinds the activity reads.
    @Test func theIndexNamesExactlyTheKindsTheActivityReads() {
        let named = QueueProcedures.activityKinds.split(separator: "'").enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
        #expect(named == QueueActivity.kinds.map(\.rawValue))
    }
}
