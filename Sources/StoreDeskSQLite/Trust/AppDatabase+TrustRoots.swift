import Foundation
import GRDB
import StoreDeskCore
import StoreDeskStoreAPI

/// The trusted roots on SQLite: `TrustProcedures`, written once for both backends.
extension AppDatabase {
    /// The roots App Store chains are validated to, oldest first.
    public func trustRoots() throws -> [TrustedRoot] {
        try reader.read { db in try Self.trustRoots(db) }
    }

    static func trustRoots(_ db: Database) throws -> [TrustedRoot] {
        try TrustProcedures.roots(SQLiteTransaction(db: db, store: db.description))
    }

    /// The roots with how many stored notifications each verified.
    public func trustRootUses() throws -> [TrustRootUse] {
        try reader.read { db in try TrustProcedures.uses(procedures(db)) }
    }

    /// Trusts a root from now on, with an audit line, in one transaction. Only a developer may; a root
    /// already trusted is refused, naming its id.
    ///
    /// - Returns: the root as stored, with its id.
    @discardableResult
    public func addTrustRoot(_ root: TrustedRoot, by staff: StaffMember, at now: Instant) throws -> TrustedRoot {
        try TrustWrites.check(staff, readOnly: isReadOnly)
        return try writeImmediate { db in try TrustProcedures.add(procedures(db), root, by: staff, at: now) }
    }

    /// Stops trusting a root (by its id, or a prefix of its SHA-256 of at least 8 hex digits), with an
    /// audit line. Notifications it verified stay marked verified by it: they were, when imported.
    ///
    /// - Returns: the root removed.
    @discardableResult
    public func removeTrustRoot(_ key: String, by staff: StaffMember, at now: Instant) throws -> TrustedRoot {
        try TrustWrites.check(staff, readOnly: isReadOnly)
        return try writeImmediate { db in try TrustProcedures.remove(procedures(db), key, by: staff, at: now) }
    }
}
