import Foundation
import StoreDeskCore
import StoreDeskStoreAPI
import Testing

@testable import StoreDeskPostgres

/// On PostgreSQL the notification log's ids come from a sequence, and a writer that took a lower id can
/// commit after one that took a higher. The sender's enqueue moves each app's cursor to the log's end, so
/// it runs only while no writer of the log is under way (the log's advisory lock, held shared by writers,
/// alone by the enqueue): a notification committed late is sent, never skipped.
@Suite(.serialized) struct EventLogLockTests {
    static let at = NotificationSendContractTests.at

    /// A transaction of another connection, held open on its own thread until `release()`.
    final class HeldTransaction: @unchecked Sendable {
        let started = DispatchSemaphore(value: 0)
        let released = DispatchSemaphore(value: 0)
        let ended = DispatchSemaphore(value: 0)
        var failure: (any Error)?

        init(_ store: PostgresStore, _ body: @escaping @Sendable (PostgresSession.Transaction) throws -> Void) {
            let thread = Thread { [self] in
                do {
                    try store.session.transaction { db in
                        try body(db)
                        started.signal()
                        released.wait()
                    }
                } catch {
                    failure = error
                    started.signal()
                }
                ended.signal()
            }
            thread.start()
        }

        func release() throws {
            released.signal()
            ended.wait()
            if let failure { throw failure }
        }
    }

    @Test func aNotificationCommittedAfterAHigherIdIsStillSent() async throws {
        let store = try ContractStores.get().postgres()
        var settings = AppSettings()
        settings.notificationURL = .some("http://127.0.0.1:9/apple")
        try store.updateApp(id: "1001", settings, by: NotificationSendContractTests.developer, at: Self.at)
        let original = try #require(try store.profile(userId: "10000005").subscriptions.first { $0.appId == "1001" }?.id)
        let early = SubscriptionEvent(
            notificationType: .renewalExtended, notificationUUID: "lock-early", signedDate: Self.at.adding(.seconds(-10)), appAppleId: 6_741_000_101,
            bundleId: "com.storedesk.starvoyage", environment: "Production", status: 1,
            transaction: TransactionInfo(
                transactionId: original, originalTransactionId: original, productId: SubscriptionsContractTests.monthly,
                bundleId: "com.storedesk.starvoyage", purchaseDate: Self.at, originalPurchaseDate: Self.at))
        // Another connection takes its id as every writer of the log does, and keeps its transaction open.
        let writer = try PostgresStore.open(store.address, access: .readWrite)
        let held = HeldTransaction(writer) { db in
            try writer.holdEventLog(db)
            try db.run(
                """
                INSERT INTO subscription_event (notification_uuid, original_transaction_id, notification_type, signed_date, transaction_id,
                  product_id, provenance, payload, source, imported_at)
                VALUES ('lock-early', \(original), 'RENEWAL_EXTENDED', \(early.signedDate.millis), \(original),
                  \(SubscriptionsContractTests.monthly), 'simulated', \(try early.jsonLine()), 'test', \(Self.at.millis))
                """)
        }
        held.started.wait()
        // A higher id commits first.
        try NotificationSendContractTests.logRenewals(["lock-late"], of: "10000005", in: store)
        let ids = try store.session.rows("SELECT notification_uuid, id FROM subscription_event WHERE notification_uuid LIKE 'lock-%'")
            .map { try $0.decode((String, Int64).self) }
        #expect(ids.map(\.0) == ["lock-late"], "the early line is not committed yet")
        // While the early writer is under way the enqueue waits its turn: nothing is claimed, no cursor moves.
        #expect(try await store.claimNotificationSends(claimer: "a", at: Self.at, lease: .seconds(60), limit: 10).isEmpty)
        try held.release()
        let claimed = try await store.claimNotificationSends(claimer: "a", at: Self.at, lease: .seconds(60), limit: 10)
        #expect(claimed.map(\.event.notificationUUID) == ["lock-early", "lock-late"])
    }

    /// Every writer of the log takes the lock shared: while the enqueue holds it, an import and a one-time
    /// purchase's refund (support's log line) wait.
    @Test func theLogsWritersWaitForTheEnqueue() throws {
        let store = try ContractStores.get().postgres()
        let other = try PostgresStore.open(store.address, access: .readWrite)
        let support = StaffMember(name: "li.support", role: .support)
        let oneTime = try #require(
            try store.session.rows(
                """
                SELECT t.id FROM store_transaction t JOIN product p ON p.id = t.product_id
                WHERE p.type = 'consumable' AND t.revocation_date IS NULL ORDER BY t.id LIMIT 1
                """
            ).first?.decode(String.self))
        let writes: [(String, @Sendable () throws -> Void)] = [
            ("an import", { try NotificationSendContractTests.logRenewals(["lock-wait"], of: "10000005", in: other) }),
            ("a refund", { _ = try other.refund(oneTime, reason: "test", appIssue: false, by: support, at: Self.at) }),
        ]
        for (name, write) in writes {
            let enqueue = HeldTransaction(store) { db in
                let alone = try db.rows("SELECT pg_try_advisory_xact_lock(\(PostgresStore.eventLogLock))").first?.decode(Bool.self)
                #expect(alone == true)
            }
            enqueue.started.wait()
            let done = DispatchSemaphore(value: 0)
            let failure = HeldTransaction.Box()
            Thread {
                do { try write() } catch { failure.error = error }
                done.signal()
            }.start()
            #expect(done.wait(timeout: .now() + 0.5) == .timedOut, "\(name) wrote the log while the enqueue held it alone")
            try enqueue.release()
            done.wait()
            #expect(failure.error == nil, "\(name): \(failure.error.map { "\($0)" } ?? "")")
        }
    }
}

extension EventLogLockTests.HeldTransaction {
    final class Box: @unchecked Sendable { var error: (any Error)? }
}
