import Foundation
import StoreDeskCore
import StoreDeskPostgres
import StoreDeskSQLite
import StoreDeskStoreAPI
import Testing

/// The payment queue and its runs on both backends: the same lists, counts, tallies, pictures and
/// details; runs that start at once on several connections take each piece of orphaned work exactly
/// once; a run whose work was taken over can write nothing more; finishTransaction decides the same.
@Suite(.serialized) struct QueueContractTests {
    /// `count` purchases in flight written by `run`: each a transaction still purchasing, with its event.
    static func work(_ run: PaymentRun, count: Int, in store: any ContractStore) throws -> [String] {
        let product = try #require(try store.paymentCatalogue(userLimit: 1).products.first { $0.appId == "1001" })
        var ids: [String] = []
        let changes = (0..<count).map { index -> PaymentChange in
            let id = "contract-\(run.id)-\(index)"
            ids.append(id)
            let at = Instant(millis: StoreContractTests.demoClock.millis + Int64(index))
            let transaction = StoreTransaction(
                id: id, originalTransactionId: id, userId: "10000001", appId: "1001", productId: product.id, quantity: 1,
                state: .purchasing, failureReason: nil, environment: .production, sid: "s1", roleId: "r10000001-1",
                appOrderId: "G-\(id)", ext: "", purchaseDate: at, expiresDate: nil, revocationDate: nil, revocationReason: nil,
                finished: false)
            return PaymentChange(transaction: transaction, events: [PaymentEvent(at: at, transactionId: id, kind: .purchasing, detail: "contract")])
        }
        try store.apply(changes, run: run)
        return ids
    }

    static let queries = [
        QueueQuery(), QueueQuery(oldestFirst: true), QueueQuery(state: .purchased), QueueQuery(state: .deferred),
        QueueQuery(userId: "10000001"), QueueQuery(product: "COINS"), QueueQuery(text: "2000"), QueueQuery(text: "%"),
    ]

    @Test(arguments: Backend.allCases) func theQueueReadsAsTheSQLiteStore(_ backend: Backend) throws {
        let store = try ContractStores.get().store(backend)
        let reference = try ContractStores.get().sqlite()
        for query in Self.queries {
            let expected = try reference.queue(query).first(limit: 500)
            let pager = store.queue(query)
            let (forward, backward) = try pager.walked(limit: 2)
            #expect(forward == expected, "\(query)")
            #expect(backward == expected, "\(query) backwards")
            #expect(try pager.count() == reference.queue(query).count(), "\(query)")
        }
        #expect(try store.queueCounts() == reference.queueCounts())
        #expect(try store.eventTally(after: nil) == reference.eventTally(after: nil))
        #expect(try store.eventTally(after: 0) == reference.eventTally(after: 0))
        let window = QueueActivity.Window.ending(at: StoreContractTests.demoClock, bucket: .seconds(3600), count: 24 * 30)
        #expect(try store.queueActivity(window) == reference.queueActivity(window))
        #expect(try store.recentDeliveries(limit: 100) == reference.recentDeliveries(limit: 100))
        let catalogue = try store.paymentCatalogue(userLimit: 10), expected = try reference.paymentCatalogue(userLimit: 10)
        #expect(catalogue.apps == expected.apps && catalogue.products == expected.products && catalogue.accounts == expected.accounts
            && catalogue.storeKitTesting == expected.storeKitTesting)
        for transaction in try reference.queue(QueueQuery()).first(limit: 500) {
            #expect(try store.queueDetail(transactionId: transaction.id) == reference.queueDetail(transactionId: transaction.id))
        }
        #expect(try store.queueDetail(transactionId: "2000000100000093") == reference.queueDetail(transactionId: "2000000100000093"))
        #expect(try store.queueDetail(transactionId: "no-such") == nil)
    }

    @Test(arguments: Backend.allCases) func runsStartingAtOnceTakeEachPieceOfWorkOverExactlyOnce(_ backend: Backend) throws {
        let store = try ContractStores.get().store(backend)
        // A run writes purchases in flight, then its process dies.
        let dead = try store.startRun(.simulate, takingOver: false)
        let orphaned = Set(try Self.work(dead.run, count: 6, in: store))
        dead.run.hold?.release()
        let connections = try (0..<4).map { _ in try ContractStores.another(store) }
        let starts = Starts()
        DispatchQueue.concurrentPerform(iterations: connections.count) { index in
            starts.add(Result { try connections[index].startRun(.simulate, takingOver: true) })
        }
        let all = try starts.all.map { try $0.get() }
        let taken = all.flatMap { $0.inFlight.map(\.transaction.id) }
        #expect(taken.count == Set(taken).count, "a piece of work was taken over twice: \(taken)")
        #expect(Set(taken) == orphaned)
        #expect(Set(all.map(\.run.id)).count == connections.count)
        for start in all { try connections[0].endRun(start.run) }
    }

    @Test(arguments: Backend.allCases) func aRunWhoseWorkWasTakenOverWritesNothingMore(_ backend: Backend) throws {
        let store = try ContractStores.get().store(backend)
        let other = try ContractStores.another(store)
        let first = try store.startRun(.simulate, takingOver: true)
        let id = try #require(try Self.work(first.run, count: 2, in: store).first)
        let note = { (run: PaymentRun) in
            PaymentChange(events: [PaymentEvent(at: StoreContractTests.demoClock, transactionId: id, kind: .receiptChecked, detail: "run \(run.id)")])
        }
        try store.apply([note(first.run)], run: first.run)
        // The first run's process dies: its hold goes, and the next run takes its work over.
        first.run.hold?.release()
        let second = try other.startRun(.simulate, takingOver: true)
        #expect(second.tookOverFrom == [first.run.id])
        #expect(second.inFlight.map(\.transaction.id).contains(id))
        #expect(throws: StoreError.runEnded(path: store.path, run: first.run.id, takenOverBy: second.run.id)) {
            try store.apply([note(first.run)], run: first.run)
        }
        try other.apply([note(second.run)], run: second.run)
        let details = try #require(try store.queueDetail(transactionId: id)).events.filter { $0.kind == .receiptChecked }.map(\.detail)
        #expect(details.suffix(2) == ["run \(first.run.id)", "run \(second.run.id)"])
        try other.endRun(second.run)
        #expect(throws: StoreError.self) { try other.heartbeat(second.run) }
    }

    @Test(arguments: Backend.allCases) func finishTransactionDecidesAsTheSQLiteStore(_ backend: Backend) throws {
        let store = try ContractStores.get().store(backend)
        let reference = try ContractStores.get().sqlite()
        let developer = StaffMember(name: "zhao.dev", role: .developer)
        let at = Instant(millis: StoreContractTests.demoClock.millis + 1000)
        for transaction in try reference.queue(QueueQuery()).first(limit: 500) + [try #require(try reference.queueDetail(transactionId: "2000000100000093")).transaction] {
            let expected = "\(try reference.finishTransaction(id: transaction.id, at: at, by: developer))"
            #expect("\(try store.finishTransaction(id: transaction.id, at: at, by: developer))" == expected, "\(transaction.id)")
        }
        #expect(throws: StoreError.self) { _ = try store.finishTransaction(id: "x", at: at, by: StaffMember(name: "li.na", role: .support)) }
        #expect(try store.queueCounts() == reference.queueCounts())
    }
}

final class Starts: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Result<PaymentRunStart, any Error>] = []
    func add(_ value: Result<PaymentRunStart, any Error>) { lock.withLock { values.append(value) } }
    var all: [Result<PaymentRunStart, any Error>] { lock.withLock { values } }
}
