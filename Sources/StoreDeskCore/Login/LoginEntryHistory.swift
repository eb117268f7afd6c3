/// One change of a game's login entries: who, in which role, when, from which surface (`cli`, `console`),
/// and the list before and after (nil: unconfigured, the SDK's default).
public struct LoginEntryHistory: Hashable, Sendable, Codable, Identifiable {
    public var id: Int64?
    public var appId: String
    public var at: Instant
    public var actor: String
    public var role: String
    public var surface: String
    public var oldEntries: [LoginEntry]?
    public var newEntries: [LoginEntry]?

    public init(
        id: Int64? = nil, appId: String, at: Instant, actor: String, role: String, surface: String, oldEntries: [LoginEntry]?,
        newEntries: [LoginEntry]?
    ) {
        self.id = id
        self.appId = appId
        self.at = at
        self.actor = actor
        self.role = role
        self.surface = surface
        self.oldEntries = oldEntries
        self.newEntries = newEntries
    }

    public enum CodingKeys: String, CodingKey {
        case id, at, actor, role, surface
        case appId = "app_id"
        case oldEntries = "old_entries"
        case newEntries = "new_entries"
    }

    /// `APPLE_LOGIN,WX_LOGIN`, `(empty)` or `(SDK default)`: how a list reads in history and the audit log.
    public static func text(_ entries: [LoginEntry]?) -> String {
        guard let entries else { return "(SDK default)" }
        return entries.isEmpty ? "(empty)" : entries.map(\.rawValue).joined(separator: ",")
    }

    /// `WX_LOGIN,QQ_LOGIN → APPLE_LOGIN,WX_LOGIN`.
    public var change: String { "\(Self.text(oldEntries)) → \(Self.text(newEntries))" }
}
