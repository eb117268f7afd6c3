import GRDB
import StoreDeskCore
import StoreDeskStoreAPI

extension AppDatabase: HistoryStore {
    /// A player's whole story, newest first (`HistoryProcedures`, written once for both backends).
    public func history(userId: String, kinds: Set<HistoryKind>, before: HistoryCursor?, limit: Int) throws -> [HistoryEntry] {
        try reader.read { db in try HistoryProcedures.history(procedures(db), userId: userId, kinds: kinds, before: before, limit: limit) }
    }
}
