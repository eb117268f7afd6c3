/// The `notificationType` of an App Store Server Notification V2, such as `DID_RENEW`.
///
/// A struct over the raw string rather than an enum, so that a type Apple adds next year still decodes
/// and lands on the timeline instead of failing a whole import.
///
///     event.notificationType == .didRenew
public struct NotificationType: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public var rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }

    public static let subscribed = NotificationType(rawValue: "SUBSCRIBED")
    public static let didRenew = NotificationType(rawValue: "DID_RENEW")
    public static let didFailToRenew = NotificationType(rawValue: "DID_FAIL_TO_RENEW")
    public static let gracePeriodExpired = NotificationType(rawValue: "GRACE_PERIOD_EXPIRED")
    public static let expired = NotificationType(rawValue: "EXPIRED")
    public static let didChangeRenewalStatus = NotificationType(rawValue: "DID_CHANGE_RENEWAL_STATUS")
    public static let didChangeRenewalPref = NotificationType(rawValue: "DID_CHANGE_RENEWAL_PREF")
    public static let offerRedeemed = NotificationType(rawValue: "OFFER_REDEEMED")
    public static let refund = NotificationType(rawValue: "REFUND")
    public static let refundDeclined = NotificationType(rawValue: "REFUND_DECLINED")
    public static let refundReversed = NotificationType(rawValue: "REFUND_REVERSED")
    public static let revoke = NotificationType(rawValue: "REVOKE")
    public static let priceIncrease = NotificationType(rawValue: "PRICE_INCREASE")
    public static let renewalExtended = NotificationType(rawValue: "RENEWAL_EXTENDED")
    public static let renewalExtension = NotificationType(rawValue: "RENEWAL_EXTENSION")
    public static let consumptionRequest = NotificationType(rawValue: "CONSUMPTION_REQUEST")
    public static let test = NotificationType(rawValue: "TEST")

    /// The types this engine acts on or knows to ignore; anything else is kept but changes no state.
    public static let known: [NotificationType] = [
        .subscribed, .didRenew, .didFailToRenew, .gracePeriodExpired, .expired, .didChangeRenewalStatus,
        .didChangeRenewalPref, .offerRedeemed, .refund, .refundDeclined, .refundReversed, .revoke, .priceIncrease,
        .renewalExtended, .renewalExtension, .consumptionRequest, .test,
    ]
}

/// The `subtype` that refines a notification type, such as `GRACE_PERIOD` on `DID_FAIL_TO_RENEW`.
public struct NotificationSubtype: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public var rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }

    public static let initialBuy = NotificationSubtype(rawValue: "INITIAL_BUY")
    public static let resubscribe = NotificationSubtype(rawValue: "RESUBSCRIBE")
    public static let billingRecovery = NotificationSubtype(rawValue: "BILLING_RECOVERY")
    public static let gracePeriod = NotificationSubtype(rawValue: "GRACE_PERIOD")
    public static let voluntary = NotificationSubtype(rawValue: "VOLUNTARY")
    public static let billingRetry = NotificationSubtype(rawValue: "BILLING_RETRY")
    public static let priceIncrease = NotificationSubtype(rawValue: "PRICE_INCREASE")
    public static let productNotForSale = NotificationSubtype(rawValue: "PRODUCT_NOT_FOR_SALE")
    public static let autoRenewEnabled = NotificationSubtype(rawValue: "AUTO_RENEW_ENABLED")
    public static let autoRenewDisabled = NotificationSubtype(rawValue: "AUTO_RENEW_DISABLED")
    public static let upgrade = NotificationSubtype(rawValue: "UPGRADE")
    public static let downgrade = NotificationSubtype(rawValue: "DOWNGRADE")
    public static let pending = NotificationSubtype(rawValue: "PENDING")
    public static let accepted = NotificationSubtype(rawValue: "ACCEPTED")
    public static let summary = NotificationSubtype(rawValue: "SUMMARY")
    public static let failure = NotificationSubtype(rawValue: "FAILURE")
}
