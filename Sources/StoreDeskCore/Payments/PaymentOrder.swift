/// The platform's order for one paid transaction: what the game server's callback is about.
///
/// `order_id` is unique: the game server de-duplicates callbacks by it.
public struct PaymentOrder: Hashable, Sendable, Codable, Identifiable {
    public var id: String
    public var transactionId: String
    public var appId: String
    public var userId: String
    public var productId: String
    /// `appstore`, or another payment channel.
    public var payment: String
    /// Production or Sandbox for App Store payments.
    public var subPayment: String
    public var amountCents: Int
    public var sid: String
    public var roleId: String
    public var appOrderId: String
    public var ext: String
    public var createdAt: Instant
    public var status: OrderStatus

    public init(
        id: String, transactionId: String, appId: String, userId: String, productId: String,
        payment: String = "appstore", subPayment: String = "Production", amountCents: Int, sid: String,
        roleId: String = "", appOrderId: String = "", ext: String = "", createdAt: Instant, status: OrderStatus
    ) {
        self.id = id
        self.transactionId = transactionId
        self.appId = appId
        self.userId = userId
        self.productId = productId
        self.payment = payment
        self.subPayment = subPayment
        self.amountCents = amountCents
        self.sid = sid
        self.roleId = roleId
        self.appOrderId = appOrderId
        self.ext = ext
        self.createdAt = createdAt
        self.status = status
    }

    public enum CodingKeys: String, CodingKey {
        case id = "order_id"
        case payment, sid, ext, status
        case transactionId = "transaction_id"
        case appId = "app_id"
        case userId = "user_id"
        case productId = "product_id"
        case subPayment = "sub_payment"
        case amountCents = "amount_cents"
        case roleId = "role_id"
        case appOrderId = "app_order_id"
        case createdAt = "created_at"
    }
}

public enum OrderStatus: String, Hashable, Sendable, Codable, CaseIterable {
    /// Paid; the callback has not been accepted yet.
    case pending
    /// The game server accepted the callback and granted.
    case granted
}

/// What the game server gave for an order. At most one grant per order.
public struct Grant: Hashable, Sendable, Codable, Identifiable {
    public var id: Int64?
    public var orderId: String
    public var userId: String
    public var sid: String
    public var roleId: String
    public var productId: String
    public var quantity: Int
    public var kind: GrantKind
    /// Game currency granted when the payment's gold did not match a product price.
    public var currencyAmount: Int
    public var source: GrantSource
    public var grantedAt: Instant

    public init(
        id: Int64? = nil, orderId: String, userId: String, sid: String, roleId: String, productId: String,
        quantity: Int, kind: GrantKind, currencyAmount: Int = 0, source: GrantSource, grantedAt: Instant
    ) {
        self.id = id
        self.orderId = orderId
        self.userId = userId
        self.sid = sid
        self.roleId = roleId
        self.productId = productId
        self.quantity = quantity
        self.kind = kind
        self.currencyAmount = currencyAmount
        self.source = source
        self.grantedAt = grantedAt
    }

    public enum CodingKeys: String, CodingKey {
        case id, sid, quantity, kind, source
        case orderId = "order_id"
        case userId = "user_id"
        case roleId = "role_id"
        case productId = "product_id"
        case currencyAmount = "currency_amount"
        case grantedAt = "granted_at"
    }
}

public enum GrantKind: String, Hashable, Sendable, Codable, CaseIterable {
    /// The product itself (App Store payments, or gold equal to the product's price).
    case product
    /// Game currency converted from gold at the app's rate.
    case currency
}

public enum GrantSource: String, Hashable, Sendable, Codable, CaseIterable {
    case purchase
    case restore
}
