import GRDB
import StoreDeskCore
import StoreDeskStoreAPI

extension AppDatabase {
    /// How many transactions in the queue are Sandbox purchases.
    public func sandboxQueueCount() throws -> Int {
        try reader.read { db in try QueueProcedures.sandboxCount(procedures(db)) }
    }

    /// How many transactions wait in the queue, per state (all of them, whatever the filter).
    public func queueCounts() throws -> [TransactionState: Int] {
        try reader.read { db in try QueueProcedures.counts(procedures(db)) }
    }

    /// How many events of each kind were written after `eventId` (`QueueProcedures.eventTally`).
    public func eventTally(after eventId: Int64?) throws -> EventTally {
        try reader.read { db in try QueueProcedures.eventTally(procedures(db), after: eventId) }
    }

    /// The sparklines' buckets (`QueueProcedures.activity`, on `transaction_event_activity`).
    public func queueActivity(_ window: QueueActivity.Window) throws -> QueueActivity {
        try reader.read { db in try QueueProcedures.activity(procedures(db), window) }
    }

    /// How the latest `limit` callback attempts that went to real game servers fared.
    public func recentDeliveries(limit: Int) throws -> CallbackDeliveries {
        try reader.read { db in try QueueProcedures.recentDeliveries(procedures(db), limit: limit) }
    }

    /// One transaction with its timeline, order, callbacks and grant.
    public func queueDetail(transactionId: String) throws -> QueueDetail? {
        try reader.read { db in try QueueProcedures.detail(procedures(db), transactionId: transactionId) }
    }

    /// `finishTransaction` on one transaction of the store, as the client would call it (`QueueProcedures.finish`).
    public func finishTransaction(id: String, at: Instant, by staff: StaffMember) throws -> Result<StoreTransaction, TransactionRefusal> {
        if let refusal = staff.refusal(.driveSimulation) { throw StoreError.invalidArgument(refusal) }
        return try write { db in try QueueProcedures.finish(procedures(db), id: id, at: at, by: staff) }
    }
}
