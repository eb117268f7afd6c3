/// The test-environment settings a StoreKit configuration file carries (its `settings` object). StoreDesk
/// applies those it has the same control for: the time rate (subscription demos and `events simulate`),
/// Ask to Buy and failing transactions (the payment simulator, for this app's products). The others are
/// kept and shown.
public struct StoreKitSettings: Hashable, Sendable {
    /// `_timeRate`: how fast subscription time runs in the test session; nil when the file sets none.
    public var timeRate: StoreKitTimeRate?
    /// `_compatibilityTimeRate`: the rate older Xcode versions fall back to, by format major version.
    public var compatibilityTimeRates: [Int]
    /// `_askToBuyEnabled`: every purchase waits for a parent's approval.
    public var askToBuy: Bool
    /// `_failTransactionsEnabled`: every purchase fails.
    public var failTransactions: Bool
    /// `_billingIssuesEnabled` or `_renewalBillingIssuesEnabled`: renewals fail into billing retry.
    public var billingIssues: Bool
    /// `_billingGracePeriodEnabled`.
    public var billingGracePeriod: Bool
    /// `_disableDialogs`.
    public var disableDialogs: Bool
    /// `_locale`: the locale the test store shows (`zh_Hans`).
    public var locale: String?
    /// `_storefront`: ISO 3166 alpha-3 country (`CHN`, `USA`); the prices are in its currency.
    public var storefront: String?
    /// The names of the StoreKit errors the file turns on (`_storeKitErrors` entries `enabled: true`).
    public var enabledErrors: [String]
    /// `_applicationInternalID`: the app's App Store id, in files synced with App Store Connect.
    public var appStoreAppId: String?
    /// `_developerTeamID`.
    public var teamId: String?
    /// `_lastSynchronizedDate`: when the file was last synced with App Store Connect.
    public var lastSynchronized: Instant?

    public init(
        timeRate: StoreKitTimeRate? = nil, compatibilityTimeRates: [Int] = [], askToBuy: Bool = false,
        failTransactions: Bool = false, billingIssues: Bool = false, billingGracePeriod: Bool = false,
        disableDialogs: Bool = false, locale: String? = nil, storefront: String? = nil, enabledErrors: [String] = [],
        appStoreAppId: String? = nil, teamId: String? = nil, lastSynchronized: Instant? = nil
    ) {
        self.timeRate = timeRate
        self.compatibilityTimeRates = compatibilityTimeRates
        self.askToBuy = askToBuy
        self.failTransactions = failTransactions
        self.billingIssues = billingIssues
        self.billingGracePeriod = billingGracePeriod
        self.disableDialogs = disableDialogs
        self.locale = locale
        self.storefront = storefront
        self.enabledErrors = enabledErrors
        self.appStoreAppId = appStoreAppId
        self.teamId = teamId
        self.lastSynchronized = lastSynchronized
    }

    /// The storefront the prices are in: the file's, else Xcode's default (USA).
    public var effectiveStorefront: String { storefront ?? "USA" }

    /// The currency of the file's prices.
    public var currency: String { Storefront.currency(of: effectiveStorefront) }

    /// The StoreKit rate StoreDesk runs this app's subscriptions at: the file's `_timeRate` when StoreDesk
    /// knows it, else the first compatibility rate it knows; nil for real time or none.
    public var appliedTimeRate: StoreKitTimeRate? {
        let candidates = (timeRate.map { [$0] } ?? []) + compatibilityTimeRates.map(StoreKitTimeRate.init(rawValue:))
        return candidates.first { $0.timeRate != nil }
    }

    /// StoreDesk's time rate for the file's: real time when the file sets none or none StoreDesk knows.
    public var storeDeskTimeRate: TimeRate { appliedTimeRate?.timeRate ?? .realTime }
}

/// A StoreKit test time rate as the file stores it (`SKTestSession.TimeRate`'s raw value), with the
/// StoreDesk `TimeRate` that runs subscriptions alike.
///
/// StoreDesk scales all subscription time by one factor (a month is 30 days). The "one renewal every …"
/// rates (1000 on) renew every subscription at the same pace whatever its period; StoreDesk runs them as
/// that pace for a month, so other periods renew in proportion (`isPerRenewal` says so).
///
///     StoreKitTimeRate(rawValue: 15).timeRate   // a month every 30 seconds
public struct StoreKitTimeRate: Hashable, Sendable, CustomStringConvertible {
    public var rawValue: Int

    public init(rawValue: Int) { self.rawValue = rawValue }

    /// StoreKit's name for the rate; nil for a value StoreDesk does not know.
    public var name: String? { Self.known[rawValue]?.name }

    /// The StoreDesk rate that runs subscriptions alike; `.realTime` for 0, nil when unknown.
    public var timeRate: TimeRate? {
        guard let known = Self.known[rawValue] else { return nil }
        return TimeRate(realMillisPerMonth: known.monthMillis)
    }

    /// Whether StoreKit renews every period at the same pace at this rate (the 1000 range).
    public var isPerRenewal: Bool { rawValue >= 1000 }

    public var description: String { name.map { "\(rawValue) (\($0))" } ?? "\(rawValue) (unknown)" }

    /// `SKTestTimeRate` values: the StoreKitTest header's order (0 … 6, 10 … 13, 15, 1000 … 1005), each
    /// with the real milliseconds a 30-day month takes (nil: real time).
    private static let known: [Int: (name: String, monthMillis: Int64?)] = [
        0: ("real time", nil),
        1: ("one hour is one day", 30 * 3_600_000),
        2: ("thirty minutes is one day", 30 * 1_800_000),
        3: ("five minutes is one day", 30 * 300_000),
        4: ("one minute is one day", 30 * 60_000),
        5: ("thirty seconds is one day", 30 * 30_000),
        6: ("one second is one day", 30 * 1_000),
        10: ("monthly renewal every hour", 3_600_000),
        11: ("monthly renewal every 30 minutes", 1_800_000),
        12: ("monthly renewal every 15 minutes", 900_000),
        13: ("monthly renewal every 5 minutes", 300_000),
        15: ("monthly renewal every 30 seconds", 30_000),
        1000: ("one renewal every 15 minutes", 900_000),
        1001: ("one renewal every 5 minutes", 300_000),
        1002: ("one renewal every minute", 60_000),
        1003: ("one renewal every 30 seconds", 30_000),
        1004: ("one renewal every 10 seconds", 10_000),
        1005: ("one renewal every 2 seconds", 2_000),
    ]
}

/// The App Store's storefronts and the currency each prices in.
public enum Storefront {
    /// The currency for an ISO 3166 alpha-3 storefront; USD for storefronts the App Store prices in US
    /// dollars and for any this table does not list.
    public static func currency(of storefront: String) -> String {
        currencies[storefront.uppercased()] ?? "USD"
    }

    private static let currencies: [String: String] = {
        var table: [String: String] = [:]
        let groups: [(String, [String])] = [
            ("EUR", ["AUT", "BEL", "BGR", "CYP", "DEU", "ESP", "EST", "FIN", "FRA", "GRC", "HRV", "IRL", "ITA", "LTU", "LUX",
                     "LVA", "MLT", "NLD", "PRT", "SVK", "SVN"]),
            ("CHF", ["CHE", "LIE"]),
        ]
        for (currency, countries) in groups { for country in countries { table[country] = currency } }
        let single: [(String, String)] = [
            ("USA", "USD"), ("CAN", "CAD"), ("MEX", "MXN"), ("BRA", "BRL"), ("CHL", "CLP"), ("COL", "COP"), ("PER", "PEN"),
            ("GBR", "GBP"), ("NOR", "NOK"), ("SWE", "SEK"), ("DNK", "DKK"), ("POL", "PLN"), ("CZE", "CZK"), ("HUN", "HUF"),
            ("ROU", "RON"), ("TUR", "TRY"), ("RUS", "RUB"), ("ISR", "ILS"), ("ARE", "AED"), ("SAU", "SAR"), ("QAT", "QAR"),
            ("EGY", "EGP"), ("ZAF", "ZAR"), ("NGA", "NGN"), ("KAZ", "KZT"), ("TZA", "TZS"), ("IND", "INR"), ("PAK", "PKR"),
            ("IDN", "IDR"), ("THA", "THB"), ("MYS", "MYR"), ("PHL", "PHP"), ("VNM", "VND"), ("SGP", "SGD"), ("CHN", "CNY"),
            ("HKG", "HKD"), ("TWN", "TWD"), ("JPN", "JPY"), ("KOR", "KRW"), ("AUS", "AUD"), ("NZL", "NZD"),
        ]
        for (country, currency) in single { table[country] = currency }
        return table
    }()
}

/// What the payment simulator does to an app's purchases because of its StoreKit configuration: Ask to
/// Buy defers each one for a parent's answer, failing transactions makes each one fail.
public struct StoreKitPurchaseTesting: Hashable, Sendable {
    public var askToBuy: Bool
    public var failTransactions: Bool

    public init(askToBuy: Bool, failTransactions: Bool) {
        self.askToBuy = askToBuy
        self.failTransactions = failTransactions
    }

    /// Whether it changes anything.
    public var isActive: Bool { askToBuy || failTransactions }
}

extension StoreKitSettings {
    /// The purchase settings the payment simulator applies for this file's app.
    public var purchaseTesting: StoreKitPurchaseTesting {
        StoreKitPurchaseTesting(askToBuy: askToBuy, failTransactions: failTransactions)
    }

    /// The settings StoreDesk applies, one phrase each: `time rate 15 (monthly renewal every 30 seconds):
    /// subscriptions run at 1 month every 30s`, `Ask to Buy: every purchase waits for a parent`.
    public var applied: [String] {
        var lines: [String] = []
        if let rate = appliedTimeRate, let storeDesk = rate.timeRate {
            let source = rate == timeRate ? "time rate \(rate)" : "compatibility time rate \(rate) (the file's \(timeRate?.description ?? "none") is unknown)"
            lines.append("\(source): subscription demos run at \(storeDesk.name)" + (rate.isPerRenewal ? " (StoreDesk scales by the month, so other periods renew in proportion)" : ""))
        } else if let timeRate {
            lines.append("time rate \(timeRate): not a rate StoreDesk knows; subscription demos keep real time")
        }
        if askToBuy { lines.append("Ask to Buy: every purchase of this app waits for a parent's answer in simulations") }
        if failTransactions { lines.append("failing transactions: every purchase of this app fails in simulations") }
        return lines
    }
}
