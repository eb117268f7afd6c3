/// One subscription (an original transaction's chain) as it stands at an instant: what a support
/// screen shows and what the store persists as a `Subscription`.
public struct SubscriptionInfo: Hashable, Sendable, Identifiable {
    public var originalTransactionId: String
    /// The transaction of the current (or last) period.
    public var transactionId: String
    public var productId: String
    public var groupId: String?
    public var state: SubscriptionState
    /// Whether it will renew; always false once expired or revoked.
    public var autoRenew: Bool
    /// The product the next renewal bills: differs from `productId` while a downgrade waits.
    public var autoRenewProductId: String
    /// When the customer first subscribed in this chain.
    public var originalPurchaseDate: Instant
    /// When the current period started.
    public var purchaseDate: Instant
    /// When the current period ends (or ended).
    public var expiresDate: Instant
    /// Set while in the billing grace period: access ends then unless billing recovers.
    public var gracePeriodExpiresDate: Instant?
    /// Set during grace and billing retry: Apple gives up and the subscription expires then.
    public var billingRetryExpiresDate: Instant?
    /// Why it expired, or `.billingError` while billing is failing; nil while active.
    public var expirationIntent: ExpirationIntent?
    public var revocation: RevocationKind?
    public var revocationDate: Instant?
    public var revocationReason: RevocationReason?
    /// The offer that priced the current period; nil at the regular price.
    public var offerType: OfferType?
    public var offerId: String?
    public var offerDiscountType: OfferDiscountType?
    public var environment: String?
    public var appAccountToken: String?

    public init(
        originalTransactionId: String, transactionId: String, productId: String, groupId: String?,
        state: SubscriptionState, autoRenew: Bool, autoRenewProductId: String, originalPurchaseDate: Instant,
        purchaseDate: Instant, expiresDate: Instant, gracePeriodExpiresDate: Instant? = nil,
        billingRetryExpiresDate: Instant? = nil, expirationIntent: ExpirationIntent? = nil,
        revocation: RevocationKind? = nil, revocationDate: Instant? = nil, revocationReason: RevocationReason? = nil,
        offerType: OfferType? = nil, offerId: String? = nil, offerDiscountType: OfferDiscountType? = nil,
        environment: String? = nil, appAccountToken: String? = nil
    ) {
        self.originalTransactionId = originalTransactionId
        self.transactionId = transactionId
        self.productId = productId
        self.groupId = groupId
        self.state = state
        self.autoRenew = autoRenew
        self.autoRenewProductId = autoRenewProductId
        self.originalPurchaseDate = originalPurchaseDate
        self.purchaseDate = purchaseDate
        self.expiresDate = expiresDate
        self.gracePeriodExpiresDate = gracePeriodExpiresDate
        self.billingRetryExpiresDate = billingRetryExpiresDate
        self.expirationIntent = expirationIntent
        self.revocation = revocation
        self.revocationDate = revocationDate
        self.revocationReason = revocationReason
        self.offerType = offerType
        self.offerId = offerId
        self.offerDiscountType = offerDiscountType
        self.environment = environment
        self.appAccountToken = appAccountToken
    }

    public var id: String { originalTransactionId }

    /// Access: active, or failing billing but still inside the grace period.
    public var isEntitled: Bool { state == .active || state == .gracePeriod }

    /// Apple's status number: 1 active, 2 expired, 3 billing retry, 4 grace period, 5 revoked.
    public var appleStatus: Int { state.appleStatus }

    /// The product a waiting downgrade switches to at the next renewal.
    public var pendingProductId: String? { autoRenewProductId == productId ? nil : autoRenewProductId }

    /// The row the store keeps for this chain. The player and game come from the caller because Apple's
    /// notifications name neither.
    public func subscription(userId: String, appId: String) -> Subscription {
        Subscription(
            id: originalTransactionId, userId: userId, appId: appId, productId: productId, groupId: groupId ?? "",
            state: state, autoRenew: autoRenew, originalPurchaseDate: originalPurchaseDate,
            purchaseDate: purchaseDate, expiresDate: expiresDate, gracePeriodExpiresDate: gracePeriodExpiresDate,
            revocationDate: revocationDate, revocationReason: revocation?.rawValue,
            expirationIntent: state == .active || state == .revoked ? nil : expirationIntent?.key,
            offerType: offerType?.key, offerId: offerId, appleRevocationReason: revocationReason?.rawValue)
    }
}
