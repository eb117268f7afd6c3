/// Which audit lines to list: an action (exactly, or a family: `restore` takes `restore.confirm`), an
/// actor (exactly), and text found anywhere in the actor, action, subject or detail, ignoring case.
public struct AuditQuery: Sendable, Hashable {
    public var action: String?
    public var actor: String?
    public var text: String?

    public init(action: String? = nil, actor: String? = nil, text: String? = nil) {
        self.action = action
        self.actor = actor
        self.text = text
    }
}
