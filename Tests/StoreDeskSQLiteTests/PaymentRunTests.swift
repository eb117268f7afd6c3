import Foundation
import GRDB
import StoreDeskCore
import Testing

@testable import StoreDeskSQLite

/// Many writers on one store file: a payment run owns its work in flight while it lives, another
/// takes it over only once the owner is gone, exactly once, and a run taken over can write no more.
@Suite struct PaymentRunTests {
    static let start = Instant(millis: 1_800_000_000_000)

    static func demoFile(_ folder: TemporaryFolder) throws -> String {
        let path = folder.path("demo.sqlite")
        try Fixtures.demoStore(at: path).close()
        return path
    }

    static func open(_ path: String) throws -> AppDatabase { try AppDatabase.open(path: path, access: .readWrite) }

    /// Runs a short simulation as `run`'s, through the pipeline; what is due after its window stays in flight.
    @discardableResult
    static func simulate(_ store: AppDatabase, _ run: PaymentRun, seed: UInt64 = 3, seconds: Int = 20) throws -> PaymentSimulation {
        let catalogue = try store.paymentCatalogue()
        var simulation = PaymentSimulation(
            PaymentSimulation.Configuration(
                seconds: seconds, rate: 10, seed: seed, faults: [.networkDrop(probability: 0.5)], start: start,
                accounts: catalogue.accounts, apps: catalogue.apps, products: catalogue.products, run: run.id))
        try PaymentPipeline.run(into: store, run: run, batch: 64) { emit in try simulation.run(emit) }
        return simulation
    }

    /// The unfinished transactions `run` owns, by id.
    static func owned(_ store: AppDatabase, by run: Int64) throws -> [String] {
        try store.reader.read { db in
            try String.fetchAll(db, sql: "SELECT id FROM store_transaction WHERE finished = 0 AND run_id = ? ORDER BY id", arguments: [run])
        }
    }

    @Test func aLiveRunKeepsItsWorkAndAGoneRunsWorkIsTakenOverOnce() throws {
        let folder = TemporaryFolder()
        let path = try Self.demoFile(folder)
        let store = try Self.open(path)
        // Given run A with purchases in flight, alive (it holds its lock)
        let a = try store.startRun(.simulate, takingOver: true).run
        try Self.simulate(store, a)
        let left = try Self.owned(store, by: a.id)
        #expect(left.count > 3, "the run must leave work in flight")
        // When B starts beside it, B takes nothing
        let b = try Self.open(path).startRun(.simulate, takingOver: true)
        #expect(b.inFlight.isEmpty && b.tookOverFrom.isEmpty)
        // When A's process dies (the kernel drops its lock; nothing else is written)
        a.hold?.release()
        // Then the next run takes all of A's work, and the one after takes nothing more
        let c = try Self.open(path).startRun(.simulate, takingOver: true)
        #expect(c.inFlight.map(\.transaction.id).sorted() == left)
        #expect(c.tookOverFrom == [a.id])
        #expect(try Self.owned(store, by: c.run.id) == left)
        let d = try Self.open(path).startRun(.console, takingOver: true)
        #expect(d.inFlight.isEmpty)
        let row = try store.reader.read { try Row.fetchOne($0, sql: "SELECT ended_at, taken_over_by FROM payment_run WHERE id = ?", arguments: [a.id]) }
        #expect(row?["taken_over_by"] == c.run.id && (row?["ended_at"] as Int64?) != nil)
        // And A, had it lived on, can write nothing more: its commits are refused whole
        let events = try store.eventCount()
        let late = PaymentChange(events: [PaymentEvent(at: Self.start, transactionId: left[0], kind: .finished, detail: "late")])
        #expect(throws: StoreError.runEnded(path: path, run: a.id, takenOverBy: c.run.id)) { try store.apply([late], run: a) }
        #expect(try store.eventCount() == events)
        // C resumes A's work to the end: every paid purchase granted once, the store clean
        var resumer = PaymentSimulation(
            PaymentSimulation.Configuration(
                seconds: 1, rate: 0.000_001, seed: 9, start: Self.start.adding(.seconds(30)), accounts: try store.paymentCatalogue().accounts,
                apps: try store.paymentCatalogue().apps, products: try store.paymentCatalogue().products, run: c.run.id))
        resumer.resume(c.inFlight)
        try PaymentPipeline.run(into: store, run: c.run, batch: 64) { emit in
            try resumer.run(until: Self.start.adding(.seconds(3600)), emit)
        }
        #expect(try Self.owned(store, by: c.run.id).isEmpty)
        #expect(try store.check() == [])
    }

    @Test func runsStartingAtTheSameMomentTakeOverEachPieceOfWorkExactlyOnce() throws {
        let folder = TemporaryFolder()
        let path = try Self.demoFile(folder)
        let store = try Self.open(path)
        // Given a run that ended with work in flight
        let gone = try store.startRun(.simulate, takingOver: false).run
        try Self.simulate(store, gone)
        try store.endRun(gone)
        let left = try Self.owned(store, by: gone.id)
        #expect(left.count > 3)
        // When eight processes' connections start runs at once
        let starts = Locked<[PaymentRunStart]>([])
        let failures = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            do {
                let began = try Self.open(path).startRun(.simulate, takingOver: true)
                starts.mutate { $0.append(began) }
            } catch {
                failures.mutate { $0.append("\(error)") }
            }
        }
        // Then none failed, and the work went to exactly one of them, whole
        #expect(failures.value.isEmpty, "\(failures.value)")
        let taken = starts.value.filter { !$0.inFlight.isEmpty }
        #expect(taken.count == 1)
        #expect(taken.first?.inFlight.map(\.transaction.id).sorted() == left)
        #expect(Set(starts.value.map(\.run.id)).count == 8, "every run has a number of its own")
    }

    @Test func whereTheLockCannotTellALiveRunIsTakenOverOnlyAfterItsLeaseAndIsThenFenced() throws {
        let folder = TemporaryFolder()
        let path = try Self.demoFile(folder)
        let store = try Self.open(path)
        // Given run A with work in flight, as seen from another machine (its boot id differs)
        let a = try store.startRun(.simulate, takingOver: false).run
        try Self.simulate(store, a)
        let left = try Self.owned(store, by: a.id)
        try store.write { try $0.execute(sql: "UPDATE payment_run SET host = 'another-machine' WHERE id = ?", arguments: [a.id]) }
        // When its heartbeat is fresh, nobody takes its work
        try store.heartbeat(a)
        #expect(try Self.open(path).startRun(.simulate, takingOver: true).inFlight.isEmpty)
        // When its heartbeat is older than the lease, the next run takes it
        let stale = Instant(Date()).adding(Instant.Duration(millis: -PaymentRun.lease.millis - 1000))
        try store.write { try $0.execute(sql: "UPDATE payment_run SET heartbeat_at = ? WHERE id = ?", arguments: [stale.millis, a.id]) }
        let b = try Self.open(path).startRun(.simulate, takingOver: true)
        #expect(b.inFlight.map(\.transaction.id).sorted() == left)
        // Then A, alive after all, finds out at its next heartbeat and writes nothing more
        #expect(throws: StoreError.runEnded(path: path, run: a.id, takenOverBy: b.run.id)) { try store.heartbeat(a) }
    }

    @Test func finishingByHandLeavesALiveRunsTransactionToThatRun() throws {
        let folder = TemporaryFolder()
        let path = try Self.demoFile(folder)
        let store = try Self.open(path)
        // Given a failed, unfinished purchase that live run A has in flight
        let a = try store.startRun(.simulate, takingOver: false).run
        let failed = StoreTransaction(
            id: "sim\(a.id)-T1", originalTransactionId: "sim\(a.id)-T1", userId: "10000001", appId: "1001",
            productId: "com.storedesk.starvoyage.gems.60", state: .failed, failureReason: .cancelled, sid: "s1",
            roleId: "r1", purchaseDate: Self.start, finished: false)
        try store.apply(
            [PaymentChange(transaction: failed, events: [PaymentEvent(at: Self.start, transactionId: failed.id, kind: .failed, detail: "x")])],
            run: a)
        // When the console finishes it by hand, it is refused while A lives
        let refused = try Self.open(path).finishTransaction(id: failed.id, at: Self.start, by: StaffMember(name: "wang.dev", role: .developer))
        #expect(refused == .failure(.inFlightElsewhere(transactionId: failed.id, run: a.id)))
        // And allowed once A has ended
        try store.endRun(a)
        let finished = try Self.open(path).finishTransaction(id: failed.id, at: Self.start, by: StaffMember(name: "wang.dev", role: .developer))
        #expect((try? finished.get())?.finished == true)
    }

    @Test func aWriterWaitsForAnotherProcesssLockLongerThanTheOldTwoSecondsInsteadOfFailing() throws {
        let folder = TemporaryFolder()
        let path = try Self.demoFile(folder)
        let holder = try Self.open(path)
        let waiter = try Self.open(path)
        // Given another connection that holds the write lock for 2.5 s
        let held = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            try? holder.writeWithoutTransaction { db in
                try db.execute(sql: "BEGIN IMMEDIATE")
                held.signal()
                Thread.sleep(forTimeInterval: 2.5)
                try db.execute(sql: "COMMIT")
            }
            done.signal()
        }
        held.wait()
        // When this one writes, it waits its turn and succeeds
        let began = Date()
        let run = try waiter.startRun(.simulate, takingOver: true)
        #expect(Date().timeIntervalSince(began) > 2)
        #expect(run.run.id >= 1)
        done.wait()
    }

    /// What two simulations sharing a transaction left behind: a paid purchase whose order
    /// says pending though its grant is in the store. A run taking it over used to call it back again,
    /// grant it again and fail on `grant_on_order`, and so did every run after it. Now it is finished
    /// and its order marked granted, once.
    @Test func aTakenOverOrderWhoseGrantIsInTheStoreIsFinishedNotGrantedAgain() throws {
        let folder = TemporaryFolder()
        let store = try Self.open(try Self.demoFile(folder))
        let demo = try Fixtures.demo()
        let app = try #require(demo.apps.first { $0.id == "1001" })
        let paid = StoreTransaction(
            id: "simold-T7", originalTransactionId: "simold-T7", userId: "10000001", appId: "1001",
            productId: "com.storedesk.starvoyage.gems.60", state: .purchased, sid: "s1", roleId: "r10000001",
            appOrderId: "G7", purchaseDate: Self.start, finished: false)
        let order = PaymentOrder(
            id: "10000000007", transactionId: paid.id, appId: "1001", userId: paid.userId, productId: paid.productId,
            amountCents: 600, sid: "s1", roleId: paid.roleId, appOrderId: "G7", createdAt: Self.start, status: .pending)
        let body = ServerCallback(transaction: paid, orderId: order.id, app: app, timestamp: Self.start).body
        let grant = Grant(
            orderId: order.id, userId: paid.userId, sid: "s1", roleId: paid.roleId, productId: paid.productId, quantity: 1,
            kind: .product, source: .purchase, grantedAt: Self.start)
        try store.apply(
            PaymentChange(
                transaction: paid, order: order,
                callback: CallbackAttempt(
                    orderId: order.id, attempt: 1, body: body, signExpected: "", signReceived: "", verdict: CallbackAttempt.accepted,
                    reason: "ok", reply: "success", receivedAt: Self.start),
                grant: grant, events: [PaymentEvent(at: Self.start, transactionId: paid.id, kind: .granted, detail: "granted")]))
        #expect(try store.check().map(\.kind) == ["order_pending_with_grant"])
        // When a run takes it over and runs
        let began = try store.startRun(.simulate, takingOver: true)
        #expect(began.inFlight.map(\.granted) == [true])
        var simulation = PaymentSimulation(
            PaymentSimulation.Configuration(
                seconds: 1, rate: 0.000_001, seed: 1, start: Self.start.adding(.seconds(5)), accounts: demo.gameAccounts, apps: demo.apps,
                products: demo.products, run: began.run.id))
        simulation.resume(began.inFlight)
        try PaymentPipeline.run(into: store, run: began.run, batch: 64) { emit in try simulation.run(emit) }
        // Then it is finished with its one grant, and the store is clean
        #expect(simulation.summary.grants == 0)
        #expect(try store.check() == [])
        #expect(try store.events(transactionId: paid.id).last?.detail.hasSuffix("order 10000000007 was granted already (its grant is in the store): marked granted") == true)
    }

    @Test func aStoreFromBeforeRunsUpgradesAndItsWorkInFlightIsTakenOver() throws {
        // Given a v8 store holding a simulated purchase that a killed run left purchasing
        let folder = TemporaryFolder()
        let path = folder.path("old.sqlite")
        let queue = try DatabaseQueue(path: path, configuration: AppDatabase.configuration(readOnly: false))
        try SQLiteMigrations.migrator.migrate(queue, upTo: "v8-subscription-apple-revocation-reason")
        let demo = try Fixtures.demo()
        try queue.write { db in
            for app in demo.apps {
                try db.execute(
                    sql: """
                        INSERT INTO app (id, name, bundle_id, app_key, currency_per_yuan, restore_ownership, grace_period_days)
                        VALUES (?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [app.id, app.name, app.bundleId, app.appKey, app.currencyPerYuan, app.restoreOwnership.rawValue, app.gracePeriodDays])
            }
            try db.execute(
                sql: """
                    INSERT INTO product (id, app_id, name, type, price_cents, currency)
                    VALUES ('com.storedesk.starvoyage.gems.60', '1001', '60 gems', 'consumable', 600, 'CNY')
                    """)
            for user in demo.users.prefix(3) { try user.insert(db) }
            try db.execute(
                sql: """
                    INSERT INTO store_transaction (id, original_transaction_id, user_id, app_id, product_id, quantity, state,
                      environment, sid, role_id, app_order_id, ext, purchase_date, finished)
                    VALUES ('simold-T1', 'simold-T1', '10000001', '1001', 'com.storedesk.starvoyage.gems.60', 1, 'purchasing',
                      'Production', 's1', 'r1', 'G1', '', ?, 0);
                    INSERT INTO transaction_event (transaction_id, at, kind, detail) VALUES ('simold-T1', ?, 'purchasing', 'x');
                    """, arguments: [Self.start.millis, Self.start.millis])
        }
        try queue.close()
        // When it is opened with --migrate and a run starts
        let store = try AppDatabase.open(path: path, access: .readWrite, migrate: true)
        let began = try store.startRun(.simulate, takingOver: true)
        // Then the purchase is the new run's to resume, and the old rows are all there
        #expect(began.inFlight.map(\.transaction.id) == ["simold-T1"])
        #expect(try Self.owned(store, by: began.run.id) == ["simold-T1"])
        #expect(try store.eventCount() == 1)
    }
}

/// A value several threads change under a lock.
final class Locked<Value: Sendable>: @unchecked Sendable {
    private var stored: Value
    private let lock = NSLock()

    init(_ value: Value) { stored = value }

    var value: Value { lock.withLock { stored } }

    func mutate(_ body: (inout Value) -> Void) { lock.withLock { body(&stored) } }
}
