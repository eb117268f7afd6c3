import Foundation
import PostgresNIO
import StoreDeskCore
import StoreDeskStoreAPI

extension PostgresStore: RestoreDeskStore {
    public func restorePrompts(status: RestoreStatus?, environment: StoreEnvironment?, limit: Int, after cursor: RestoreCursor?) throws
        -> [RestorePrompt]
    {
        try session.transaction(readOnly: true) { db in
            try RestoreDeskProcedures.prompts(procedures(db), status: status, environment: environment, limit: limit, after: cursor)
        }
    }

    public func restorePurchases(for target: RestoreAccount, appId: String?, by staff: StaffMember, at now: Instant) throws
        -> RestorePurchases.Plan
    {
        guard !isReadOnly else { throw RestoreRefusal.readOnly }
        return try write { db in try RestoreDeskProcedures.restorePurchases(procedures(db), for: target, appId: appId, by: staff, at: now) }
    }
}
