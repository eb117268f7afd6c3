/// A game account a restored purchase can be delivered to: a player, a server (Sid) and a role on it.
///
/// One Apple ID may hold several players and each player several roles; the App Store cannot say which
/// of them paid, so support chooses one of these.
public struct RestoreAccount: Hashable, Sendable {
    public var userId: String
    public var sid: String
    public var roleId: String
    /// The role's name in the game, empty when the store does not know the role.
    public var roleName: String
    /// The Apple ID the role was played from, when the store knows it.
    public var appleId: String?

    public init(userId: String, sid: String, roleId: String, roleName: String = "", appleId: String? = nil) {
        self.userId = userId
        self.sid = sid
        self.roleId = roleId
        self.roleName = roleName
        self.appleId = appleId
    }

    public init(_ account: GameAccount) {
        self.init(
            userId: account.userId, sid: account.sid, roleId: account.roleId, roleName: account.roleName,
            appleId: account.appleId)
    }

    /// The account a transaction was bought from.
    public init(paying transaction: StoreTransaction) {
        self.init(userId: transaction.userId, sid: transaction.sid, roleId: transaction.roleId)
    }

    /// Whether both name the same role of the same player (names and Apple IDs aside).
    public func isSameRole(as other: RestoreAccount) -> Bool {
        userId == other.userId && sid == other.sid && roleId == other.roleId
    }

    /// `10000001 s7/r10000001-2`.
    public var label: String { "\(userId) \(sid)/\(roleId)" }
}
