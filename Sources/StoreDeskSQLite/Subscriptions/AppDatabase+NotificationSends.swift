import GRDB
import StoreDeskCore
import StoreDeskStoreAPI

/// Notifications sent (`serve`'s sender) on SQLite: `NotificationSendProcedures`, written once for both
/// backends, each write in an IMMEDIATE transaction (one writer at a time, so two serves never claim one
/// attempt).
extension AppDatabase: NotificationSendStore {
    public func claimNotificationSends(claimer: String, at now: Instant, lease: Instant.Duration, limit: Int) async throws
        -> [NotificationSendClaim]
    {
        guard !isReadOnly else { return [] }
        // Most polls find nothing: a read decides whether to write at all.
        guard try await reader.read({ try NotificationSendProcedures.hasWork(self.procedures($0), now: now) }) else { return [] }
        return try await writeImmediate { db in
            try NotificationSendProcedures.claim(self.procedures(db), claimer: claimer, at: now, lease: lease, limit: limit)
        }
    }

    public func recordNotificationSends(_ sends: [NotificationSendOutcome], claimer: String) async throws -> Int {
        guard !sends.isEmpty else { return 0 }
        return try await writeImmediate { db in try NotificationSendProcedures.record(self.procedures(db), sends, claimer: claimer) }
    }

    public func releaseNotificationSends(_ claims: [NotificationSendClaim], claimer: String) async throws -> Int {
        guard !claims.isEmpty else { return 0 }
        return try await writeImmediate { db in try NotificationSendProcedures.release(self.procedures(db), claims, claimer: claimer) }
    }
}

extension AppDatabase: NotificationDeliveryStore {
    public func notificationSendQueue() throws -> NotificationSendQueue {
        try reader.read { db in try NotificationSendProcedures.queue(procedures(db)) }
    }

    public func playerNotifications(userId: String, limit: Int) throws -> [PlayerNotification] {
        try reader.read { db in try NotificationSendProcedures.player(procedures(db), userId: userId, limit: limit) }
    }

    public func notificationDeliveries(eventIds: [Int64]) throws -> [Int64: NotificationDelivery] {
        try reader.read { db in try NotificationSendProcedures.deliveries(procedures(db), eventIds: eventIds) }
    }
}
