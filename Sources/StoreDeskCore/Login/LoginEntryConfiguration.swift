/// Which login buttons a game's SDK shows, in order (the SDK's setLoginEntries), per app, and the
/// third-party AppIDs the integration checklist writes into the iOS project.
public struct LoginEntryConfiguration: Hashable, Sendable, Codable {
    public var appId: String
    /// nil: never configured, so the SDK's default applies. Empty: no buttons, platform login directly.
    public var entries: [LoginEntry]?
    public var updatedAt: Instant
    public var updatedBy: String
    /// The WeChat Open Platform AppID (`wx…`): a URL type of its own.
    public var weChatAppId: String?
    /// The QQ Connect AppID: the URL type `tencent{QQ AppID}`.
    public var qqAppId: String?
    /// The TapTap client id: the URL type `tt{TapTap AppID}`.
    public var tapTapClientId: String?
    /// The domain of the universal link WeChat calls back on (Associated Domains `applinks:`).
    public var universalLinkDomain: String?

    public init(
        appId: String, entries: [LoginEntry]?, updatedAt: Instant, updatedBy: String, weChatAppId: String? = nil,
        qqAppId: String? = nil, tapTapClientId: String? = nil, universalLinkDomain: String? = nil
    ) {
        self.appId = appId
        self.entries = entries
        self.updatedAt = updatedAt
        self.updatedBy = updatedBy
        self.weChatAppId = weChatAppId
        self.qqAppId = qqAppId
        self.tapTapClientId = tapTapClientId
        self.universalLinkDomain = universalLinkDomain
    }

    public enum CodingKeys: String, CodingKey {
        case entries
        case appId = "app_id"
        case updatedAt = "updated_at"
        case updatedBy = "updated_by"
        case weChatAppId = "wechat_app_id"
        case qqAppId = "qq_app_id"
        case tapTapClientId = "taptap_client_id"
        case universalLinkDomain = "universal_link_domain"
    }

    /// What the game shows: the configured list, or the SDK's default when never configured.
    public var effectiveEntries: [LoginEntry] { entries ?? LoginEntry.sdkDefault }
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
