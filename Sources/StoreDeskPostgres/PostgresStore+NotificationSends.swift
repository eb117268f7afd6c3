import PostgresNIO
import StoreDeskCore
import StoreDeskStoreAPI

/// Notifications sent on PostgreSQL: `NotificationSendProcedures`, written once for both backends. Serves on
/// several machines claim due deliveries with `FOR UPDATE SKIP LOCKED`, so each attempt goes to one of them;
/// an attempt is recorded once (`UNIQUE (event_id, attempt)`), fenced by the claim.
extension PostgresStore: NotificationSendStore {
    public func claimNotificationSends(claimer: String, at now: Instant, lease: Instant.Duration, limit: Int) async throws
        -> [NotificationSendClaim]
    {
        guard !isReadOnly else { return [] }
        return try await awaited { [self] in
            guard try session.transaction(readOnly: true, { try NotificationSendProcedures.hasWork(procedures($0), now: now) }) else { return [] }
            return try write { db in try NotificationSendProcedures.claim(procedures(db), claimer: claimer, at: now, lease: lease, limit: limit) }
        }
    }

    public func recordNotificationSends(_ sends: [NotificationSendOutcome], claimer: String) async throws -> Int {
        guard !sends.isEmpty else { return 0 }
        return try await awaited { [self] in try write { db in try NotificationSendProcedures.record(procedures(db), sends, claimer: claimer) } }
    }

    public func releaseNotificationSends(_ claims: [NotificationSendClaim], claimer: String) async throws -> Int {
        guard !claims.isEmpty else { return 0 }
        return try await awaited { [self] in try write { db in try NotificationSendProcedures.release(procedures(db), claims, claimer: claimer) } }
    }
}

extension PostgresStore: NotificationDeliveryStore {
    public func notificationSendQueue() throws -> NotificationSendQueue {
        try session.transaction(readOnly: true) { db in try NotificationSendProcedures.queue(procedures(db)) }
    }

    public func playerNotifications(userId: String, limit: Int) throws -> [PlayerNotification] {
        try session.transaction(readOnly: true) { db in try NotificationSendProcedures.player(procedures(db), userId: userId, limit: limit) }
    }

    public func notificationDeliveries(eventIds: [Int64]) throws -> [Int64: NotificationDelivery] {
        try session.transaction(readOnly: true) { db in try NotificationSendProcedures.deliveries(procedures(db), eventIds: eventIds) }
    }
}

extension PostgresStore {
    /// The advisory lock every writer of the log (`subscription_event`) holds shared while its transaction
    /// runs, and the sender's enqueue holds alone.
    static let eventLogLock: Int64 = 0x5344_4C4F_4730_0001

    /// Holds the log's lock shared until the transaction ends: before a writer takes its first id from the
    /// log's sequence, and outside any savepoint (one rolled back to would let it go).
    func holdEventLog(_ db: PostgresSession.Transaction) throws {
        try db.run("SELECT pg_advisory_xact_lock_shared(\(Self.eventLogLock))")
    }
}
