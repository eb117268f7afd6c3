import StoreDeskCore

/// The trusted roots, written once for both backends. `TrustWrites` decides (who may, which root a key
/// names, the refusals and audit lines); this persists. `sha256` is unique, so of two machines trusting one
/// root at once the second is refused as if it came later.
public enum TrustProcedures {
    /// The roots App Store chains are validated to, oldest first.
    public static func roots(_ db: some StoreSQLTransaction, locking: Bool = false) throws -> [TrustedRoot] {
        try db.rows("SELECT * FROM trust_root ORDER BY id\(locking ? .lockingRows : nil)").map { try $0.trustedRoot() }
    }

    /// The roots with how many stored notifications each verified.
    public static func uses(_ db: some StoreSQLTransaction) throws -> [TrustRootUse] {
        var counts: [String: Int] = [:]
        for row in try db.rows("SELECT root_sha256, COUNT(*) AS n FROM subscription_event WHERE root_sha256 IS NOT NULL GROUP BY root_sha256") {
            counts[try row.text("root_sha256"), default: 0] += Int(try row.int("n"))
        }
        return try roots(db).map { TrustRootUse(root: $0, verifiedNotifications: counts[$0.sha256] ?? 0) }
    }

    /// Trusts a root from now on, with an audit line; a root already trusted is refused, naming its id.
    ///
    /// - Returns: the root as stored, with its id.
    public static func add(_ db: some StoreSQLTransaction, _ root: TrustedRoot, by staff: StaffMember, at now: Instant) throws -> TrustedRoot {
        // Asked first, so a refusal spends no id (an INSERT that conflicts would); ON CONFLICT below is for
        // another machine adding the same root meanwhile.
        if let id = try db.row("SELECT id FROM trust_root WHERE sha256 = \(root.sha256)")?.int("id") { throw TrustWrites.alreadyTrusted(root, id: id) }
        let now = try db.stamp(now)
        guard let id = try db.row(
            """
            INSERT INTO trust_root (sha256, subject, der, not_valid_before, not_valid_after, added_at, added_by)
            VALUES (\(root.sha256), \(root.subject), \(root.der), \(root.notValidBefore), \(root.notValidAfter), \(now), \(staff.name))
            ON CONFLICT (sha256) DO NOTHING RETURNING id
            """)?.int("id")
        else {
            throw TrustWrites.alreadyTrusted(root, id: try db.row("SELECT id FROM trust_root WHERE sha256 = \(root.sha256)")?.int("id") ?? 0)
        }
        let (stored, audit) = TrustWrites.added(root, id: id, by: staff, at: now)
        try db.insert(audit)
        return stored
    }

    /// Stops trusting a root (by its id, or a prefix of its SHA-256 of at least 8 hex digits), with an audit
    /// line. Notifications it verified stay marked verified by it: they were, when imported.
    ///
    /// - Returns: the root removed.
    public static func remove(_ db: some StoreSQLTransaction, _ key: String, by staff: StaffMember, at now: Instant) throws -> TrustedRoot {
        let root = try TrustWrites.root(named: key, in: try roots(db, locking: true))
        let id = root.id ?? 0
        try db.execute("DELETE FROM trust_root WHERE id = \(id)")
        try db.insert(TrustWrites.removed(root, id: id, by: staff, at: try db.stamp(now)))
        return root
    }
}

extension StoreColumns {
    public func trustedRoot() throws -> TrustedRoot {
        TrustedRoot(
            id: try int("id"), der: try bytes("der"), sha256: try text("sha256"), subject: try text("subject"),
            notValidBefore: try instant("not_valid_before"), notValidAfter: try instant("not_valid_after"), addedAt: try instant("added_at"),
            addedBy: try text("added_by"))
    }
}
