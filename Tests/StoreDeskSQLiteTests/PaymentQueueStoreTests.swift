import Foundation
import GRDB
import StoreDeskCore
import Testing

@testable import StoreDeskSQLite

@Suite struct PaymentQueueStoreTests {
    static let allFaults: [PaymentFault] = [
        .clientCrash(probability: 0.1), .networkDrop(probability: 0.2), .duplicateCallback(probability: 0.2),
        .tamperedSign(probability: 0.1), .tamperedField(probability: 0.1), .askToBuy(probability: 0.1),
        .failedPayment(probability: 0.1), .serverDown(seconds: 10),
    ]

    static func demoStore() throws -> AppDatabase {
        let store = try AppDatabase.inMemory()
        let demo = try Fixtures.demo()
        try store.write { try DemoDatasetLoader.insert(demo, into: $0) }
        return store
    }

    static func simulation(_ store: AppDatabase, faults: [PaymentFault] = allFaults, seconds: Int = 60) throws
        -> PaymentSimulation
    {
        let catalogue = try store.paymentCatalogue()
        return PaymentSimulation(
            PaymentSimulation.Configuration(
                seconds: seconds, rate: 10, seed: 42, faults: faults, start: Instant(millis: 1_800_000_000_000),
                accounts: catalogue.accounts, apps: catalogue.apps, products: catalogue.products, run: 1, idPrefix: "sim"))
    }

    /// The orders of the run-1 simulation's transactions (`sim1-T…`), for `order_id IN (…)`.
    static let simulatedOrders = "(SELECT order_id FROM payment_order WHERE transaction_id LIKE 'sim1-%')"

    static func count(_ store: AppDatabase, _ from: String) throws -> Int {
        try store.reader.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM " + from) ?? -1 }
    }

    @Test func aSimulationWithEveryFaultLeavesACleanStore() throws {
        // Given the demo store
        let store = try Self.demoStore()
        // When a simulation with every fault runs against it
        var simulation = try Self.simulation(store)
        try simulation.run { try store.apply($0) }
        // Then every invariant holds and the rows match the summary
        #expect(try store.check() == [])
        let summary = simulation.summary
        #expect(summary.grants > 100 && summary.callbacksRejected > 0 && summary.callbacksDuplicate > 0)
        #expect(summary.droppedOrders > 0)
        #expect(try Self.count(store, "item_grant WHERE order_id IN " + Self.simulatedOrders) == summary.grants)
        // The store adds one event for each restore prompt a player's login opened.
        #expect(try Self.count(store, "transaction_event WHERE kind != 'restore_prompted'") == summary.events)
        let demoOpen = try Fixtures.demo().restoreRequests.filter { $0.status == .open }.count
        #expect(
            try Self.count(store, "transaction_event WHERE kind = 'restore_prompted'")
                == Self.count(store, "restore_request WHERE status = 'open'") - demoOpen)
        #expect(try Self.count(store, "server_callback WHERE verdict = 'duplicate'") == summary.callbacksDuplicate)
        #expect(try Self.count(store, "store_transaction WHERE id LIKE 'sim1-%' AND finished = 1") == summary.finished)
        let timeline = try store.events(transactionId: "sim1-T1").map(\.kind)
        #expect(timeline.first == .purchasing || timeline.first == .requestRefused)
    }

    @Test func appliedRowsReadBackAsTheEngineMadeThem() throws {
        // Given a short run's changes
        let store = try Self.demoStore()
        var simulation = try Self.simulation(store, seconds: 20)
        let changes = simulation.runCollecting()
        // When they are applied
        for change in changes { try store.apply(change) }
        // Then each row reads back equal through the records
        var transactions: [String: StoreTransaction] = [:]
        var orders: [String: PaymentOrder] = [:]
        for change in changes {
            if let t = change.transaction { transactions[t.id] = t }
            if let o = change.order { orders[o.id] = o }
        }
        let stored = try store.reader.read { db in
            try StoreTransaction.fetchAll(db, sql: "SELECT * FROM store_transaction WHERE id LIKE 'sim1-%'")
        }
        #expect(Dictionary(uniqueKeysWithValues: stored.map { ($0.id, $0) }) == transactions)
        let storedOrders = try store.reader.read { db in
            try PaymentOrder.fetchAll(db, sql: "SELECT * FROM payment_order WHERE transaction_id LIKE 'sim1-%'")
        }
        #expect(Dictionary(uniqueKeysWithValues: storedOrders.map { ($0.id, $0) }) == orders)
        let grants = try store.reader.read { db in
            try Grant.fetchAll(db, sql: "SELECT * FROM item_grant WHERE order_id IN " + Self.simulatedOrders + " ORDER BY id")
        }
        #expect(grants.map { var g = $0; g.id = nil; return g } == changes.compactMap(\.grant))
        let callbacks = try store.reader.read { db in
            try CallbackAttempt.fetchAll(db, sql: "SELECT * FROM server_callback ORDER BY id")
        }
        #expect(callbacks == changes.compactMap(\.callback))
        let events = try store.reader.read { db in
            try PaymentEvent.fetchAll(db, sql: "SELECT * FROM transaction_event WHERE kind != 'restore_prompted' ORDER BY id")
        }
        #expect(events == changes.flatMap(\.events))
    }

    @Test func aStepIsAllOrNothing() throws {
        // Given a step whose grant cannot be written (its order does not exist)
        let store = try Self.demoStore()
        var simulation = try Self.simulation(store, faults: [], seconds: 5)
        let changes = simulation.runCollecting()
        guard let granting = changes.first(where: { $0.grant != nil }), let transaction = changes.first?.transaction
        else {
            Issue.record("no grant in a 5 s run")
            return
        }
        try store.apply(PaymentChange(transaction: transaction, events: []))
        var broken = granting
        broken.order = nil
        broken.grant?.orderId = "no-such-order"
        // When it is applied
        #expect(throws: (any Error).self) { try store.apply(broken) }
        // Then neither its callback nor its events were kept
        #expect(try Self.count(store, "server_callback") == 0)
        #expect(try Self.count(store, "transaction_event") == 0)
    }

    @Test func checkFindsAcceptedCallbacksWithoutGrantsGrantsWithoutCallbacksAndGrantedDrops() throws {
        // Given a clean simulated store
        let store = try Self.demoStore()
        var simulation = try Self.simulation(store, seconds: 30)
        try simulation.run { try store.apply($0) }
        #expect(try store.check() == [])
        // When a grant disappears, a granted order loses its callbacks, and a dropped order gains one
        try store.write { db in
            let first = try String.fetchOne(db, sql: "SELECT order_id FROM item_grant WHERE order_id IN " + Self.simulatedOrders + " ORDER BY id LIMIT 1")
            let second = try String.fetchOne(db, sql: "SELECT order_id FROM item_grant WHERE order_id IN " + Self.simulatedOrders + " ORDER BY id LIMIT 1 OFFSET 1")
            try db.execute(sql: "DELETE FROM item_grant WHERE order_id = ?", arguments: [first])
            try db.execute(sql: "DELETE FROM server_callback WHERE order_id = ?", arguments: [second])
            let dropped = try String.fetchOne(db, sql: "SELECT transaction_id FROM transaction_event WHERE kind = 'client_crashed' LIMIT 1")
            let template = try PaymentOrder.fetchOne(db, sql: "SELECT * FROM payment_order WHERE transaction_id LIKE 'sim1-%' LIMIT 1")
            if let dropped, var order = template {
                order.id = "forged-" + dropped
                order.transactionId = dropped
                try order.insert(db)
            }
        }
        // Then check names each
        let kinds = Set(try store.check().map(\.kind))
        #expect(
            kinds == [
                "accepted_callback_grants", "grant_without_accepted_callback", "dropped_order_granted",
                "finished_purchase_not_delivered",
            ])
    }

    @Test func thePipelineCommitsEveryStepOnTheWriterThread() throws {
        let store = try Self.demoStore()
        var simulation = try Self.simulation(store)
        let before = try Self.count(store, "transaction_event")
        let run = try store.startRun(.simulate, takingOver: false).run
        try PaymentPipeline.run(into: store, run: run, batch: 7) { emit in try simulation.run(emit) }
        // Logins add one restore_prompted event per prompt they open.
        let prompted = try Self.count(store, "transaction_event WHERE kind = 'restore_prompted'")
        #expect(try Self.count(store, "transaction_event") - before - prompted == simulation.summary.events)
        #expect(try store.reader.read { try StoreCheck.run($0) }.isEmpty)
    }

    @Test func aWriterErrorStopsThePipelineAndIsThrown() throws {
        let store = try Self.demoStore()
        let orphan = PaymentEvent(at: Instant(millis: 0), transactionId: "x", kind: .purchasing, detail: "x")
        let bad = StoreTransaction(
            id: "bad-1", originalTransactionId: "bad-1", userId: "no-such-user", appId: "no-such-app", productId: "nope",
            quantity: 1, state: .purchasing, environment: .production, sid: "s1", roleId: "r", appOrderId: "", ext: "",
            purchaseDate: Instant(millis: 0), finished: false)
        var emitted = 0
        #expect(throws: (any Error).self) {
            try PaymentPipeline.run(into: store, run: try store.startRun(.simulate, takingOver: false).run, batch: 1) { emit in
                for _ in 0..<1000 {
                    try emit(PaymentChange(transaction: bad, events: [orphan]))
                    emitted += 1
                }
            }
        }
        #expect(emitted < 1000, "the engine stops once the writer has failed")
        #expect(try Self.count(store, "store_transaction WHERE id = 'bad-1'") == 0)
    }
}
