/// Which login buttons a game's SDK shows, in order (the SDK's setLoginEntries), per app.
public struct LoginEntryConfiguration: Hashable, Sendable, Codable {
    public var appId: String
    /// nil: never configured, so the SDK's default applies. Empty: no buttons, platform login directly.
    public var entries: [LoginEntry]?
    public var updatedAt: Instant
    public var updatedBy: String

    public init(appId: String, entries: [LoginEntry]?, updatedAt: Instant, updatedBy: String) {
        self.appId = appId
        self.entries = entries
        self.updatedAt = updatedAt
        self.updatedBy = updatedBy
    }

    public enum CodingKeys: String, CodingKey {
        case entries
        case appId = "app_id"
        case updatedAt = "updated_at"
        case updatedBy = "updated_by"
    }
}

/// The login entries the SDK knows, by the SDK's constant names.
public enum LoginEntry: String, Hashable, Sendable, Codable, CaseIterable {
    case apple = "APPLE_LOGIN"
    case weChat = "WX_LOGIN"
    case tapTap = "TAPTAP_LOGIN"
    case qq = "QQ_LOGIN"
    case guest = "GUEST_LOGIN"
    case platform = "XD_LOGIN"

    /// What the SDK shows with no configuration.
    public static let sdkDefault: [LoginEntry] = [.weChat, .qq, .guest, .apple, .tapTap]
}
