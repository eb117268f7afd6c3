import Foundation
import PostgresNIO
import StoreDeskCore
import StoreDeskStoreAPI

/// The trusted roots on PostgreSQL: `TrustProcedures`, written once for both backends.
extension PostgresStore: TrustRootStore {
    public func trustRoots() throws -> [TrustedRoot] {
        try session.transaction(readOnly: true) { db in try TrustProcedures.roots(procedures(db)) }
    }

    public func trustRootUses() throws -> [TrustRootUse] {
        try session.transaction(readOnly: true) { db in try TrustProcedures.uses(procedures(db)) }
    }

    @discardableResult
    public func addTrustRoot(_ root: TrustedRoot, by staff: StaffMember, at now: Instant) throws -> TrustedRoot {
        try TrustWrites.check(staff, readOnly: isReadOnly)
        return try write { db in try TrustProcedures.add(procedures(db), root, by: staff, at: now) }
    }

    @discardableResult
    public func removeTrustRoot(_ key: String, by staff: StaffMember, at now: Instant) throws -> TrustedRoot {
        try TrustWrites.check(staff, readOnly: isReadOnly)
        return try write { db in try TrustProcedures.remove(procedures(db), key, by: staff, at: now) }
    }
}
