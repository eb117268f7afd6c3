/// One auto-renewable subscription chain, keyed by its original transaction id.
public struct Subscription: Hashable, Sendable, Codable, Identifiable {
    /// The originalTransactionId that every renewal shares.
    public var id: String
    public var userId: String
    public var appId: String
    public var productId: String
    public var groupId: String
    public var state: SubscriptionState
    public var autoRenew: Bool
    public var originalPurchaseDate: Instant
    public var purchaseDate: Instant
    public var expiresDate: Instant
    public var gracePeriodExpiresDate: Instant?
    public var revocationDate: Instant?
    /// What took it away: `refund` or `family_sharing` (a `RevocationKind`).
    public var revocationReason: String?
    public var expirationIntent: String?
    public var offerType: String?
    public var offerId: String?
    /// Real milliseconds per subscription month for a demo chain driven at an accelerated `TimeRate`, nil
    /// for real time (imported and seeded chains). Kept with the row so whoever plays the chain forward
    /// later (`subs`, the screens, a demo stopped mid-retry) scales billing retry as the demo did.
    public var timeRateMillisPerMonth: Int64?
    /// Apple's `revocationReason` for a refund (0 other, 1 an issue in the app), kept beside the kind so
    /// a row read back says why Apple refunded, as the notification did.
    public var appleRevocationReason: Int?

    public init(
        id: String, userId: String, appId: String, productId: String, groupId: String, state: SubscriptionState,
        autoRenew: Bool, originalPurchaseDate: Instant, purchaseDate: Instant, expiresDate: Instant,
        gracePeriodExpiresDate: Instant? = nil, revocationDate: Instant? = nil, revocationReason: String? = nil,
        expirationIntent: String? = nil, offerType: String? = nil, offerId: String? = nil, timeRate: TimeRate = .realTime,
        appleRevocationReason: Int? = nil
    ) {
        self.id = id
        self.userId = userId
        self.appId = appId
        self.productId = productId
        self.groupId = groupId
        self.state = state
        self.autoRenew = autoRenew
        self.originalPurchaseDate = originalPurchaseDate
        self.purchaseDate = purchaseDate
        self.expiresDate = expiresDate
        self.gracePeriodExpiresDate = gracePeriodExpiresDate
        self.revocationDate = revocationDate
        self.revocationReason = revocationReason
        self.expirationIntent = expirationIntent
        self.offerType = offerType
        self.offerId = offerId
        self.timeRateMillisPerMonth = timeRate.realMillisPerMonth
        self.appleRevocationReason = appleRevocationReason
    }

    public enum CodingKeys: String, CodingKey {
        case id = "original_transaction_id"
        case state
        case userId = "user_id"
        case appId = "app_id"
        case productId = "product_id"
        case groupId = "group_id"
        case autoRenew = "auto_renew"
        case originalPurchaseDate = "original_purchase_date"
        case purchaseDate = "purchase_date"
        case expiresDate = "expires_date"
        case gracePeriodExpiresDate = "grace_period_expires_date"
        case revocationDate = "revocation_date"
        case revocationReason = "revocation_reason"
        case expirationIntent = "expiration_intent"
        case offerType = "offer_type"
        case offerId = "offer_id"
        case timeRateMillisPerMonth = "time_rate_month_ms"
        case appleRevocationReason = "apple_revocation_reason"
    }

    /// The rate the chain's time runs at: real time unless a demo drove it faster.
    public var timeRate: TimeRate {
        get { TimeRate(realMillisPerMonth: timeRateMillisPerMonth) }
        set { timeRateMillisPerMonth = newValue.realMillisPerMonth }
    }

    /// Whether the player has access: active, or in the billing grace period.
    public var isEntitled: Bool { state == .active || state == .gracePeriod }
}

/// The states an operator sees; `appleStatus` is the number Apple's Get Subscription Status returns.
public enum SubscriptionState: String, Hashable, Sendable, Codable, CaseIterable {
    case active
    case gracePeriod = "grace_period"
    case billingRetry = "billing_retry"
    case expired
    case revoked

    public var appleStatus: Int {
        switch self {
        case .active: 1
        case .expired: 2
        case .billingRetry: 3
        case .gracePeriod: 4
        case .revoked: 5
        }
    }

    public var name: String {
        switch self {
        case .active: "active"
        case .gracePeriod: "grace period"
        case .billingRetry: "billing retry"
        case .expired: "expired"
        case .revoked: "refunded"
        }
    }
}
