/// A team's catalogue as Xcode's StoreKit configuration file (`.storekit`) describes it: products of
/// every type, subscription groups with their levels, offers, localizations, and the file's own test
/// settings. Plain values; `StoreKitConfiguration.read(_:)` parses a file's bytes.
///
///     let configuration = try StoreKitConfiguration.read(bytes)
///     configuration.products.filter { $0.type == .autoRenewable }
///     configuration.unknownKeys      // ["subscriptionGroups[0].subscriptions[1].newKey"]
public struct StoreKitConfiguration: Hashable, Sendable {
    /// The file format's version (`1.0` … `6.3` seen); Xcode writes more keys in newer versions.
    public struct Version: Hashable, Sendable, CustomStringConvertible {
        public var major: Int
        public var minor: Int
        public init(major: Int, minor: Int) {
            self.major = major
            self.minor = minor
        }
        public var description: String { "\(major).\(minor)" }
    }

    /// The file's own id (8 hex digits); absent in version 1.0 files.
    public var identifier: String?
    public var version: Version
    /// Every product in file order: `products` (consumables, non-consumables), then
    /// `nonRenewingSubscriptions`, then each group's auto-renewable subscriptions.
    public var products: [CatalogueProduct]
    public var groups: [CatalogueGroup]
    public var settings: StoreKitSettings
    /// Keys the reader does not know, as paths (`settings._newSwitch`): reported, and skipped.
    public var unknownKeys: [String]
    /// Keys the reader knows and deliberately does not keep, each with why.
    public var notKept: [String]

    public init(
        identifier: String?, version: Version, products: [CatalogueProduct], groups: [CatalogueGroup],
        settings: StoreKitSettings, unknownKeys: [String] = [], notKept: [String] = []
    ) {
        self.identifier = identifier
        self.version = version
        self.products = products
        self.groups = groups
        self.settings = settings
        self.unknownKeys = unknownKeys
        self.notKept = notKept
    }

    /// The newest format version StoreDesk was written against.
    public static let newestKnownVersion = Version(major: 6, minor: 3)
}

/// One product as a StoreKit configuration lists it.
public struct CatalogueProduct: Hashable, Sendable {
    /// `productID`: the id the app and Apple's signed data use.
    public var id: String
    public var type: ProductType
    /// The name in App Store Connect (`referenceName`), never shown to customers; can be absent.
    public var referenceName: String?
    /// Xcode's or App Store Connect's internal id.
    public var internalId: String?
    public var price: CataloguePrice
    public var familyShareable: Bool
    public var localizations: [CatalogueLocalization]
    /// The auto-renewable terms; nil for the other types.
    public var subscription: CatalogueSubscription?

    public init(
        id: String, type: ProductType, referenceName: String? = nil, internalId: String? = nil, price: CataloguePrice,
        familyShareable: Bool = false, localizations: [CatalogueLocalization] = [], subscription: CatalogueSubscription? = nil
    ) {
        self.id = id
        self.type = type
        self.referenceName = referenceName
        self.internalId = internalId
        self.price = price
        self.familyShareable = familyShareable
        self.localizations = localizations
        self.subscription = subscription
    }

    /// The name customers see in `locale` (`zh_Hans`, `en_US`), else in the first locale that has one,
    /// else the reference name, else the product id.
    public func displayName(preferring locale: String?) -> String {
        let named = localizations.filter { !$0.displayName.isEmpty }
        if let locale, let match = named.first(where: { $0.locale == locale }) { return match.displayName }
        if let first = named.first { return first.displayName }
        if let referenceName, !referenceName.isEmpty { return referenceName }
        return id
    }
}

/// An auto-renewable subscription's place and terms.
public struct CatalogueSubscription: Hashable, Sendable {
    /// The group's `id` (what Apple's signed data calls `subscriptionGroupIdentifier` for a synced file).
    public var groupId: String
    /// `groupNumber`: the level within the group, 1 the highest service by Apple's convention. Several
    /// subscriptions may share a level.
    public var level: Int
    public var period: SubscriptionPeriod
    /// Introductory, promotional, offer-code and win-back offers, in that order as the file lists them.
    public var offers: [CatalogueOffer]
    /// Billing plans (format 5.0 on): how the price is billed.
    public var billingPlans: [CatalogueBillingPlan]

    public init(
        groupId: String, level: Int, period: SubscriptionPeriod, offers: [CatalogueOffer] = [],
        billingPlans: [CatalogueBillingPlan] = []
    ) {
        self.groupId = groupId
        self.level = level
        self.period = period
        self.offers = offers
        self.billingPlans = billingPlans
    }
}

/// A subscription offer as a StoreKit configuration lists it: introductory (`introductoryOffer`),
/// promotional (`adHocOffers`), offer code (`codeOffers`) or win-back (`winbackOffers`).
public struct CatalogueOffer: Hashable, Sendable {
    /// Customers an offer code is for (`eligibility`).
    public enum Eligibility: String, Hashable, Sendable, CaseIterable {
        case new, existing, expired
    }

    public var type: OfferType
    /// The id an app passes when it redeems a promotional or win-back offer (`offerID`).
    public var offerId: String?
    public var referenceName: String?
    public var internalId: String?
    /// Free, pay as you go, or pay up front.
    public var paymentMode: OfferDiscountType
    /// One period of the offer (`subscriptionPeriod`).
    public var period: CalendarPeriod
    /// How many periods (`numberOfPeriods`, 1 when absent).
    public var periodCount: Int
    /// The price of each period (pay as you go) or of the whole offer (pay up front); nil for a free one.
    public var price: CataloguePrice?
    /// Offer codes only: who may redeem it.
    public var eligibility: [Eligibility]
    /// Offer codes only: whether it stacks with an introductory offer (`isStackable`).
    public var stackable: Bool?
    /// Win-back offers only: whether the test customer is eligible (`isEligible`).
    public var eligible: Bool?
    /// `BILLED_UPFRONT` or `MONTHLY` (format 5.0 on).
    public var billingPlanType: String?

    public init(
        type: OfferType, offerId: String? = nil, referenceName: String? = nil, internalId: String? = nil,
        paymentMode: OfferDiscountType, period: CalendarPeriod, periodCount: Int = 1, price: CataloguePrice? = nil,
        eligibility: [Eligibility] = [], stackable: Bool? = nil, eligible: Bool? = nil, billingPlanType: String? = nil
    ) {
        self.type = type
        self.offerId = offerId
        self.referenceName = referenceName
        self.internalId = internalId
        self.paymentMode = paymentMode
        self.period = period
        self.periodCount = periodCount
        self.price = price
        self.eligibility = eligibility
        self.stackable = stackable
        self.eligible = eligible
        self.billingPlanType = billingPlanType
    }

    /// The offer as the subscription simulator runs it.
    public var subscriptionOffer: SubscriptionOffer {
        SubscriptionOffer(
            type: type, id: offerId, discount: paymentMode, period: period, periodCount: periodCount,
            priceCents: paymentMode == .freeTrial ? 0 : price?.cents ?? 0)
    }

    /// `free for 1 week`, `¤1.99 a month for 3 months`, `¤8.99 up front for 3 months`.
    public var terms: String {
        let whole = CalendarPeriod(period.value * periodCount, period.unit)
        switch paymentMode {
        case .freeTrial: return "free for \(whole.name)"
        case .payAsYouGo: return "\(price?.text ?? "?") each \(period.name) for \(periodCount) period\(periodCount == 1 ? "" : "s")"
        default: return "\(price?.text ?? "?") up front for \(whole.name)"
        }
    }

    /// `introductory`, `promotional`, `offer code`, `win-back`.
    public var typeName: String {
        switch type {
        case .introductory: "introductory"
        case .promotional: "promotional"
        case .offerCode: "offer code"
        case .winBack: "win-back"
        default: type.key
        }
    }
}

/// How a subscription's price is billed (format 5.0 on): up front, or monthly over a commitment.
public struct CatalogueBillingPlan: Hashable, Sendable {
    /// `BILLED_UPFRONT`, `MONTHLY`.
    public var type: String
    public var price: CataloguePrice
    /// The whole commitment (12 × a monthly price), when given.
    public var commitmentPrice: CataloguePrice?
    public var internalId: String?
    public var enabled: Bool

    public init(type: String, price: CataloguePrice, commitmentPrice: CataloguePrice?, internalId: String?, enabled: Bool) {
        self.type = type
        self.price = price
        self.commitmentPrice = commitmentPrice
        self.internalId = internalId
        self.enabled = enabled
    }
}

/// A product's or group's name and description in one locale (`zh_Hans`, `en_US`, `ar`).
public struct CatalogueLocalization: Hashable, Sendable {
    public var locale: String
    public var displayName: String
    public var description: String

    public init(locale: String, displayName: String, description: String) {
        self.locale = locale
        self.displayName = displayName
        self.description = description
    }
}

/// A subscription group: the subscriptions a customer holds one of at a time.
public struct CatalogueGroup: Hashable, Sendable {
    public var id: String
    public var name: String
    public var localizations: [CatalogueLocalization]

    public init(id: String, name: String, localizations: [CatalogueLocalization] = []) {
        self.id = id
        self.name = name
        self.localizations = localizations
    }
}

/// A price as the file writes it (`"0.99"`, `"29"`, `"6.00"`) and in hundredths of the currency unit,
/// the unit `Product.priceCents` counts in.
public struct CataloguePrice: Hashable, Sendable, CustomStringConvertible {
    /// As written in the file.
    public var text: String
    public var cents: Int

    /// Reads a StoreKit price: digits, optionally a `.` and decimals (at most two that are not zero).
    /// Nil for anything else (`"1,99"`, `"-1"`, `""`, `"1.999"`).
    public init?(_ text: String) {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let whole = parts[0]
        let fraction = parts.count > 1 ? parts[1] : ""
        guard !whole.isEmpty, whole.count <= 9, whole.allSatisfy(\.isASCIIDigit),
            parts.count == 1 || !fraction.isEmpty, fraction.allSatisfy(\.isASCIIDigit),
            fraction.dropFirst(2).allSatisfy({ $0 == "0" }), let units = Int(whole)
        else { return nil }
        let hundredths = Int(String((fraction + "00").prefix(2))) ?? 0
        self.text = text
        self.cents = units * 100 + hundredths
    }

    public var description: String { text }
}
