import StoreDeskCore

/// What every backend decides the same way when the trusted roots change: who may, which root a key
/// names, what a root already trusted says, and the audit lines.
public enum TrustWrites {
    /// Refuses a change of the roots by anyone but a developer, or on a read-only store.
    public static func check(_ staff: StaffMember, readOnly: Bool) throws {
        guard !readOnly else { throw StoreError.invalidArgument("the store is open read-only: the trusted roots were not changed") }
        if let refusal = staff.refusal(.editTrustRoots) { throw StoreError.invalidArgument(refusal + ": use --role developer") }
    }

    /// The refusal of a root trusted already (as root `id`).
    public static func alreadyTrusted(_ root: TrustedRoot, id: Int64) -> StoreError {
        StoreError.invalidArgument("already trusted as root \(id) (\(root.subject), SHA-256 \(TrustedRoot.spaced(root.sha256)))")
    }

    /// The one root `key` names among `roots`: its id, or a prefix of its SHA-256 of at least 8 hex digits.
    public static func root(named key: String, in roots: [TrustedRoot]) throws -> TrustedRoot {
        let lowered = key.lowercased()
        let matches = roots.filter { root in
            if let id = Int64(key) { return root.id == id }
            return lowered.count >= 8 && root.sha256.hasPrefix(lowered)
        }
        guard let root = matches.first, matches.count == 1, root.id != nil else {
            throw StoreError.invalidArgument(
                matches.isEmpty
                    ? "no trusted root \(key): `storedesk trust list` shows their ids"
                    : "\(key) names \(matches.count) roots: give more of the SHA-256, or the id")
        }
        return root
    }

    /// The root as stored (its id, when and by whom), and the audit line of its adding.
    public static func added(_ root: TrustedRoot, id: Int64, by staff: StaffMember, at now: Instant) -> (root: TrustedRoot, audit: AuditEntry) {
        var stored = root
        stored.id = id
        stored.addedAt = now
        stored.addedBy = staff.name
        return (stored, audit("trust.root.add", root, id: id, by: staff, at: now))
    }

    /// The audit line of a root no longer trusted.
    public static func removed(_ root: TrustedRoot, id: Int64, by staff: StaffMember, at now: Instant) -> AuditEntry {
        audit("trust.root.remove", root, id: id, by: staff, at: now)
    }

    private static func audit(_ action: String, _ root: TrustedRoot, id: Int64, by staff: StaffMember, at now: Instant) -> AuditEntry {
        AuditEntry(
            at: now, actor: staff.name, role: staff.role.rawValue, action: action, subject: "root \(id)",
            detail: "\(root.subject), SHA-256 \(root.sha256)")
    }
}
