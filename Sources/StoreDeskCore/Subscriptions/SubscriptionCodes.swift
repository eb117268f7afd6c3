import Foundation

/// One row of the codes table: a number an operator meets in a log or a notification, its name, and
/// what it means for the player.
public struct SubscriptionCode: Hashable, Sendable, Identifiable {
    /// Which list the number belongs to; the same number means different things in each.
    public enum Family: String, Hashable, Sendable, CaseIterable {
        case inAppPurchaseError = "InAppPurchaseError"
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

/// The codes a subscription screen explains: the subscription component's InAppPurchaseError codes,
/// StoreKit's SKError codes, and the numbers Apple puts in subscription notifications
/// (`expirationIntent`, `revocationReason`, status, `offerType`, ...).
///
/// Pure data for the `:codes` screen.
///
///     SubscriptionCodes.search("grace")       // status 4
///     SubscriptionCodes.table                 // [(code, name, meaning)]
public enum SubscriptionCodes {
    public static let all: [SubscriptionCode] =
        inAppPurchaseErrors + skErrors + expirationIntents + revocationReasons + statuses + offerTypes + autoRenewStatuses
        + priceIncreaseStatuses

    /// The rows matching a query (see `SubscriptionCode.matches`), in table order.
    public static func search(_ query: String) -> [SubscriptionCode] { all.filter { $0.matches(query) } }

    /// The table as plain `(code, name, meaning)` tuples, names prefixed with their family
    /// (`SKError.paymentCancelled`, `expirationIntent.billingError`).
    public static var table: [(code: Int, name: String, meaning: String)] {
        all.map { ($0.code, "\($0.family.rawValue).\($0.name)", $0.meaning) }
    }

    /// The subscription component's `InAppPurchaseErrorType`, as its completion blocks report a failure
    /// (numbers and names from the component's public header `InAppPurchaseError.h`). 1-5 and 11-14
    /// pass StoreKit's errors through, 1xxxx come from the component's server, 2xxxx from its App Store
    /// calls and offers, 3xxxx from the device (receipt, configuration).
    public static let inAppPurchaseErrors: [SubscriptionCode] = rows(.inAppPurchaseError, [
        (0, "unknown", "An unknown error."),
        (1, "clientInvalid", "StoreKit: the client may not make this request."),
        (2, "paymentCancelled", "StoreKit: the player cancelled the payment."),
        (3, "paymentInvalid", "StoreKit: a payment parameter was not accepted (e.g. the product id)."),
        (4, "paymentNotAllowed", "StoreKit: the player may not authorise payments on this device."),
        (5, "storeProductNotAvailable", "StoreKit: the product is not on sale in the player's storefront."),
        (11, "invalidOfferIdentifier", "The promotional offer id is not valid for this product."),
        (12, "invalidOfferPrice", "The promotional offer's price is not valid."),
        (13, "invalidSignature", "The promotional offer's signature is not valid."),
        (14, "missingOfferParams", "The promotional offer lacks a parameter."),
        (10000, "apiSecretError", "The component's server refused the app's API secret."),
        (10001, "apiCertError", "The component's server refused the app's certificate."),
        (10002, "clientParamError", "The component's server refused a parameter the app sent."),
        (10100, "sqlExecuteError", "The component's server failed to run a database query."),
        (10101, "dbDataError", "The component's server found bad data in its database."),
        (10200, "redisConnectError", "The component's server could not reach its cache."),
        (20000, "appStoreConnectError", "The component's server could not reach the App Store."),
        (20001, "subOfferSubscriptionError", "No offer signed: the player's subscription could not be looked up."),
        (20002, "subOfferSubscriptionExpired", "No offer signed: the player's subscription has expired."),
        (20003, "subOfferCancelSubInfoError", "No offer signed: the cancelled subscription's details are unreadable."),
        (20004, "subOfferParamsEmpty", "No offer signed: the request had empty parameters."),
        (20005, "subOfferGenerateSignatureError", "No offer signed: the server could not sign it."),
        (30000, "noReceiptDataOnDevice", "No App Store receipt on the device: restore or refresh it."),
        (30001, "invalidRawData", "The receipt's bytes are not a receipt."),
        (30002, "nothingToDecrypt", "The receipt was empty: nothing to decode."),
        (30003, "failedToDecrypt", "The receipt could not be decoded."),
        (30004, "dataDecryptedNotInJSON", "The decoded receipt is not JSON."),
        (30005, "noItemInReceipt", "The receipt holds no purchase."),
        (30006, "noSubscriptionInReceipt", "The receipt holds no subscription."),
        (30007, "subscriptionExpiredInReceipt", "The receipt's subscription has run out."),
        (30008, "purchaseItemError", "A purchase in the receipt could not be read."),
        (30009, "invalidProductIdentifier", "The App Store does not know the product id."),
        (30010, "invalidProductType", "The product's type is wrong for this call (a consumable where a subscription belongs)."),
        (30011, "initError", "The component was used before it was configured, or configuring it failed."),
        (30012, "unknownNetworkError", "An unknown error, usually the network."),
        (30013, "retryPeriodError", "The billing-retry status from the component's server could not be read."),
    ])

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
