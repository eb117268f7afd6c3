import Foundation

/// One row of the codes table: a number an operator meets in a log or a notification, its name, and
/// what it means for the player.
public struct SubscriptionCode: Hashable, Sendable, Identifiable {
    /// Which list the number belongs to; the same number means different things in each.
    public enum Family: String, Hashable, Sendable, CaseIterable {
        case skError = "SKError"
        case expirationIntent
        case revocationReason
        case subscriptionStatus = "status"
        case offerType
        case autoRenewStatus
        case priceIncreaseStatus

        /// `SKError code`, `expirationIntent`: how the screen titles the family.
        public var title: String { self == .skError ? "SKError code" : rawValue }
    }

    public var family: Family
    public var code: Int
    /// StoreKit's or Apple's own name, e.g. `paymentCancelled`.
    public var name: String
    public var meaning: String

    public var id: String { "\(family.rawValue).\(code)" }

    /// Whether the row matches a search: its number, or a case-insensitive piece of its family, name or
    /// meaning. An empty query matches everything.
    public func matches(_ query: String) -> Bool {
        let needle = query.trimmingCharacters(in: .whitespaces).lowercased()
        if needle.isEmpty || String(code) == needle { return true }
        return [family.rawValue, family.title, name, meaning].contains { $0.lowercased().contains(needle) }
    }
}

/// The codes a subscription screen explains: StoreKit's SKError codes, and the numbers Apple puts in
/// subscription notifications (`expirationIntent`, `revocationReason`, status, `offerType`, ...).
///
/// Pure data for a `:codes` screen; the subscription component's own InAppPurchaseError codes are not
/// listed because they are not public.
///
///     SubscriptionCodes.search("grace")       // status 4
///     SubscriptionCodes.table                 // [(code, name, meaning)]
public enum SubscriptionCodes {
    public static let all: [SubscriptionCode] =
        skErrors + expirationIntents + revocationReasons + statuses + offerTypes + autoRenewStatuses
        + priceIncreaseStatuses

    /// The rows matching a query (see `SubscriptionCode.matches`), in table order.
    public static func search(_ query: String) -> [SubscriptionCode] { all.filter { $0.matches(query) } }

    /// The table as plain `(code, name, meaning)` tuples, names prefixed with their family
    /// (`SKError.paymentCancelled`, `expirationIntent.billingError`).
    public static var table: [(code: Int, name: String, meaning: String)] {
        all.map { ($0.code, "\($0.family.rawValue).\($0.name)", $0.meaning) }
    }

    /// StoreKit's `SKError.Code`, as a failed purchase reports it.
    public static let skErrors: [SubscriptionCode] = rows(.skError, [
        (0, "unknown", "An unknown or unexpected error occurred."),
        (1, "clientInvalid", "The client is not allowed to make the request (e.g. purchases restricted on the device)."),
        (2, "paymentCancelled", "The player cancelled the payment request."),
        (3, "paymentInvalid", "A payment parameter was not recognised by the App Store (e.g. a bad product identifier)."),
        (4, "paymentNotAllowed", "The player is not allowed to authorise payments (e.g. Screen Time restrictions)."),
        (5, "storeProductNotAvailable", "The product is not available in the player's storefront."),
        (6, "cloudServicePermissionDenied", "The player has not allowed access to cloud service information."),
        (7, "cloudServiceNetworkConnectionFailed", "The device could not connect to the network."),
        (8, "cloudServiceRevoked", "The player has revoked permission to use this cloud service."),
        (9, "privacyAcknowledgementRequired", "The player has not yet acknowledged Apple's privacy policy."),
        (10, "unauthorizedRequestData", "The app put data in a request it is not entitled to send."),
        (11, "invalidOfferIdentifier", "The promotional offer identifier is not valid for this product."),
        (12, "invalidSignature", "The promotional offer's signature is not valid."),
        (13, "missingOfferParams", "The promotional offer is missing one or more parameters."),
        (14, "invalidOfferPrice", "The promotional offer's price is not valid for the product."),
        (15, "overlayCancelled", "The player dismissed the App Store overlay."),
        (16, "overlayInvalidConfiguration", "The App Store overlay was configured incorrectly."),
        (17, "overlayTimeout", "The App Store overlay timed out."),
        (18, "ineligibleForOffer", "The player is not eligible for the subscription offer."),
        (19, "unsupportedPlatform", "The feature is not supported on this platform."),
        (20, "overlayPresentedInBackgroundScene", "The overlay was presented in a scene that is not in the foreground."),
    ])

    /// Renewal info `expirationIntent`: why a subscription expired.
    public static let expirationIntents: [SubscriptionCode] = rows(.expirationIntent, [
        (1, "cancelled", "The player turned off auto-renew; it expired at the end of the period."),
        (2, "billingError", "A billing error: Apple could not collect payment within billing retry."),
        (3, "declinedPriceIncrease", "The player did not consent to a price increase."),
        (4, "productUnavailable", "The product was not available for purchase when it was due to renew."),
        (5, "other", "The subscription expired for some other reason."),
    ])

    /// Transaction `revocationReason`: why Apple refunded it.
    public static let revocationReasons: [SubscriptionCode] = rows(.revocationReason, [
        (0, "other", "Apple refunded the transaction for another reason, such as an accidental purchase."),
        (1, "appIssue", "Apple refunded it because of an actual or perceived issue within the app."),
    ])

    /// The subscription status per group, as Get All Subscription Statuses returns it.
    public static let statuses: [SubscriptionCode] = rows(.subscriptionStatus, [
        (1, "active", "Active: the player has access."),
        (2, "expired", "Expired: no access."),
        (3, "billingRetry", "In billing retry: Apple is trying to collect payment for up to 60 days; no access."),
        (4, "billingGracePeriod", "In the billing grace period: payment failed but the player keeps access."),
        (5, "revoked", "Revoked: refunded or family sharing ended; access removed."),
    ])

    /// Transaction and renewal info `offerType`.
    public static let offerTypes: [SubscriptionCode] = rows(.offerType, [
        (1, "introductory", "An introductory offer (free trial, pay as you go or pay up front), once per group."),
        (2, "promotional", "A promotional offer the app signed for an existing or lapsed subscriber."),
        (3, "offerCode", "An offer code the player redeemed."),
        (4, "winBack", "A win-back offer for a lapsed subscriber."),
    ])

    /// Renewal info `autoRenewStatus`.
    public static let autoRenewStatuses: [SubscriptionCode] = rows(.autoRenewStatus, [
        (0, "off", "Auto-renew is off: the subscription expires at the end of the period."),
        (1, "on", "Auto-renew is on: the subscription renews at the end of the period."),
    ])

    /// Renewal info `priceIncreaseStatus`.
    public static let priceIncreaseStatuses: [SubscriptionCode] = rows(.priceIncreaseStatus, [
        (0, "notYetResponded", "The player has not yet consented to a price increase that needs consent."),
        (1, "consented", "The player consented to the price increase, or it did not need consent."),
    ])

    private static func rows(
        _ family: SubscriptionCode.Family, _ rows: [(Int, String, String)]
    ) -> [SubscriptionCode] {
        rows.map { SubscriptionCode(family: family, code: $0.0, name: $0.1, meaning: $0.2) }
    }
}
