import Foundation
import StoreDeskCore
import StoreDeskNetwork
@testable import StoreDeskSQLite
import Testing

/// The payment queue with its callbacks POSTed to a real PHP game server on loopback.
@Suite(.serialized) struct SimulationOverHTTPTests {
    static func simulation(
        _ store: AppDatabase, run: PaymentRun, seconds: Int = 20, rate: Double = 10, faults: [PaymentFault] = [], remote: Bool = true
    ) throws -> PaymentSimulation {
        let catalogue = try store.paymentCatalogue()
        return PaymentSimulation(
            PaymentSimulation.Configuration(
                seconds: seconds, rate: rate, seed: 7, faults: faults, start: Instant(millis: 1_800_000_000_000),
                accounts: catalogue.accounts, apps: catalogue.apps, products: catalogue.products, run: run.id, idPrefix: "http",
                remoteApps: remote ? Set(catalogue.apps.map(\.id)) : []))
    }

    static func run(_ store: AppDatabase) throws -> PaymentRun { try store.startRun(.simulate, takingOver: true).run }

    /// Runs `simulation` as `storedesk simulate --callback-url` does: its driver, carried out by the loop.
    static func overHTTP(
        _ simulation: inout PaymentSimulation, store: AppDatabase, run: PaymentRun, poster: CallbackPoster, urls: [String: String],
        concurrency: Int = 16
    ) async throws {
        var driver = PaymentRunDriver(simulation, speed: 0, concurrency: concurrency)
        try await PaymentRunLoop(store: store, run: run, poster: poster, urls: urls).run(&driver)
        simulation = driver.simulation
    }

    static let grantsSQL = """
        SELECT g.* FROM item_grant g JOIN payment_order o ON o.order_id = g.order_id
        WHERE o.transaction_id LIKE 'http%' ORDER BY g.order_id
        """
    static let attemptsSQL = """
        SELECT c.* FROM server_callback c JOIN payment_order o ON o.order_id = c.order_id WHERE o.transaction_id LIKE 'http%'
        """

    static func keys(_ store: AppDatabase) throws -> [String: String] {
        Dictionary(uniqueKeysWithValues: try store.paymentCatalogue().apps.map { ($0.id, $0.appKey) })
    }

    @Test("the PHP server's ledger and the store agree order by order, with tampered, duplicate and dropped callbacks")
    func ledgerAgreesWithTheStore() async throws {
        let folder = TemporaryFolder()
        let store = try Fixtures.demoStore(at: folder.path("store.sqlite"))
        let php = try PHPGameServer(keys: try Self.keys(store), folder: folder)
        let run = try Self.run(store)
        var simulation = try Self.simulation(
            store, run: run, faults: [.tamperedSign(probability: 0.2), .tamperedField(probability: 0.1), .duplicateCallback(probability: 0.2),
                            .networkDrop(probability: 0.2)])
        let poster = CallbackPoster(timeout: 5, connectionsPerHost: 8)
        let urls = Dictionary(uniqueKeysWithValues: simulation.configuration.apps.map { ($0.id, php.url) })
        try await Self.overHTTP(&simulation, store: store, run: run, poster: poster, urls: urls, concurrency: 8)
        try await poster.shutdown()

        let summary = simulation.summary
        #expect(summary.grants > 50)
        #expect(summary.callbacksRejected > 0, "tampered callbacks are refused by the PHP server")
        #expect(summary.callbacksDuplicate > 0, "repeats are answered success")
        #expect(summary.callbacksDropped > 0)
        let ledger = try php.grants()
        let grants = try await store.reader.read { db in
            try Grant.fetchAll(db, sql: Self.grantsSQL)
        }
        #expect(grants.count == summary.grants)
        #expect(ledger.count == grants.count, "one grant per order on both sides")
        let phpByOrder = Dictionary(ledger.map { ($0["order_id"] ?? "", $0) }) { first, _ in first }
        for grant in grants {
            let row = phpByOrder[grant.orderId]
            #expect(row?["user_id"] == grant.userId, "\(grant.orderId)")
            #expect(row?["product_id"] == grant.productId, "\(grant.orderId)")
            #expect(row?["sid"] == grant.sid, "\(grant.orderId)")
            #expect(row?["role_id"] == grant.roleId, "\(grant.orderId)")
        }
        // Every attempt keeps its HTTP status, reply and latency.
        let attempts = try await store.reader.read { db in
            try CallbackAttempt.fetchAll(db, sql: Self.attemptsSQL)
        }
        let answered = attempts.filter { $0.httpStatus != nil }
        #expect(answered.count == attempts.count)
        #expect(answered.allSatisfy { $0.url == php.url && ($0.latencyMicros ?? 0) > 0 })
        #expect(attempts.filter { $0.verdict == CallbackAttempt.accepted }.allSatisfy { $0.reply == "success" && $0.httpStatus == 200 })
        #expect(attempts.contains { $0.verdict == CallbackAttempt.refused && $0.reply == "fail: bad sign" })
        #expect(try store.check().isEmpty)
    }

    @Test("a game server that is not there: every callback is unanswered, retried with backoff, nothing granted")
    func unreachableServer() async throws {
        let folder = TemporaryFolder()
        let store = try Fixtures.demoStore(at: folder.path("store.sqlite"))
        let run = try Self.run(store)
        var simulation = try Self.simulation(store, run: run, seconds: 5)
        let url = "http://127.0.0.1:\(try freePort())/callback"
        let poster = CallbackPoster(timeout: 2, connectionsPerHost: 4)
        let urls = Dictionary(uniqueKeysWithValues: simulation.configuration.apps.map { ($0.id, url) })
        try await Self.overHTTP(&simulation, store: store, run: run, poster: poster, urls: urls, concurrency: 4)
        try await poster.shutdown()
        #expect(simulation.summary.grants == 0)
        #expect(simulation.summary.callbacksUnanswered > 0)
        let attempts = try await store.reader.read { db in
            try CallbackAttempt.fetchAll(db, sql: Self.attemptsSQL)
        }
        #expect(!attempts.isEmpty)
        #expect(attempts.allSatisfy { $0.verdict == CallbackAttempt.unanswered && $0.httpStatus == nil && $0.reply == "connection refused" })
        #expect(attempts.contains { $0.attempt > 1 }, "retried")
        #expect(try store.check().isEmpty)
    }

    @Test("apps without a URL keep the in-process game server: the same run without the network grants the same orders")
    func inProcessStillWorks() async throws {
        let folder = TemporaryFolder()
        let store = try Fixtures.demoStore(at: folder.path("store.sqlite"))
        let php = try PHPGameServer(keys: try Self.keys(store), folder: folder)
        let run = try Self.run(store)
        var remote = try Self.simulation(store, run: run, seconds: 10)
        let poster = CallbackPoster()
        let urls = Dictionary(uniqueKeysWithValues: remote.configuration.apps.map { ($0.id, php.url) })
        try await Self.overHTTP(&remote, store: store, run: run, poster: poster, urls: urls)
        try await poster.shutdown()
        let other = try Fixtures.demoStore(at: folder.path("in-process.sqlite"))
        var local = try Self.simulation(other, run: try Self.run(other), seconds: 10, remote: false)
        _ = local.runCollecting()
        #expect(remote.summary.grants == local.summary.grants)
        #expect(remote.summary.attempts == local.summary.attempts)
    }
}

