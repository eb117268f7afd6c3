import StoreDeskCore

/// Which audit lines to list: an action (exactly, or a family: `restore` takes `restore.confirm`), an
/// actor (exactly), and text found anywhere in the actor, action, subject or detail, ignoring case.
public struct AuditQuery: Sendable, Hashable {
    public var action: String?
    public var actor: String?
    public var text: String?
    /// Oldest first (the list runs newest first otherwise), on the same sequence.
    public var oldestFirst: Bool

    public init(action: String? = nil, actor: String? = nil, text: String? = nil, oldestFirst: Bool = false) {
        self.action = action
        self.actor = actor
        self.text = text
        self.oldestFirst = oldestFirst
    }
}

extension AuditEntry {
    /// The audit line that says `staff` saw a player's phone number in the clear on `surface`, and why
    /// (a ticket, a caller's check: one line, as a support action's reason); refused (nothing to write)
    /// for any role but support, or without a reason. Every backend writes this line as it is.
    public static func phoneReveal(userId: String, by staff: StaffMember, at now: Instant, surface: String, reason: String) throws -> AuditEntry {
        if let refusal = staff.refusal(.revealPhone) { throw StoreError.invalidArgument(refusal) }
        if let problem = AppleSupport.reasonProblem(reason) { throw StoreError.invalidArgument(problem) }
        return AuditEntry(
            at: now, actor: staff.name, role: staff.role.rawValue, action: "reveal.phone", subject: "user \(userId)",
            detail: "phone revealed on \(surface): \(reason.trimmingCharacters(in: .whitespaces))")
    }
}
