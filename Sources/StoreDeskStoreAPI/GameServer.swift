import StoreDeskCore

/// A callback `storedesk serve` received whose body verified against its app's AppKey, ready for the
/// game server's decision (de-duplication needs the store, so it is made inside the write).
public struct ReceivedCallback: Sendable {
    public var app: App
    /// The app's catalogue, for what a payment grants.
    public var products: [Product]
    public var verification: CallbackVerification
    public var body: String
    /// Who sent it (`127.0.0.1:53122`), for the log and the row.
    public var peer: String
    /// When it arrived, on the store's time line (`GameServerLedger.now`). A callback the ledger commits
    /// is stamped at its commit's instant instead (`StoreMeta.stamp`), never before the store's latest stamp.
    public var receivedAt: Instant

    public init(app: App, products: [Product], verification: CallbackVerification, body: String, peer: String, receivedAt: Instant) {
        self.app = app
        self.products = products
        self.verification = verification
        self.body = body
        self.peer = peer
        self.receivedAt = receivedAt
    }
}

/// One grant of the game server `storedesk serve` plays.
public struct GameServerGrant: Hashable, Sendable, Codable {
    public var appId: String
    public var orderId: String
    public var userId: String
    public var sid: String
    public var roleId: String
    public var productId: String
    public var kind: String
    public var currencyAmount: Int
    public var grantedAt: Instant

    public init(
        appId: String, orderId: String, userId: String, sid: String, roleId: String, productId: String, kind: String,
        currencyAmount: Int, grantedAt: Instant
    ) {
        self.appId = appId
        self.orderId = orderId
        self.userId = userId
        self.sid = sid
        self.roleId = roleId
        self.productId = productId
        self.kind = kind
        self.currencyAmount = currencyAmount
        self.grantedAt = grantedAt
    }

    public enum CodingKeys: String, CodingKey {
        case sid, kind
        case appId = "app_id"
        case orderId = "order_id"
        case userId = "user_id"
        case roleId = "role_id"
        case productId = "product_id"
        case currencyAmount = "currency_amount"
        case grantedAt = "granted_at"
    }
}
