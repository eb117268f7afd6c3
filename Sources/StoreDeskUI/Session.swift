/// Who sits at the console and what they may do.
public struct Session: Sendable, Hashable {
    public var role: ConsoleRole
    /// The name written to the audit log (`--as`, default the login name).
    public var actor: String
    /// The store was opened read-only: no write action is registered.
    public var readOnly: Bool

    public init(role: ConsoleRole, actor: String, readOnly: Bool) {
        self.role = role
        self.actor = actor
        self.readOnly = readOnly
    }
}

/// The three kinds of people who use StoreDesk.
public enum ConsoleRole: String, Sendable, Hashable, CaseIterable {
    /// Inspects users, subscriptions and queues; changes nothing.
    case `operator`
    /// Acts on restore requests and may reveal masked fields (each reveal audited).
    case support
    /// Drives simulations and edits configuration.
    case developer
}
