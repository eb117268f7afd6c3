/// Something a player can buy: an App Store product as the game's catalogue lists it.
public struct Product: Hashable, Sendable, Codable, Identifiable {
    /// The Product_Id, e.g. `com.example.gems.60`.
    public var id: String
    public var appId: String
    public var name: String
    public var type: ProductType
    /// Price in hundredths of `currency`'s unit (fen for CNY, cents for USD), as `priceText` shows it.
    public var priceCents: Int
    public var currency: String
    public var subscriptionGroup: String?
    public var period: SubscriptionPeriod?
    /// What a purchase grants in game currency, when the product is a currency pack.
    public var grantsCurrency: Int

    public init(
        id: String, appId: String, name: String, type: ProductType, priceCents: Int, currency: String,
        subscriptionGroup: String? = nil, period: SubscriptionPeriod? = nil, grantsCurrency: Int = 0
    ) {
        self.id = id
        self.appId = appId
        self.name = name
        self.type = type
        self.priceCents = priceCents
        self.currency = currency
        self.subscriptionGroup = subscriptionGroup
        self.period = period
        self.grantsCurrency = grantsCurrency
    }

    public enum CodingKeys: String, CodingKey {
        case id, name, type, currency, period
        case appId = "app_id"
        case priceCents = "price_cents"
        case subscriptionGroup = "subscription_group"
        case grantsCurrency = "grants_currency"
    }

    /// `¥6.00`, `$0.99`, `JPY 120`: as the App Store shows the amount, so a currency without a minor
    /// unit has no decimals. JPY keeps its code (¥ here is CNY's), like every currency but CNY and USD.
    public var priceText: String {
        let symbol = currency == "CNY" ? "¥" : currency == "USD" ? "$" : currency + " "
        let sign = priceCents < 0 ? "-" : ""
        let magnitude = priceCents.magnitude
        let (units, hundredths) = (magnitude / 100, magnitude % 100)
        // A fraction a zero-decimal price should never carry is still shown, never rounded away.
        if Self.currenciesWithoutMinorUnit.contains(currency), hundredths == 0 { return sign + symbol + String(units) }
        return sign + symbol + String(units) + "." + (hundredths < 10 ? "0" : "") + String(hundredths)
    }

    /// ISO 4217 currencies whose minor unit is zero digits (JPY, KRW, CLP, VND, ...): their prices are
    /// whole numbers, still stored in hundredths like every other `priceCents`.
    public static let currenciesWithoutMinorUnit: Set<String> = [
        "BIF", "CLP", "DJF", "GNF", "ISK", "JPY", "KMF", "KRW", "PYG", "RWF", "UGX", "UYI", "VND", "VUV", "XAF", "XOF", "XPF",
    ]
}

/// The four App Store product types.
public enum ProductType: String, Hashable, Sendable, Codable, CaseIterable {
    case consumable
    case nonConsumable = "non_consumable"
    case autoRenewable = "auto_renewable"
    case nonRenewing = "non_renewing"

    public var name: String {
        switch self {
        case .consumable: "consumable"
        case .nonConsumable: "non-consumable"
        case .autoRenewable: "auto-renewable"
        case .nonRenewing: "non-renewing"
        }
    }

    /// Restore purchases brings these back; consumables are used up.
    public var isRestorable: Bool { self == .nonConsumable || self == .autoRenewable }
}

/// The subscription periods the App Store offers.
public enum SubscriptionPeriod: String, Hashable, Sendable, Codable, CaseIterable {
    case oneWeek = "P1W"
    case oneMonth = "P1M"
    case twoMonths = "P2M"
    case threeMonths = "P3M"
    case sixMonths = "P6M"
    case oneYear = "P1Y"

    public var name: String {
        switch self {
        case .oneWeek: "1 week"
        case .oneMonth: "1 month"
        case .twoMonths: "2 months"
        case .threeMonths: "3 months"
        case .sixMonths: "6 months"
        case .oneYear: "1 year"
        }
    }

    /// Length in days on the real calendar's average, used where an exact calendar step is not needed.
    public var approximateDays: Int64 {
        switch self {
        case .oneWeek: 7
        case .oneMonth: 30
        case .twoMonths: 61
        case .threeMonths: 91
        case .sixMonths: 182
        case .oneYear: 365
        }
    }
}
