/// An App Store payment transaction as the queue and the store keep it.
public struct StoreTransaction: Hashable, Sendable, Codable, Identifiable {
    /// The App Store's transactionIdentifier.
    public var id: String
    public var originalTransactionId: String
    public var userId: String
    public var appId: String
    public var productId: String
    public var quantity: Int
    public var state: TransactionState
    public var failureReason: FailureReason?
    public var environment: StoreEnvironment
    public var sid: String
    public var roleId: String
    /// The game's own OrderId from the purchase request (`app_order_id` in the callback).
    public var appOrderId: String
    public var ext: String
    public var purchaseDate: Instant
    public var expiresDate: Instant?
    public var revocationDate: Instant?
    public var revocationReason: String?
    public var finished: Bool

    public init(
        id: String, originalTransactionId: String, userId: String, appId: String, productId: String,
        quantity: Int = 1, state: TransactionState, failureReason: FailureReason? = nil,
        environment: StoreEnvironment = .production, sid: String, roleId: String = "", appOrderId: String = "",
        ext: String = "", purchaseDate: Instant, expiresDate: Instant? = nil, revocationDate: Instant? = nil,
        revocationReason: String? = nil, finished: Bool
    ) {
        self.id = id
        self.originalTransactionId = originalTransactionId
        self.userId = userId
        self.appId = appId
        self.productId = productId
        self.quantity = quantity
        self.state = state
        self.failureReason = failureReason
        self.environment = environment
        self.sid = sid
        self.roleId = roleId
        self.appOrderId = appOrderId
        self.ext = ext
        self.purchaseDate = purchaseDate
        self.expiresDate = expiresDate
        self.revocationDate = revocationDate
        self.revocationReason = revocationReason
        self.finished = finished
    }

    public enum CodingKeys: String, CodingKey {
        case id, quantity, state, environment, sid, ext, finished
        case originalTransactionId = "original_transaction_id"
        case userId = "user_id"
        case appId = "app_id"
        case productId = "product_id"
        case failureReason = "failure_reason"
        case roleId = "role_id"
        case appOrderId = "app_order_id"
        case purchaseDate = "purchase_date"
        case expiresDate = "expires_date"
        case revocationDate = "revocation_date"
        case revocationReason = "revocation_reason"
    }

    /// Paid for but never finished: the client went away before delivering. Comes back as a restore prompt.
    public var isDropped: Bool { state == .purchased && !finished }
}

/// SKPaymentTransactionState, as the queue shows it.
public enum TransactionState: String, Hashable, Sendable, Codable, CaseIterable {
    case purchasing
    case purchased
    case failed
    case restored
    case deferred

    /// Only these may be finished; finishing anything else is refused.
    public var mayFinish: Bool { self == .purchased || self == .failed || self == .restored }
}

/// Why a payment failed, in StoreKit's words (SKError codes).
public enum FailureReason: String, Hashable, Sendable, Codable, CaseIterable {
    case cancelled = "payment_cancelled"
    case paymentInvalid = "payment_invalid"
    case notAllowed = "payment_not_allowed"
    case productUnavailable = "product_unavailable"
    case declined = "ask_to_buy_declined"
    case networkError = "cloud_service_network_connection_failed"
    case unknown

    public var sentence: String {
        switch self {
        case .cancelled: "the player cancelled the payment"
        case .paymentInvalid: "the payment parameters were not recognised"
        case .notAllowed: "this device is not allowed to make payments"
        case .productUnavailable: "the product is not available in this storefront"
        case .declined: "Ask to Buy was declined"
        case .networkError: "the device could not reach the App Store"
        case .unknown: "an unknown error occurred"
        }
    }
}

/// Production or Sandbox, as App Store receipts and callbacks name them.
public enum StoreEnvironment: String, Hashable, Sendable, Codable, CaseIterable {
    case production = "Production"
    case sandbox = "Sandbox"
}
