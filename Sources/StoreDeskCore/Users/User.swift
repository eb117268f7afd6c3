/// A player as the platform's user-info API describes one.
///
/// Field names follow the platform (`friendly_name`, `adult_type`, `authoriz_state`, ...), so the JSON a
/// script gets from `storedesk user show --json` reads like the SDK's own user object.
public struct User: Hashable, Sendable, Codable, Identifiable {
    public var id: String
    public var name: String
    public var friendlyName: String
    /// Stored only masked: the store never holds a full ID-card number.
    public var idCard: String
    public var phone: String
    public var site: Site
    public var adultType: AdultType
    /// Whether anti-addiction (防沉迷) rules apply to this player.
    public var fcm: Bool
    /// 0: not real-name verified; above 0: verified.
    public var authorizState: Int
    public var safety: Int
    public var clientId: String
    public var createdAt: Instant

    public init(
        id: String, name: String, friendlyName: String, idCard: String, phone: String, site: Site,
        adultType: AdultType, fcm: Bool, authorizState: Int, safety: Int, clientId: String, createdAt: Instant
    ) {
        self.id = id
        self.name = name
        self.friendlyName = friendlyName
        self.idCard = idCard
        self.phone = phone
        self.site = site
        self.adultType = adultType
        self.fcm = fcm
        self.authorizState = authorizState
        self.safety = safety
        self.clientId = clientId
        self.createdAt = createdAt
    }

    public enum CodingKeys: String, CodingKey {
        case id, name, phone, site, fcm, safety
        case friendlyName = "friendly_name"
        case idCard = "id_card"
        case adultType = "adult_type"
        case authorizState = "authoriz_state"
        case clientId = "client_id"
        case createdAt = "created_at"
    }

    /// The platform marks a guest account by giving it its id as its name.
    public var isGuest: Bool { name == id }

    public var isRealNameVerified: Bool { authorizState > 0 }

    /// The phone number as shown to anyone who has not revealed it.
    public var maskedPhone: String { phone.isEmpty ? "" : Masking.phone(phone) }

    /// What to call the player on screen: the friendly name, else the name.
    public var displayName: String { friendlyName.isEmpty ? name : friendlyName }
}

/// The account type a player logged in with (`site` in the platform's user info).
public enum Site: Int, Hashable, Sendable, Codable, CaseIterable {
    case veryCD = 0
    case platform = 1
    case qq = 3
    case weChat = 8
    case tapTap = 9
    case apple = 10

    public var name: String {
        switch self {
        case .veryCD: "VeryCD"
        case .platform: "Platform"
        case .qq: "QQ"
        case .weChat: "WeChat"
        case .tapTap: "TapTap"
        case .apple: "Apple"
        }
    }

    /// What an account type is, where its name alone does not say (shown beside it on a player's page).
    public var explanation: String? {
        switch self {
        case .veryCD: "the platform's own legacy account (VeryCD, its first login); guest logins have it too"
        case .platform: "an account of the platform itself (its phone or password login)"
        default: nil
        }
    }
}

/// The platform's age band (`adult_type`), which drives anti-addiction limits.
public enum AdultType: Int, Hashable, Sendable, Codable, CaseIterable {
    case unverified = 0
    case age0to8 = 1
    case age8to16 = 2
    case age16to18 = 3
    case adult = 4

    public var name: String {
        switch self {
        case .unverified: "not verified"
        case .age0to8: "age 0-8"
        case .age8to16: "age 8-16"
        case .age16to18: "age 16-18"
        case .adult: "adult"
        }
    }
}
