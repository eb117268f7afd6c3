import StoreDeskCore

/// Who sits at the console and what they may do.
public struct Session: Sendable, Hashable {
    public var role: StaffRole
    /// The name written to the audit log: `--as`, else `STOREDESK_ACTOR`, else the config file's `actor`,
    /// else the login name; never a placeholder.
    public var actor: String
    /// The store was opened read-only: no write action is registered.
    public var readOnly: Bool

    public init(role: StaffRole, actor: String, readOnly: Bool) {
        self.role = role
        self.actor = actor
        self.readOnly = readOnly
    }

    /// The person at the console, as the store's writes and the audit log take them.
    public var staff: StaffMember { StaffMember(name: actor, role: role) }
}
