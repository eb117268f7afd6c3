import Foundation
import PostgresNIO
import StoreDeskCore
import StoreDeskStoreAPI

extension PostgresStore: RestoreDeskStore {
    public func restorePrompts(status: RestoreStatus?, environment: StoreEnvironment?, limit: Int, after cursor: RestoreCursor?) throws
        -> [RestorePrompt]
    {
        let rows = try PostgresRestorePager(store: self, query: RestoreQuery(status: status, environment: environment))
            .page(cursor.map { .after($0) } ?? .first, limit: limit)
        return try session.transaction(readOnly: true) { db in try rows.map { try RestoreDeskProcedures.prompt(procedures(db), $0.request) } }
    }

    public func restorePurchases(for target: RestoreAccount, appId: String?, by staff: StaffMember, at now: Instant) throws
        -> RestorePurchases.Plan
    {
        guard !isReadOnly else { throw RestoreRefusal.readOnly }
        return try write { db in try RestoreDeskProcedures.restorePurchases(procedures(db), for: target, appId: appId, by: staff, at: now) }
    }
}
