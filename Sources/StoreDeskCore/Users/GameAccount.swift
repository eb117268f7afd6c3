/// One game account (a role on a server) reachable from an Apple ID.
///
/// One Apple ID may hold several game accounts; the App Store cannot tell which of them paid, which is
/// why restores need a person to choose.
public struct GameAccount: Hashable, Sendable, Codable, Identifiable {
    public var id: Int64?
    /// The Apple ID (an opaque account reference) this game account was played from.
    public var appleId: String
    public var userId: String
    public var appId: String
    /// Server id (Sid).
    public var sid: String
    public var roleId: String
    public var roleName: String
    /// The UUID the game sets as `appAccountToken` at purchase; App Store notifications carry it back.
    public var appAccountToken: String

    public init(
        id: Int64? = nil, appleId: String, userId: String, appId: String, sid: String, roleId: String,
        roleName: String, appAccountToken: String
    ) {
        self.id = id
        self.appleId = appleId
        self.userId = userId
        self.appId = appId
        self.sid = sid
        self.roleId = roleId
        self.roleName = roleName
        self.appAccountToken = appAccountToken
    }

    public enum CodingKeys: String, CodingKey {
        case id, sid
        case appleId = "apple_id"
        case userId = "user_id"
        case appId = "app_id"
        case roleId = "role_id"
        case roleName = "role_name"
        case appAccountToken = "app_account_token"
    }
}
