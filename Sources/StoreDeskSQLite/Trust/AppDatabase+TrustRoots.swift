import Foundation
import GRDB
import StoreDeskCore
import StoreDeskStoreAPI

extension TrustedRoot {
    init(row: Row) throws {
        let der: Data = try row.decode(forColumn: "der")
        self.init(
            id: try row.decode(forColumn: "id"), der: Array(der), sha256: try row.decode(forColumn: "sha256"),
            subject: try row.decode(forColumn: "subject"), notValidBefore: try row.decode(forColumn: "not_valid_before"),
            notValidAfter: try row.decode(forColumn: "not_valid_after"), addedAt: try row.decode(forColumn: "added_at"),
            addedBy: try row.decode(forColumn: "added_by"))
    }
}

extension AppDatabase {
    /// The roots App Store chains are validated to, oldest first.
    public func trustRoots() throws -> [TrustedRoot] {
        try reader.read { db in try Self.trustRoots(db) }
    }

    static func trustRoots(_ db: Database) throws -> [TrustedRoot] {
        try Row.fetchAll(db, sql: "SELECT * FROM trust_root ORDER BY id").map(TrustedRoot.init(row:))
    }

    /// The roots with how many stored notifications each verified.
    public func trustRootUses() throws -> [TrustRootUse] {
        try reader.read { db in
            let counts = try Dictionary(
                Row.fetchAll(
                    db, sql: "SELECT root_sha256, COUNT(*) AS n FROM subscription_event WHERE root_sha256 IS NOT NULL GROUP BY root_sha256"
                ).map { (try $0.column("root_sha256") as String, try $0.column("n") as Int) }, uniquingKeysWith: +)
            return try Self.trustRoots(db).map { TrustRootUse(root: $0, verifiedNotifications: counts[$0.sha256] ?? 0) }
        }
    }

    /// Trusts a root from now on, with an audit line, in one transaction. Only a developer may; a root
    /// already trusted is refused, naming its id.
    ///
    /// - Returns: the root as stored, with its id.
    @discardableResult
    public func addTrustRoot(_ root: TrustedRoot, by staff: StaffMember, at now: Instant) throws -> TrustedRoot {
        try TrustWrites.check(staff, readOnly: isReadOnly)
        return try writeImmediate { db in
            if let id = try Int64.fetchOne(db, sql: "SELECT id FROM trust_root WHERE sha256 = ?", arguments: [root.sha256]) {
                throw TrustWrites.alreadyTrusted(root, id: id)
            }
            let now = try StoreMeta.stamp(now, in: db)
            try db.execute(
                sql: """
                    INSERT INTO trust_root (sha256, subject, der, not_valid_before, not_valid_after, added_at, added_by)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [root.sha256, root.subject, Data(root.der), root.notValidBefore, root.notValidAfter, now, staff.name])
            let (stored, line) = TrustWrites.added(root, id: db.lastInsertedRowID, by: staff, at: now)
            var audit = line
            try audit.insert(db)
            return stored
        }
    }

    /// Stops trusting a root (by its id, or a prefix of its SHA-256 of at least 8 hex digits), with an
    /// audit line. Notifications it verified stay marked verified by it: they were, when imported.
    ///
    /// - Returns: the root removed.
    @discardableResult
    public func removeTrustRoot(_ key: String, by staff: StaffMember, at now: Instant) throws -> TrustedRoot {
        try TrustWrites.check(staff, readOnly: isReadOnly)
        return try writeImmediate { db in
            let root = try TrustWrites.root(named: key, in: try Self.trustRoots(db))
            let id = root.id ?? 0
            try db.execute(sql: "DELETE FROM trust_root WHERE id = ?", arguments: [id])
            var audit = TrustWrites.removed(root, id: id, by: staff, at: try StoreMeta.stamp(now, in: db))
            try audit.insert(db)
            return root
        }
    }
}
