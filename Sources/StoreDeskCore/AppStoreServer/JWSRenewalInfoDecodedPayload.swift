/// Apple's `JWSRenewalInfoDecodedPayload`: the payload of a `signedRenewalInfo`, under Apple's names
/// (https://developer.apple.com/documentation/appstoreserverapi/jwsrenewalinfodecodedpayload).
///
/// Every field is optional and left out of the JSON when nil; dates are milliseconds. Advanced Commerce
/// and commitment billing (`advancedCommerceInfo`, `commitmentInfo`, `renewalBillingPlanType`) are not
/// modelled.
///
///     let jws = try chain.signRenewalInfo(JWSRenewalInfoDecodedPayload(renewal))
public struct JWSRenewalInfoDecodedPayload: Hashable, Sendable, Codable {
    public var expirationIntent: ExpirationIntent?
    public var originalTransactionId: String?
    public var autoRenewProductId: String?
    public var productId: String?
    /// 1 on, 0 off.
    public var autoRenewStatus: Int?
    public var isInBillingRetryPeriod: Bool?
    /// 0 not yet consented to a price increase, 1 consented.
    public var priceIncreaseStatus: Int?
    public var gracePeriodExpiresDate: Instant?
    public var offerType: OfferType?
    public var offerIdentifier: String?
    public var signedDate: Instant?
    public var environment: String?
    public var recentSubscriptionStartDate: Instant?
    public var renewalDate: Instant?
    public var currency: String?
    /// Milliunits of `currency`.
    public var renewalPrice: Int64?
    public var offerDiscountType: OfferDiscountType?
    public var eligibleWinBackOfferIds: [String]?
    public var appAccountToken: String?
    public var appTransactionId: String?
    public var offerPeriod: String?

    public init(
        expirationIntent: ExpirationIntent? = nil, originalTransactionId: String? = nil, autoRenewProductId: String? = nil,
        productId: String? = nil, autoRenewStatus: Int? = nil, isInBillingRetryPeriod: Bool? = nil,
        priceIncreaseStatus: Int? = nil, gracePeriodExpiresDate: Instant? = nil, offerType: OfferType? = nil,
        offerIdentifier: String? = nil, signedDate: Instant? = nil, environment: String? = nil,
        recentSubscriptionStartDate: Instant? = nil, renewalDate: Instant? = nil, currency: String? = nil,
        renewalPrice: Int64? = nil, offerDiscountType: OfferDiscountType? = nil, eligibleWinBackOfferIds: [String]? = nil,
        appAccountToken: String? = nil, appTransactionId: String? = nil, offerPeriod: String? = nil
    ) {
        self.expirationIntent = expirationIntent
        self.originalTransactionId = originalTransactionId
        self.autoRenewProductId = autoRenewProductId
        self.productId = productId
        self.autoRenewStatus = autoRenewStatus
        self.isInBillingRetryPeriod = isInBillingRetryPeriod
        self.priceIncreaseStatus = priceIncreaseStatus
        self.gracePeriodExpiresDate = gracePeriodExpiresDate
        self.offerType = offerType
        self.offerIdentifier = offerIdentifier
        self.signedDate = signedDate
        self.environment = environment
        self.recentSubscriptionStartDate = recentSubscriptionStartDate
        self.renewalDate = renewalDate
        self.currency = currency
        self.renewalPrice = renewalPrice
        self.offerDiscountType = offerDiscountType
        self.eligibleWinBackOfferIds = eligibleWinBackOfferIds
        self.appAccountToken = appAccountToken
        self.appTransactionId = appTransactionId
        self.offerPeriod = offerPeriod
    }

    /// The payload of a renewal info the subscription engine or an import knows.
    public init(_ info: RenewalInfo) {
        self.init(
            expirationIntent: info.expirationIntent, originalTransactionId: info.originalTransactionId,
            autoRenewProductId: info.autoRenewProductId, productId: info.productId, autoRenewStatus: info.autoRenewStatus,
            isInBillingRetryPeriod: info.isInBillingRetryPeriod, priceIncreaseStatus: info.priceIncreaseStatus,
            gracePeriodExpiresDate: info.gracePeriodExpiresDate, offerType: info.offerType,
            offerIdentifier: info.offerIdentifier, signedDate: info.signedDate, environment: info.environment,
            recentSubscriptionStartDate: info.recentSubscriptionStartDate, renewalDate: info.renewalDate,
            currency: info.currency, renewalPrice: info.renewalPrice, offerDiscountType: info.offerDiscountType)
    }
}
