/// Apple's `ResponseBodyV2DecodedPayload`: the payload of an App Store Server Notification V2's
/// `signedPayload`, under Apple's names
/// (https://developer.apple.com/documentation/appstoreservernotifications/responsebodyv2decodedpayload).
///
/// `data` carries the transaction and renewal info as JWS of their own (`signedTransactionInfo`,
/// `signedRenewalInfo`); `summary` replaces it for a mass renewal-date extension
/// (`RENEWAL_EXTENSION`/`SUMMARY`). `externalPurchaseToken` and `appData` are not modelled.
///
///     var notification = ResponseBodyV2DecodedPayload(notificationType: .subscribed, subtype: .initialBuy, ...)
///     let signedPayload = try chain.signNotification(notification, transaction: t, renewal: r)   // StoreDeskTrust
public struct ResponseBodyV2DecodedPayload: Hashable, Sendable, Codable {
    public var notificationType: NotificationType?
    public var subtype: NotificationSubtype?
    public var notificationUUID: String?
    public var data: NotificationData?
    /// `2.0`.
    public var version: String?
    public var signedDate: Instant?
    public var summary: NotificationSummary?

    public init(
        notificationType: NotificationType? = nil, subtype: NotificationSubtype? = nil, notificationUUID: String? = nil,
        data: NotificationData? = nil, version: String? = "2.0", signedDate: Instant? = nil, summary: NotificationSummary? = nil
    ) {
        self.notificationType = notificationType
        self.subtype = subtype
        self.notificationUUID = notificationUUID
        self.data = data
        self.version = version
        self.signedDate = signedDate
        self.summary = summary
    }
}

/// Apple's `Data` of a notification: the app, the environment and the signed infos.
public struct NotificationData: Hashable, Sendable, Codable {
    public var environment: String?
    public var appAppleId: Int64?
    public var bundleId: String?
    public var bundleVersion: String?
    /// A `JWSTransactionDecodedPayload` signed as a JWS.
    public var signedTransactionInfo: String?
    /// A `JWSRenewalInfoDecodedPayload` signed as a JWS.
    public var signedRenewalInfo: String?
    /// The subscription's status: 1 active, 2 expired, 3 billing retry, 4 grace period, 5 revoked.
    public var status: Int?
    /// `UNINTENDED_PURCHASE`, `FULFILLMENT_ISSUE`, `UNSATISFIED_WITH_PURCHASE`, `LEGAL`, `OTHER`
    /// (a `CONSUMPTION_REQUEST`'s reason).
    public var consumptionRequestReason: String?

    public init(
        environment: String? = nil, appAppleId: Int64? = nil, bundleId: String? = nil, bundleVersion: String? = nil,
        signedTransactionInfo: String? = nil, signedRenewalInfo: String? = nil, status: Int? = nil,
        consumptionRequestReason: String? = nil
    ) {
        self.environment = environment
        self.appAppleId = appAppleId
        self.bundleId = bundleId
        self.bundleVersion = bundleVersion
        self.signedTransactionInfo = signedTransactionInfo
        self.signedRenewalInfo = signedRenewalInfo
        self.status = status
        self.consumptionRequestReason = consumptionRequestReason
    }
}

/// Apple's `Summary` of a notification: how a mass renewal-date extension went.
public struct NotificationSummary: Hashable, Sendable, Codable {
    public var environment: String?
    public var appAppleId: Int64?
    public var bundleId: String?
    public var productId: String?
    public var requestIdentifier: String?
    public var storefrontCountryCodes: [String]?
    public var succeededCount: Int64?
    public var failedCount: Int64?

    public init(
        environment: String? = nil, appAppleId: Int64? = nil, bundleId: String? = nil, productId: String? = nil,
        requestIdentifier: String? = nil, storefrontCountryCodes: [String]? = nil, succeededCount: Int64? = nil,
        failedCount: Int64? = nil
    ) {
        self.environment = environment
        self.appAppleId = appAppleId
        self.bundleId = bundleId
        self.productId = productId
        self.requestIdentifier = requestIdentifier
        self.storefrontCountryCodes = storefrontCountryCodes
        self.succeededCount = succeededCount
        self.failedCount = failedCount
    }
}
