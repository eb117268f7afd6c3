/// Apple's `AppTransaction` (https://developer.apple.com/documentation/appstoreserverapi/apptransaction):
/// what Get App Transaction Info signs for a customer of an app, under Apple's names, dates in
/// milliseconds, nil fields left out. StoreDesk has no app downloads: the customer's first purchase of
/// the app stands for the download (its date is the original purchase date, its id the app transaction's).
///
///     let payload = AppTransactionDecodedPayload.of(customer, at: now)
///     try chain.signAppTransaction(payload)      // a `signedAppTransactionInfo`
public struct AppTransactionDecodedPayload: Hashable, Sendable, Codable {
    /// `Production` or `Sandbox`: the environment the verifier checks.
    public var receiptType: String
    public var appAppleId: Int64?
    public var bundleId: String
    public var applicationVersion: String
    public var versionExternalIdentifier: Int64
    public var receiptCreationDate: Instant
    public var originalPurchaseDate: Instant
    public var originalApplicationVersion: String
    public var appTransactionId: String
    public var originalPlatform: String
    public var signedDate: Instant

    public init(
        receiptType: String, appAppleId: Int64?, bundleId: String, applicationVersion: String = "1", versionExternalIdentifier: Int64 = 0,
        receiptCreationDate: Instant, originalPurchaseDate: Instant, originalApplicationVersion: String = "1", appTransactionId: String,
        originalPlatform: String = "iOS", signedDate: Instant
    ) {
        self.receiptType = receiptType
        self.appAppleId = appAppleId
        self.bundleId = bundleId
        self.applicationVersion = applicationVersion
        self.versionExternalIdentifier = versionExternalIdentifier
        self.receiptCreationDate = receiptCreationDate
        self.originalPurchaseDate = originalPurchaseDate
        self.originalApplicationVersion = originalApplicationVersion
        self.appTransactionId = appTransactionId
        self.originalPlatform = originalPlatform
        self.signedDate = signedDate
    }

    /// The customer's app transaction at `now`: the app's bundle and Apple ID, the environment of the
    /// transaction asked about, the customer's first purchase as the download.
    public static func of(_ customer: AppStoreCustomer, at now: Instant) -> AppTransactionDecodedPayload {
        let first = customer.purchases.map(\.transaction).min { ($0.purchaseDate, $0.id) < ($1.purchaseDate, $1.id) }
        return AppTransactionDecodedPayload(
            receiptType: customer.environment.rawValue, appAppleId: customer.app.appleAppId, bundleId: customer.app.bundleId,
            receiptCreationDate: now, originalPurchaseDate: first?.purchaseDate ?? now,
            appTransactionId: first.map { "7" + AppleOrderId.of(transactionId: $0.id) } ?? customer.askedTransactionId, signedDate: now)
    }
}
