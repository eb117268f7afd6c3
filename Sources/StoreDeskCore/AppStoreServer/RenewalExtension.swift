import Foundation

/// Extend a Subscription Renewal Date: the request as Apple checks it, and the rule that decides it.
/// At most 90 days at a time, a reason code of 0 to 3, at most twice in 365 days for one subscription
/// (Apple's 4030005), only while the subscription is active (4030004); a request identifier already
/// used for the subscription gets the first answer again and changes nothing.
///
///     let request = try RenewalExtensionRequest(json: body)          // 4000009, 4000010, 4000011
///     let done = try RenewalExtension.decide(subscription, request, earlier: kept, at: now)
///     done.effectiveDate                                              // the new expiry
public struct RenewalExtensionRequest: Hashable, Sendable {
    public static let longestDays = 90
    public var extendByDays: Int
    /// 0 undeclared, 1 customer satisfaction, 2 other, 3 service issue or outage.
    public var extendReasonCode: Int
    /// The caller's own id for the request, at most 128 characters.
    public var requestIdentifier: String

    public init(extendByDays: Int, extendReasonCode: Int, requestIdentifier: String) throws(AppStoreAPIError) {
        guard (1...Self.longestDays).contains(extendByDays) else { throw .invalidExtendByDays }
        guard (0...3).contains(extendReasonCode) else { throw .invalidExtendReasonCode }
        guard !requestIdentifier.isEmpty, requestIdentifier.count <= 128 else { throw .invalidRequestIdentifier }
        self.extendByDays = extendByDays
        self.extendReasonCode = extendReasonCode
        self.requestIdentifier = requestIdentifier
    }

    /// From the JSON body `{"extendByDays": 30, "extendReasonCode": 1, "requestIdentifier": "…"}`.
    public init(json bytes: [UInt8]) throws(AppStoreAPIError) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else { throw .generalBadRequest }
        guard let days = object["extendByDays"] as? Int else { throw .invalidExtendByDays }
        guard let reason = object["extendReasonCode"] as? Int else { throw .invalidExtendReasonCode }
        guard let identifier = object["requestIdentifier"] as? String else { throw .invalidRequestIdentifier }
        try self.init(extendByDays: days, extendReasonCode: reason, requestIdentifier: identifier)
    }
}

/// One renewal-date extension done: what the store keeps and the API answers.
public struct RenewalExtension: Hashable, Sendable {
    public static let perYear = 2
    public var originalTransactionId: String
    public var requestIdentifier: String
    public var extendByDays: Int
    public var extendReasonCode: Int
    public var extendedAt: Instant
    /// The expiry before and after.
    public var previousExpiresDate: Instant
    public var effectiveDate: Instant

    public init(
        originalTransactionId: String, requestIdentifier: String, extendByDays: Int, extendReasonCode: Int, extendedAt: Instant,
        previousExpiresDate: Instant, effectiveDate: Instant
    ) {
        self.originalTransactionId = originalTransactionId
        self.requestIdentifier = requestIdentifier
        self.extendByDays = extendByDays
        self.extendReasonCode = extendReasonCode
        self.extendedAt = extendedAt
        self.previousExpiresDate = previousExpiresDate
        self.effectiveDate = effectiveDate
    }

    /// Decides a request for `subscription` at `now`, given its extensions so far. A request identifier
    /// already used answers as it did then.
    public static func decide(
        _ subscription: Subscription, _ request: RenewalExtensionRequest, earlier: [RenewalExtension], at now: Instant
    ) throws(AppStoreAPIError) -> (extension: RenewalExtension, repeated: Bool) {
        if let same = earlier.first(where: { $0.requestIdentifier == request.requestIdentifier }) { return (same, true) }
        guard let info = subscription.info(at: now), info.state == .active || info.state == .gracePeriod else {
            throw .subscriptionExtensionIneligible
        }
        let yearAgo = now.adding(.days(-365))
        guard earlier.filter({ $0.extendedAt > yearAgo }).count < perYear else { throw .subscriptionMaxExtension }
        let made = RenewalExtension(
            originalTransactionId: subscription.id, requestIdentifier: request.requestIdentifier, extendByDays: request.extendByDays,
            extendReasonCode: request.extendReasonCode, extendedAt: now, previousExpiresDate: info.expiresDate,
            effectiveDate: info.expiresDate.adding(.days(Int64(request.extendByDays))))
        return (made, false)
    }
}

/// Extend Subscription Renewal Dates for All Active Subscribers: Apple's `MassExtendRenewalDateRequest`
/// (`storefrontCountryCodes` taken and not used: StoreDesk's players have no storefront of their own).
public struct MassRenewalExtensionRequest: Hashable, Sendable {
    /// The request as each subscription's extension takes it.
    public var single: RenewalExtensionRequest
    public var productId: String

    public init(json bytes: [UInt8]) throws(AppStoreAPIError) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else { throw .generalBadRequest }
        guard let productId = object["productId"] as? String, !productId.isEmpty else { throw .invalidProductId }
        if let codes = object["storefrontCountryCodes"], !(codes is [String]) { throw .generalBadRequest }
        single = try RenewalExtensionRequest(json: bytes)
        self.productId = productId
    }
}

/// A mass renewal extension's status as Get Status of Subscription Renewal Date Extensions answers it
/// (Apple's `MassExtendRenewalDateStatusResponse`), kept by the store once the extension is done (StoreDesk
/// extends every subscription before it answers, so a kept status is complete).
public struct MassRenewalExtensionStatus: Hashable, Sendable, Encodable {
    public var requestIdentifier: String
    /// When it was done (Apple's `completeDate`).
    public var completed: Instant
    public var succeededCount: Int
    public var failedCount: Int

    public init(_ requestIdentifier: String, completed: Instant, succeeded: Int, failed: Int) {
        (self.requestIdentifier, self.completed, succeededCount, failedCount) = (requestIdentifier, completed, succeeded, failed)
    }

    private enum CodingKeys: String, CodingKey { case requestIdentifier, complete, completeDate, succeededCount, failedCount }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(requestIdentifier, forKey: .requestIdentifier)
        try container.encode(true, forKey: .complete)
        try container.encode(completed.millis, forKey: .completeDate)
        try container.encode(succeededCount, forKey: .succeededCount)
        try container.encode(failedCount, forKey: .failedCount)
    }
}

extension AppStoreAPIError {
    public static let invalidProductId = Self(status: 400, errorCode: 4_000_023, errorMessage: "Invalid request. The product id parameter is invalid.")
    public static let statusRequestNotFound = Self(
        status: 404, errorCode: 4_040_009, errorMessage: "The server didn't find a subscription-renewal-date extension request for the request identifier and product identifier you provided.")
    public static let invalidExtendByDays = Self(status: 400, errorCode: 4_000_009, errorMessage: "Invalid extend by days value.")
    public static let invalidExtendReasonCode = Self(status: 400, errorCode: 4_000_010, errorMessage: "Invalid extend reason code.")
    public static let invalidRequestIdentifier = Self(status: 400, errorCode: 4_000_011, errorMessage: "Invalid request identifier.")
    public static let subscriptionExtensionIneligible = Self(
        status: 403, errorCode: 4_030_004, errorMessage: "Forbidden - subscription state ineligible for extension.")
    public static let subscriptionMaxExtension = Self(
        status: 403, errorCode: 4_030_005, errorMessage: "Forbidden - subscription has reached maximum extension count.")
}
