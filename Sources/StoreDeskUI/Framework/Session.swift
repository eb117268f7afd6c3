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

    /// Why this session may not do a developer's write (`what`: "edit the login configuration"), or nil
    /// when it may: for `:` verbs, which the keymap's `writes` and `disabledReason` do not guard.
    public func developerRefusal(_ what: String) -> String? {
        if readOnly { return "the store is open read-only" }
        return role == .developer ? nil : "only a developer may \(what)"
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
