import PostgresNIO
import StoreDeskCore
import StoreDeskStoreAPI

extension PostgresStore: HistoryStore {
    /// A player's whole story, newest first (`HistoryProcedures`, written once for both backends), in one
    /// read-only transaction.
    public func history(userId: String, kinds: Set<HistoryKind>, before: HistoryCursor?, limit: Int) throws -> [HistoryEntry] {
        try session.transaction(readOnly: true) { db in
            try HistoryProcedures.history(procedures(db), userId: userId, kinds: kinds, before: before, limit: limit)
        }
    }
}
