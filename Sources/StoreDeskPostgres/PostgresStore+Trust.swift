import Foundation
import NIOCore
import PostgresNIO
import StoreDeskCore
import StoreDeskStoreAPI

/// The trusted roots on PostgreSQL. `TrustWrites` decides (who may, which root a key names, the refusals
/// and audit lines); this persists. `sha256` is unique, so of two machines trusting one root at once the
/// second is refused as if it came later.
extension PostgresStore: TrustRootStore {
    public func trustRoots() throws -> [TrustedRoot] {
        try session.rows("SELECT * FROM trust_root ORDER BY id").map { try cells($0).trustedRoot() }
    }

    public func trustRootUses() throws -> [TrustRootUse] {
        try session.transaction(readOnly: true) { db in
            var counts: [String: Int] = [:]
            for row in try db.rows(
                "SELECT root_sha256, count(*) FROM subscription_event WHERE root_sha256 IS NOT NULL GROUP BY root_sha256")
            {
                let (sha256, count) = try row.decode((String, Int64).self)
                counts[sha256, default: 0] += Int(count)
            }
            return try db.rows("SELECT * FROM trust_root ORDER BY id").map { row in
                let root = try cells(row).trustedRoot()
                return TrustRootUse(root: root, verifiedNotifications: counts[root.sha256] ?? 0)
            }
        }
    }

    @discardableResult
    public func addTrustRoot(_ root: TrustedRoot, by staff: StaffMember, at now: Instant) throws -> TrustedRoot {
        try TrustWrites.check(staff, readOnly: isReadOnly)
        return try write { db in
            // Asked first, so a refusal spends no id (an INSERT that conflicts would); ON CONFLICT below is for
            // another machine adding the same root meanwhile.
            if let id = try db.rows("SELECT id FROM trust_root WHERE sha256 = \(root.sha256)").first?.decode(Int64.self) {
                throw TrustWrites.alreadyTrusted(root, id: id)
            }
            let now = try stamp(now, in: db)
            let inserted = try db.rows(
                """
                INSERT INTO trust_root (sha256, subject, der, not_valid_before, not_valid_after, added_at, added_by)
                VALUES (\(root.sha256), \(root.subject), \(ByteBuffer(bytes: root.der)), \(root.notValidBefore.millis),
                  \(root.notValidAfter.millis), \(now.millis), \(staff.name))
                ON CONFLICT (sha256) DO NOTHING RETURNING id
                """)
            guard let id = try inserted.first?.decode(Int64.self) else {
                let id = try db.rows("SELECT id FROM trust_root WHERE sha256 = \(root.sha256)").first?.decode(Int64.self) ?? 0
                throw TrustWrites.alreadyTrusted(root, id: id)
            }
            let (stored, audit) = TrustWrites.added(root, id: id, by: staff, at: now)
            try insert(audit, db)
            return stored
        }
    }

    @discardableResult
    public func removeTrustRoot(_ key: String, by staff: StaffMember, at now: Instant) throws -> TrustedRoot {
        try TrustWrites.check(staff, readOnly: isReadOnly)
        return try write { db in
            let roots = try db.rows("SELECT * FROM trust_root ORDER BY id FOR UPDATE").map { try cells($0).trustedRoot() }
            let root = try TrustWrites.root(named: key, in: roots)
            let id = root.id ?? 0
            try db.run("DELETE FROM trust_root WHERE id = \(id)")
            try insert(TrustWrites.removed(root, id: id, by: staff, at: try stamp(now, in: db)), db)
            return root
        }
    }
}
