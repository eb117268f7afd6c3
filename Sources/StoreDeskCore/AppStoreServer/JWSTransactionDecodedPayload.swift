/// Apple's `JWSTransactionDecodedPayload`: the payload of a `signedTransactionInfo` as the App Store
/// Server API and Notifications V2 send it, field for field under Apple's names
/// (https://developer.apple.com/documentation/appstoreserverapi/jwstransactiondecodedpayload).
///
/// Every field is optional, as in Apple's libraries, and a field left nil is left out of the JSON. Dates
/// are Apple's milliseconds since 1970. Advanced Commerce (`advancedCommerceInfo`) and commitment billing
/// (`billingPlanType`, `commitmentInfo`) are not modelled: StoreDesk sells neither.
///
///     let payload = JWSTransactionDecodedPayload(transaction)   // from the subscription engine's TransactionInfo
///     let jws = try chain.signTransaction(payload)               // StoreDeskTrust
public struct JWSTransactionDecodedPayload: Hashable, Sendable, Codable {
    public var originalTransactionId: String?
    public var transactionId: String?
    public var webOrderLineItemId: String?
    public var bundleId: String?
    public var productId: String?
    public var subscriptionGroupIdentifier: String?
    public var purchaseDate: Instant?
    public var originalPurchaseDate: Instant?
    public var expiresDate: Instant?
    public var quantity: Int?
    /// `Auto-Renewable Subscription`, `Non-Consumable`, `Consumable`, `Non-Renewing Subscription`.
    public var type: String?
    public var appAccountToken: String?
    /// `PURCHASED` or `FAMILY_SHARED`.
    public var inAppOwnershipType: String?
    public var signedDate: Instant?
    public var revocationReason: RevocationReason?
    public var revocationDate: Instant?
    public var isUpgraded: Bool?
    public var offerType: OfferType?
    public var offerIdentifier: String?
    /// `Sandbox`, `Production`, `Xcode`, `LocalTesting`.
    public var environment: String?
    /// The three-letter storefront country code, e.g. `USA`.
    public var storefront: String?
    public var storefrontId: String?
    /// `PURCHASE` or `RENEWAL`.
    public var transactionReason: String?
    public var currency: String?
    /// Milliunits of `currency`: 9990 is 9.99.
    public var price: Int64?
    public var offerDiscountType: OfferDiscountType?
    public var appTransactionId: String?
    /// ISO 8601 duration, e.g. `P1Y`.
    public var offerPeriod: String?
    /// `REFUND_FULL` or `REFUND_PRORATED`.
    public var revocationType: String?
    /// Thousandths of a percent refunded for a prorated refund: 50000 is 50%.
    public var revocationPercentage: Int?

    public init(
        originalTransactionId: String? = nil, transactionId: String? = nil, webOrderLineItemId: String? = nil,
        bundleId: String? = nil, productId: String? = nil, subscriptionGroupIdentifier: String? = nil,
        purchaseDate: Instant? = nil, originalPurchaseDate: Instant? = nil, expiresDate: Instant? = nil, quantity: Int? = nil,
        type: String? = nil, appAccountToken: String? = nil, inAppOwnershipType: String? = nil, signedDate: Instant? = nil,
        revocationReason: RevocationReason? = nil, revocationDate: Instant? = nil, isUpgraded: Bool? = nil,
        offerType: OfferType? = nil, offerIdentifier: String? = nil, environment: String? = nil, storefront: String? = nil,
        storefrontId: String? = nil, transactionReason: String? = nil, currency: String? = nil, price: Int64? = nil,
        offerDiscountType: OfferDiscountType? = nil, appTransactionId: String? = nil, offerPeriod: String? = nil,
        revocationType: String? = nil, revocationPercentage: Int? = nil
    ) {
        self.originalTransactionId = originalTransactionId
        self.transactionId = transactionId
        self.webOrderLineItemId = webOrderLineItemId
        self.bundleId = bundleId
        self.productId = productId
        self.subscriptionGroupIdentifier = subscriptionGroupIdentifier
        self.purchaseDate = purchaseDate
        self.originalPurchaseDate = originalPurchaseDate
        self.expiresDate = expiresDate
        self.quantity = quantity
        self.type = type
        self.appAccountToken = appAccountToken
        self.inAppOwnershipType = inAppOwnershipType
        self.signedDate = signedDate
        self.revocationReason = revocationReason
        self.revocationDate = revocationDate
        self.isUpgraded = isUpgraded
        self.offerType = offerType
        self.offerIdentifier = offerIdentifier
        self.environment = environment
        self.storefront = storefront
        self.storefrontId = storefrontId
        self.transactionReason = transactionReason
        self.currency = currency
        self.price = price
        self.offerDiscountType = offerDiscountType
        self.appTransactionId = appTransactionId
        self.offerPeriod = offerPeriod
        self.revocationType = revocationType
        self.revocationPercentage = revocationPercentage
    }

    /// The payload of a transaction the subscription engine or an import knows.
    public init(_ info: TransactionInfo) {
        self.init(
            originalTransactionId: info.originalTransactionId, transactionId: info.transactionId,
            webOrderLineItemId: info.webOrderLineItemId, bundleId: info.bundleId, productId: info.productId,
            subscriptionGroupIdentifier: info.subscriptionGroupIdentifier, purchaseDate: info.purchaseDate,
            originalPurchaseDate: info.originalPurchaseDate, expiresDate: info.expiresDate, quantity: info.quantity,
            type: info.type, appAccountToken: info.appAccountToken, inAppOwnershipType: info.inAppOwnershipType,
            signedDate: info.signedDate, revocationReason: info.revocationReason, revocationDate: info.revocationDate,
            isUpgraded: info.isUpgraded, offerType: info.offerType, offerIdentifier: info.offerIdentifier,
            environment: info.environment, storefront: info.storefront, transactionReason: info.transactionReason,
            currency: info.currency, price: info.price, offerDiscountType: info.offerDiscountType, offerPeriod: info.offerPeriod)
    }
}
