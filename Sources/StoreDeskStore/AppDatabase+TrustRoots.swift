import Foundation
import GRDB
import StoreDeskCore

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
        try Self.refuseUnlessDeveloper(staff, isReadOnly: isReadOnly)
        return try writeImmediate { db in
            if let id = try Int64.fetchOne(db, sql: "SELECT id FROM trust_root WHERE sha256 = ?", arguments: [root.sha256]) {
                throw StoreError.invalidArgument(
                    "already trusted as root \(id) (\(root.subject), SHA-256 \(TrustedRoot.spaced(root.sha256)))")
            }
            let now = try StoreMeta.stamp(now, in: db)
            try db.execute(
                sql: """
                    INSERT INTO trust_root (sha256, subject, der, not_valid_before, not_valid_after, added_at, added_by)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [root.sha256, root.subject, Data(root.der), root.notValidBefore, root.notValidAfter, now, staff.name])
            let id = db.lastInsertedRowID
            var stored = root
            stored.id = id
            stored.addedAt = now
            stored.addedBy = staff.name
            var audit = AuditEntry(
                at: now, actor: staff.name, role: staff.role.rawValue, action: "trust.root.add", subject: "root \(id)",
                detail: "\(root.subject), SHA-256 \(root.sha256)")
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
        try Self.refuseUnlessDeveloper(staff, isReadOnly: isReadOnly)
        return try writeImmediate { db in
            let roots = try Self.trustRoots(db)
            let lowered = key.lowercased()
            let matches = roots.filter { root in
                if let id = Int64(key) { return root.id == id }
                return lowered.count >= 8 && root.sha256.hasPrefix(lowered)
            }
            guard let root = matches.first, matches.count == 1, let id = root.id else {
                throw StoreError.invalidArgument(
                    matches.isEmpty
                        ? "no trusted root \(key): `storedesk trust list` shows their ids"
                        : "\(key) names \(matches.count) roots: give more of the SHA-256, or the id")
            }
            try db.execute(sql: "DELETE FROM trust_root WHERE id = ?", arguments: [id])
            var audit = AuditEntry(
                at: try StoreMeta.stamp(now, in: db), actor: staff.name, role: staff.role.rawValue, action: "trust.root.remove", subject: "root \(id)",
                detail: "\(root.subject), SHA-256 \(root.sha256)")
            try audit.insert(db)
            return root
        }
    }

    private static func refuseUnlessDeveloper(_ staff: StaffMember, isReadOnly: Bool) throws {
        guard !isReadOnly else { throw StoreError.invalidArgument("the store is open read-only: the trusted roots were not changed") }
        if let refusal = staff.refusal(.editTrustRoots) { throw StoreError.invalidArgument(refusal + ": use --role developer") }
    }
}
