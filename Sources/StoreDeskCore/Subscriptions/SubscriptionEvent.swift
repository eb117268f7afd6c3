import Foundation

/// One App Store Server Notification V2, decoded: what happened to a subscription, when Apple signed it,
/// and the transaction and renewal info Apple attached.
///
/// The timeline folds these in the order of their own dates, so notifications that arrive late, twice
/// or shuffled give the same result. Field names are Apple's, so a decoded-notification JSON line
/// decodes straight into this type:
///
///     let event = try SubscriptionEvent.decode(jsonLine: line)
///     event.appleName  // "DID_FAIL_TO_RENEW/GRACE_PERIOD"
public struct SubscriptionEvent: Hashable, Sendable, Identifiable {
    public var notificationType: NotificationType
    public var subtype: NotificationSubtype?
    /// Apple resends a notification with the same UUID until the server acknowledges it; the timeline
    /// uses it to skip repeats.
    public var notificationUUID: String
    /// When Apple signed the notification: the date the timeline orders by.
    public var signedDate: Instant
    public var version: String?
    public var appAppleId: Int64?
    public var bundleId: String?
    public var bundleVersion: String?
    /// `Production`, `Sandbox`, `Xcode` or `LocalTesting`; a string so Xcode's values decode too.
    public var environment: String?
    /// Apple's subscription status (1...5) when the notification carries it.
    public var status: Int?
    /// The decoded `signedTransactionInfo`.
    public var transaction: TransactionInfo?
    /// The decoded `signedRenewalInfo`.
    public var renewal: RenewalInfo?
    /// Where the event came from and how far it is trusted; not part of Apple's JSON.
    public var provenance: Provenance
    /// Who signed it, when `provenance` is `.verified`: the trusted root and the leaf certificate.
    public var signer: Signer?
    /// How the store came by it, as its `source` says (a file, `serve`, `support`), when read back from a
    /// store: not what the notification says, so not part of its identity (`Origin` is equal to any).
    public var origin = Origin()

    public init(
        notificationType: NotificationType, subtype: NotificationSubtype? = nil, notificationUUID: String,
        signedDate: Instant, version: String? = "2.0", appAppleId: Int64? = nil, bundleId: String? = nil,
        bundleVersion: String? = nil, environment: String? = nil, status: Int? = nil,
        transaction: TransactionInfo? = nil, renewal: RenewalInfo? = nil, provenance: Provenance = .decodedJSON,
        signer: Signer? = nil
    ) {
        self.notificationType = notificationType
        self.subtype = subtype
        self.notificationUUID = notificationUUID
        self.signedDate = signedDate
        self.version = version
        self.appAppleId = appAppleId
        self.bundleId = bundleId
        self.bundleVersion = bundleVersion
        self.environment = environment
        self.status = status
        self.transaction = transaction
        self.renewal = renewal
        self.provenance = provenance
        self.signer = signer
    }

    public var id: String { notificationUUID }

    /// Where a stored notification came from: the store's `source` for it. Two origins are always equal,
    /// so an event read back from a store equals the event that was written.
    public struct Origin: Hashable, Sendable {
        public var source: String?
        public init(source: String? = nil) { self.source = source }
        public static func == (_: Origin, _: Origin) -> Bool { true }
        public func hash(into hasher: inout Hasher) {}

        /// The source of a notification a support action wrote (a refund, its reversal, an extension).
        public static let support = "support"
    }

    /// Whether support wrote it (`storedesk support`, `F`, `U`, `E` on Subscriptions), as Apple would
    /// have sent it for the action: not simulated, not a notification that came from Apple.
    public var isSupportAction: Bool { origin.source == Origin.support }

    /// `SUBSCRIBED/INITIAL_BUY`, `DID_RENEW`: the name Apple's documentation and logs use.
    public var appleName: String {
        guard let subtype else { return notificationType.rawValue }
        return notificationType.rawValue + "/" + subtype.rawValue
    }

    /// The subscription chain this event belongs to.
    public var originalTransactionId: String? {
        transaction?.originalTransactionId ?? renewal?.originalTransactionId
    }

    /// How far an event is trusted: whether Apple's signature was verified, and if not, why not.
    public enum Provenance: String, Hashable, Sendable, Codable, CaseIterable {
        /// Signed, and verified as Apple's App Store Server Library verifies it: the chain to a configured
        /// root at the signing date, Apple's OIDs, the ES256 signature, then the app (`signer` says who).
        case verified
        /// Plain decoded-notification JSON; there was no signature to check.
        case decodedJSON = "decoded_json"
        /// Signed, but the signature was not verified: the operator took it with `--allow-unverified`
        /// (no trusted root), or it was imported before StoreDesk verified signatures.
        case unverifiedJWS = "unverified_jws"
        /// From Xcode or StoreKit local testing (environment `Xcode` or `LocalTesting`): not signed by the
        /// App Store, so, as Apple's library does, decoded without a signature check.
        case storeKitTesting = "storekit_testing"
        /// Made by `SubscriptionSimulation`, never seen by Apple.
        case simulated

        /// Whether the App Store's signature was checked and held.
        public var isVerified: Bool { self == .verified }

        /// One word or two, for counts: `14 verified, 3 decoded`.
        public var shortLabel: String {
            switch self {
            case .verified: "verified"
            case .decodedJSON: "decoded"
            case .unverifiedJWS: "UNVERIFIED"
            case .storeKitTesting: "StoreKit testing"
            case .simulated: "simulated"
            }
        }

        /// How the console and `subs` say it, short.
        public var label: String {
            switch self {
            case .verified: "verified"
            case .decodedJSON: "decoded, not signed"
            case .unverifiedJWS: "signed, NOT verified"
            case .storeKitTesting: "StoreKit testing, not signed by the App Store"
            case .simulated: "simulated"
            }
        }
    }
}

/// The decoded `signedTransactionInfo` (Apple's JWSTransactionDecodedPayload) of a subscription
/// transaction. Each renewal is a new transaction sharing `originalTransactionId`.
public struct TransactionInfo: Hashable, Sendable, Codable {
    public var transactionId: String
    public var originalTransactionId: String
    public var productId: String
    public var subscriptionGroupIdentifier: String?
    public var bundleId: String?
    public var purchaseDate: Instant
    public var originalPurchaseDate: Instant?
    public var expiresDate: Instant?
    public var revocationDate: Instant?
    public var revocationReason: RevocationReason?
    public var offerType: OfferType?
    public var offerIdentifier: String?
    public var offerDiscountType: OfferDiscountType?
    /// ISO 8601 duration of the offer, e.g. `P1W`.
    public var offerPeriod: String?
    public var environment: String?
    /// The UUID the app attached to the purchase to name its own account.
    public var appAccountToken: String?
    /// `PURCHASE` or `RENEWAL`.
    public var transactionReason: String?
    /// `PURCHASED` or `FAMILY_SHARED`.
    public var inAppOwnershipType: String?
    /// `Auto-Renewable Subscription`.
    public var type: String?
    /// Price in milliunits of `currency` (9990 for 9.99), as Apple sends it.
    public var price: Int64?
    public var currency: String?
    public var storefront: String?
    public var quantity: Int?
    public var isUpgraded: Bool?
    public var webOrderLineItemId: String?
    public var signedDate: Instant?

    public init(
        transactionId: String, originalTransactionId: String, productId: String,
        subscriptionGroupIdentifier: String? = nil, bundleId: String? = nil, purchaseDate: Instant,
        originalPurchaseDate: Instant? = nil, expiresDate: Instant? = nil, revocationDate: Instant? = nil,
        revocationReason: RevocationReason? = nil, offerType: OfferType? = nil, offerIdentifier: String? = nil,
        offerDiscountType: OfferDiscountType? = nil, offerPeriod: String? = nil, environment: String? = nil,
        appAccountToken: String? = nil, transactionReason: String? = nil, inAppOwnershipType: String? = nil,
        type: String? = "Auto-Renewable Subscription", price: Int64? = nil, currency: String? = nil,
        storefront: String? = nil, quantity: Int? = 1, isUpgraded: Bool? = nil, webOrderLineItemId: String? = nil,
        signedDate: Instant? = nil
    ) {
        self.transactionId = transactionId
        self.originalTransactionId = originalTransactionId
        self.productId = productId
        self.subscriptionGroupIdentifier = subscriptionGroupIdentifier
        self.bundleId = bundleId
        self.purchaseDate = purchaseDate
        self.originalPurchaseDate = originalPurchaseDate
        self.expiresDate = expiresDate
        self.revocationDate = revocationDate
        self.revocationReason = revocationReason
        self.offerType = offerType
        self.offerIdentifier = offerIdentifier
        self.offerDiscountType = offerDiscountType
        self.offerPeriod = offerPeriod
        self.environment = environment
        self.appAccountToken = appAccountToken
        self.transactionReason = transactionReason
        self.inAppOwnershipType = inAppOwnershipType
        self.type = type
        self.price = price
        self.currency = currency
        self.storefront = storefront
        self.quantity = quantity
        self.isUpgraded = isUpgraded
        self.webOrderLineItemId = webOrderLineItemId
        self.signedDate = signedDate
    }
}

/// The decoded `signedRenewalInfo` (Apple's JWSRenewalInfoDecodedPayload): what will happen at the
/// next renewal, and whether billing is in trouble.
public struct RenewalInfo: Hashable, Sendable, Codable {
    public var originalTransactionId: String?
    public var productId: String?
    /// The product the next renewal bills; differs from `productId` while a downgrade is pending.
    public var autoRenewProductId: String?
    /// 1 on, 0 off.
    public var autoRenewStatus: Int?
    public var expirationIntent: ExpirationIntent?
    public var isInBillingRetryPeriod: Bool?
    public var gracePeriodExpiresDate: Instant?
    /// 0 the customer has not yet consented to a price increase, 1 consented.
    public var priceIncreaseStatus: Int?
    public var offerType: OfferType?
    public var offerIdentifier: String?
    public var offerDiscountType: OfferDiscountType?
    public var environment: String?
    public var recentSubscriptionStartDate: Instant?
    public var renewalDate: Instant?
    public var renewalPrice: Int64?
    public var currency: String?
    public var signedDate: Instant?

    public init(
        originalTransactionId: String? = nil, productId: String? = nil, autoRenewProductId: String? = nil,
        autoRenewStatus: Int? = nil, expirationIntent: ExpirationIntent? = nil, isInBillingRetryPeriod: Bool? = nil,
        gracePeriodExpiresDate: Instant? = nil, priceIncreaseStatus: Int? = nil, offerType: OfferType? = nil,
        offerIdentifier: String? = nil, offerDiscountType: OfferDiscountType? = nil, environment: String? = nil,
        recentSubscriptionStartDate: Instant? = nil, renewalDate: Instant? = nil, renewalPrice: Int64? = nil,
        currency: String? = nil, signedDate: Instant? = nil
    ) {
        self.originalTransactionId = originalTransactionId
        self.productId = productId
        self.autoRenewProductId = autoRenewProductId
        self.autoRenewStatus = autoRenewStatus
        self.expirationIntent = expirationIntent
        self.isInBillingRetryPeriod = isInBillingRetryPeriod
        self.gracePeriodExpiresDate = gracePeriodExpiresDate
        self.priceIncreaseStatus = priceIncreaseStatus
        self.offerType = offerType
        self.offerIdentifier = offerIdentifier
        self.offerDiscountType = offerDiscountType
        self.environment = environment
        self.recentSubscriptionStartDate = recentSubscriptionStartDate
        self.renewalDate = renewalDate
        self.renewalPrice = renewalPrice
        self.currency = currency
        self.signedDate = signedDate
    }

    /// `autoRenewStatus` as a flag; nil when Apple left it out.
    public var autoRenews: Bool? { autoRenewStatus.map { $0 != 0 } }
}
