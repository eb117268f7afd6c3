/// Why a subscription expired, as Apple's renewal info numbers it (`expirationIntent`).
///
/// A struct over the number, not an enum, so a value Apple adds later still decodes.
public struct ExpirationIntent: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public var rawValue: Int

    public init(rawValue: Int) { self.rawValue = rawValue }

    /// 1: the customer turned off auto-renew.
    public static let cancelled = ExpirationIntent(rawValue: 1)
    /// 2: the payment could not be collected before billing retry gave up.
    public static let billingError = ExpirationIntent(rawValue: 2)
    /// 3: the customer did not consent to a price increase.
    public static let declinedPriceIncrease = ExpirationIntent(rawValue: 3)
    /// 4: the product was not for sale when it was due to renew.
    public static let productUnavailable = ExpirationIntent(rawValue: 4)
    /// 5: any other reason.
    public static let other = ExpirationIntent(rawValue: 5)

    /// The snake_case value `Subscription.expirationIntent` stores (`billing_error`), so the store and the
    /// demo data keep one vocabulary.
    public var key: String {
        switch rawValue {
        case 1: "cancelled"
        case 2: "billing_error"
        case 3: "price_increase"
        case 4: "product_unavailable"
        case 5: "other"
        default: "intent_\(rawValue)"
        }
    }

    public var description: String { key }

    /// Reads a stored key back (`billing_error` → 2).
    public init?(key: String) {
        guard let value = (1...5).first(where: { ExpirationIntent(rawValue: $0).key == key }) else { return nil }
        self.init(rawValue: value)
    }

    /// The notification subtype Apple sends with `EXPIRED` for this reason, when there is one.
    public var expiredSubtype: NotificationSubtype? {
        switch rawValue {
        case 1: .voluntary
        case 2: .billingRetry
        case 3: .priceIncrease
        case 4: .productNotForSale
        default: nil
        }
    }
}

/// Why Apple refunded a transaction (`revocationReason`): 1 an issue in the app, 0 anything else.
public struct RevocationReason: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public var rawValue: Int

    public init(rawValue: Int) { self.rawValue = rawValue }

    /// 0: refunded for another reason, such as an accidental purchase.
    public static let other = RevocationReason(rawValue: 0)
    /// 1: refunded because of an actual or perceived issue within the app.
    public static let appIssue = RevocationReason(rawValue: 1)

    public var description: String { rawValue == 1 ? "app issue" : rawValue == 0 ? "other" : "reason \(rawValue)" }
}

/// What took a subscription away from the customer before its time: the two values `Subscription`
/// stores in `revocationReason`.
public enum RevocationKind: String, Hashable, Sendable, Codable, CaseIterable {
    /// Apple refunded the purchase (`REFUND`).
    case refund
    /// The family organiser stopped sharing it, or left the family (`REVOKE`).
    case familySharing = "family_sharing"
}

/// Which kind of offer priced a transaction (`offerType`).
public struct OfferType: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public var rawValue: Int

    public init(rawValue: Int) { self.rawValue = rawValue }

    /// 1: an introductory offer, once per subscription group per customer.
    public static let introductory = OfferType(rawValue: 1)
    /// 2: a promotional offer the app signs for existing or lapsed subscribers.
    public static let promotional = OfferType(rawValue: 2)
    /// 3: an offer code the customer redeems.
    public static let offerCode = OfferType(rawValue: 3)
    /// 4: a win-back offer for lapsed subscribers.
    public static let winBack = OfferType(rawValue: 4)

    /// The snake_case value `Subscription.offerType` stores.
    public var key: String {
        switch rawValue {
        case 1: "introductory"
        case 2: "promotional"
        case 3: "offer_code"
        case 4: "win_back"
        default: "offer_\(rawValue)"
        }
    }

    public var description: String { key }

    /// Reads a stored key back (`offer_code` → 3).
    public init?(key: String) {
        guard let value = (1...4).first(where: { OfferType(rawValue: $0).key == key }) else { return nil }
        self.init(rawValue: value)
    }
}

/// How an offer discounts (`offerDiscountType`): free, a lower price each period, or one payment up front.
public struct OfferDiscountType: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public var rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    public static let freeTrial = OfferDiscountType(rawValue: "FREE_TRIAL")
    public static let payAsYouGo = OfferDiscountType(rawValue: "PAY_AS_YOU_GO")
    public static let payUpFront = OfferDiscountType(rawValue: "PAY_UP_FRONT")

    public var description: String { rawValue }
}
