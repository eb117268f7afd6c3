/// One line of the audit trail: who did what, in which role, when.
public struct AuditEntry: Hashable, Sendable, Codable, Identifiable {
    public var id: Int64?
    public var at: Instant
    public var actor: String
    public var role: String
    public var action: String
    public var subject: String
    public var detail: String

    public init(id: Int64? = nil, at: Instant, actor: String, role: String, action: String, subject: String, detail: String) {
        self.id = id
        self.at = at
        self.actor = actor
        self.role = role
        self.action = action
        self.subject = subject
        self.detail = detail
    }
}
