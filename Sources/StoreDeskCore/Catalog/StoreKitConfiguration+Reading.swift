import Foundation

/// Why a file could not be read as a StoreKit configuration, in one line (the caller names the file).
public enum StoreKitFileError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The bytes are not JSON at all.
    case notJSON(String)
    /// JSON, but not a StoreKit configuration (another kind of file).
    case notStoreKit(String)
    /// A StoreKit configuration with a value StoreDesk cannot take: where, and what is wrong.
    case invalid(path: String, problem: String)

    public var description: String {
        switch self {
        case .notJSON(let why): "is not JSON (\(why))"
        case .notStoreKit(let why): "is not a StoreKit configuration: \(why)"
        case .invalid(let path, let problem): path.isEmpty ? problem : "\(path): \(problem)"
        }
    }
}

extension StoreKitConfiguration {
    /// Parses a `.storekit` file's bytes. Keys it does not know are collected in `unknownKeys` and
    /// skipped; anything else that is off (not JSON, not a StoreKit configuration, a product without an
    /// id, a price or period it cannot read, a product id given twice) throws, naming where.
    public static func read(_ bytes: Data) throws(StoreKitFileError) -> StoreKitConfiguration {
        let log = StoreKitReadLog()
        let decoder = JSONDecoder()
        if let key = CodingUserInfoKey.storeKitLog { decoder.userInfo[key] = log }
        do {
            _ = try decoder.decode(StoreKitShape.self, from: bytes)
            var configuration = try decoder.decode(StoreKitConfiguration.self, from: bytes)
            configuration.unknownKeys = log.unknownKeys
            configuration.notKept = log.notKept
            return configuration
        } catch let error as StoreKitFileError {
            throw error
        } catch let error as DecodingError {
            throw StoreKitFileError(error)
        } catch {
            throw .notJSON("\(error)")
        }
    }
}

extension StoreKitFileError {
    /// The one-line form of a decoding error: the JSON path, and what was expected there.
    init(_ error: DecodingError) {
        switch error {
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            self = .notJSON(context.underlyingError.map { "\($0)" } ?? context.debugDescription)
        case .dataCorrupted(let context):
            self = .invalid(path: jsonPath(context.codingPath), problem: context.debugDescription)
        case .keyNotFound(let key, let context):
            self = .invalid(path: jsonPath(context.codingPath), problem: "\(key.stringValue) is missing")
        case .typeMismatch(let type, let context):
            self = .invalid(path: jsonPath(context.codingPath), problem: "expected \(jsonTypeName(type))")
        case .valueNotFound(let type, let context):
            self = .invalid(path: jsonPath(context.codingPath), problem: "is null, expected \(jsonTypeName(type))")
        @unknown default:
            self = .invalid(path: "", problem: "\(error)")
        }
    }
}

/// `subscriptionGroups[0].subscriptions[1].displayPrice`.
func jsonPath(_ codingPath: [any CodingKey]) -> String {
    var path = ""
    for key in codingPath {
        if let index = key.intValue, key.stringValue.hasPrefix("Index") || key.stringValue == String(index) {
            path += "[\(index)]"
        } else {
            path += (path.isEmpty ? "" : ".") + key.stringValue
        }
    }
    return path
}

private func jsonTypeName(_ type: Any.Type) -> String {
    if type == String.self { return "a string" }
    if type == Bool.self { return "true or false" }
    if type == Int.self || type == Int64.self { return "a whole number" }
    if type == Double.self { return "a number" }
    let name = "\(type)"
    if name.hasPrefix("Array") || name.hasPrefix("[") { return "an array" }
    if name.hasPrefix("Dictionary") || name.contains("KeyedDecodingContainer") { return "an object" }
    return name
}

// MARK: - Reading with unknown keys

/// Any JSON object key, so a reader sees every key an object has.
struct JSONKey: CodingKey, ExpressibleByStringLiteral, Hashable {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { return nil }
    init(stringLiteral value: String) { stringValue = value }
}

/// What a read notices besides the values: unknown keys, keys not kept, ids already seen.
final class StoreKitReadLog: @unchecked Sendable {
    private let lock = NSLock()
    private var unknown: [String] = []
    private var dropped: [String] = []
    private var claimed: [String: String] = [:]

    var unknownKeys: [String] { lock.withLock { unknown } }
    var notKept: [String] { lock.withLock { dropped } }

    func unknown(_ paths: [String]) { lock.withLock { unknown += paths } }
    func notKept(_ what: String) { lock.withLock { dropped.append(what) } }

    /// Records `id` at `path`; returns the path that already had it.
    func claim(_ id: String, at path: String) -> String? {
        lock.withLock {
            if let earlier = claimed[id] { return earlier }
            claimed[id] = path
            return nil
        }
    }
}

extension CodingUserInfoKey {
    static let storeKitLog = CodingUserInfoKey(rawValue: "storedesk.storekit.read-log")
}

extension Decoder {
    var storeKitLog: StoreKitReadLog? { CodingUserInfoKey.storeKitLog.flatMap { userInfo[$0] as? StoreKitReadLog } }

    /// This value as a JSON object; its keys outside `known` are logged as unknown (and then skipped).
    func storeKitObject(known: Set<String>) throws -> KeyedDecodingContainer<JSONKey> {
        let container = try self.container(keyedBy: JSONKey.self)
        let unknown = container.allKeys.map(\.stringValue).filter { !known.contains($0) }.sorted()
        if !unknown.isEmpty { storeKitLog?.unknown(unknown.map { jsonPath(codingPath + [JSONKey(stringValue: $0)]) }) }
        return container
    }

    /// The name of the innermost object key on the path (`adHocOffers` for `...adHocOffers[0]`).
    var enclosingKey: String? { codingPath.last { $0.intValue == nil }?.stringValue }
}

extension KeyedDecodingContainer where Key == JSONKey {
    /// A value that is wrong where it stands: thrown so the error names its path.
    func invalid(_ key: JSONKey, _ problem: String) -> DecodingError {
        .dataCorrupted(DecodingError.Context(codingPath: codingPath + [key], debugDescription: problem))
    }

    /// An optional value; null reads as absent.
    func optional<T: Decodable>(_ type: T.Type, _ key: JSONKey) throws -> T? {
        try decodeIfPresent(type, forKey: key)
    }

    /// A string that must be there and not be empty.
    func requiredText(_ key: JSONKey) throws -> String {
        let text = try decode(String.self, forKey: key)
        guard !text.isEmpty else { throw invalid(key, "is empty") }
        return text
    }

    /// A price as StoreKit writes it (`"0.99"`).
    func price(_ key: JSONKey, allowZero: Bool) throws -> CataloguePrice {
        let text = try decode(String.self, forKey: key)
        guard let price = CataloguePrice(text) else {
            throw invalid(key, "\"\(text)\" is not a price (digits, optionally \".\" and up to two decimals)")
        }
        guard allowZero || price.cents > 0 else { throw invalid(key, "\"\(text)\": a product's price must be above 0") }
        return price
    }

    /// An array that may be absent or null (then empty).
    func list<T: Decodable>(_ type: T.Type, _ key: JSONKey) throws -> [T] {
        try decodeIfPresent([T].self, forKey: key) ?? []
    }
}

// MARK: - The file's shape

/// The first look at a file: a JSON object with a `version` object and at least one product list, or it
/// is some other JSON file.
private struct StoreKitShape: Decodable {
    init(from decoder: any Decoder) throws {
        let container: KeyedDecodingContainer<JSONKey>
        do {
            container = try decoder.container(keyedBy: JSONKey.self)
        } catch {
            throw StoreKitFileError.notStoreKit("the file holds \(Self.kind(of: decoder)), not an object")
        }
        guard container.contains("version") else { throw StoreKitFileError.notStoreKit("it has no \"version\"") }
        guard (try? container.nestedContainer(keyedBy: JSONKey.self, forKey: "version").decode(Int.self, forKey: "major")) != nil
        else {
            throw StoreKitFileError.notStoreKit("\"version\" is not an object with a whole-number \"major\" (Xcode writes {\"major\" : 4, \"minor\" : 0})")
        }
        let lists: [JSONKey] = ["products", "nonRenewingSubscriptions", "subscriptionGroups"]
        guard lists.contains(where: container.contains) else {
            throw StoreKitFileError.notStoreKit("it has none of \"products\", \"nonRenewingSubscriptions\", \"subscriptionGroups\"")
        }
    }

    private static func kind(of decoder: any Decoder) -> String {
        guard let single = try? decoder.singleValueContainer() else { return "an array" }
        if single.decodeNil() { return "null" }
        if (try? single.decode(Bool.self)) != nil { return "true or false" }
        if (try? single.decode(Double.self)) != nil { return "a number" }
        if (try? single.decode(String.self)) != nil { return "a string" }
        return "an array"
    }
}

// MARK: - Each part

extension StoreKitConfiguration: Decodable {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.storeKitObject(known: [
            "identifier", "version", "products", "nonRenewingSubscriptions", "subscriptionGroups", "settings",
            "subscriptionOffersKeyPair", "appPolicies", "subscriptionBundleGroups", "subscriptionSuiteGroups",
        ])
        let version = try c.nestedContainer(keyedBy: JSONKey.self, forKey: "version")
        let versionKeys = Set(version.allKeys.map(\.stringValue)).subtracting(["major", "minor"]).sorted()
        if !versionKeys.isEmpty { decoder.storeKitLog?.unknown(versionKeys.map { "version.\($0)" }) }
        self.init(
            identifier: try c.optional(String.self, "identifier"),
            version: Version(
                major: try version.decode(Int.self, forKey: "major"), minor: try version.decodeIfPresent(Int.self, forKey: "minor") ?? 0),
            products: try c.list(CatalogueProduct.self, "products") + c.list(CatalogueProduct.self, "nonRenewingSubscriptions"),
            groups: [], settings: try c.optional(StoreKitSettings.self, "settings") ?? StoreKitSettings())
        let groups = try c.list(GroupEntry.self, "subscriptionGroups")
        self.groups = groups.map(\.group)
        products += groups.flatMap(\.subscriptions)
        let log = decoder.storeKitLog
        if c.contains("subscriptionOffersKeyPair") {
            log?.notKept("subscriptionOffersKeyPair: Xcode's private key for signing promotional offers (a secret; StoreDesk does not keep it)")
        }
        if c.contains("appPolicies") { log?.notKept("appPolicies: the EULA and privacy policy links") }
        for key in ["subscriptionBundleGroups", "subscriptionSuiteGroups"] {
            let count = try c.decodeIfPresent([Ignored].self, forKey: JSONKey(stringValue: key))?.count ?? 0
            if count > 0 { log?.notKept("\(key): \(count) entr\(count == 1 ? "y" : "ies") (StoreDesk has no such groups)") }
        }
    }
}

/// A value read only to be counted.
private struct Ignored: Decodable {
    init(from decoder: any Decoder) throws {}
}

/// A subscription group as the file nests it: the group, and its subscriptions.
private struct GroupEntry: Decodable {
    var group: CatalogueGroup
    var subscriptions: [CatalogueProduct]

    init(from decoder: any Decoder) throws {
        let c = try decoder.storeKitObject(known: ["id", "localizations", "name", "subscriptions"])
        let id = try c.requiredText("id")
        if let earlier = decoder.storeKitLog?.claim("group " + id, at: jsonPath(decoder.codingPath)) {
            throw c.invalid("id", "subscription group \"\(id)\" is also \(earlier)")
        }
        group = CatalogueGroup(
            id: id, name: try c.optional(String.self, "name") ?? id,
            localizations: try c.list(CatalogueLocalization.self, "localizations"))
        subscriptions = try c.list(CatalogueProduct.self, "subscriptions")
        for index in subscriptions.indices {
            let path = c.codingPath + [JSONKey(stringValue: "subscriptions"), ArrayIndex(index)]
            guard var terms = subscriptions[index].subscription else { continue }
            if terms.groupId.isEmpty {
                terms.groupId = id
            } else if terms.groupId != id {
                throw DecodingError.dataCorrupted(
                    .init(
                        codingPath: path + [JSONKey(stringValue: "subscriptionGroupID")],
                        debugDescription: "\"\(terms.groupId)\" is not its group's id \"\(id)\""))
            }
            subscriptions[index].subscription = terms
        }
    }
}

/// An array position on a coding path.
private struct ArrayIndex: CodingKey {
    var intValue: Int?
    var stringValue: String
    init(_ index: Int) {
        intValue = index
        stringValue = "Index \(index)"
    }
    init?(intValue: Int) { self.init(intValue) }
    init?(stringValue: String) { nil }
}

extension CatalogueProduct: Decodable {
    private static let keys: Set<String> = [
        "displayPrice", "familyShareable", "internalID", "localizations", "productID", "referenceName", "type",
    ]
    private static let subscriptionKeys: Set<String> = [
        "subscriptionGroupID", "groupNumber", "recurringSubscriptionPeriod", "introductoryOffer", "introductoryOffers",
        "adHocOffers", "codeOffers", "winbackOffers", "billingPlans",
    ]
    /// The file's product types and the list each belongs in.
    private static let types: [String: (type: ProductType, list: String)] = [
        "Consumable": (.consumable, "products"), "NonConsumable": (.nonConsumable, "products"),
        "NonRenewingSubscription": (.nonRenewing, "nonRenewingSubscriptions"),
        "RecurringSubscription": (.autoRenewable, "subscriptionGroups"),
    ]

    public init(from decoder: any Decoder) throws {
        let list = decoder.codingPath.first?.stringValue ?? "products"
        let inGroup = list == "subscriptionGroups"
        let c = try decoder.storeKitObject(known: inGroup ? Self.keys.union(Self.subscriptionKeys) : Self.keys)
        let id = try c.requiredText("productID")
        guard id.count <= 255, !id.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.properties.generalCategory == .control })
        else { throw c.invalid("productID", "\"\(id)\" is not a product id (no spaces, at most 255 characters)") }
        if let earlier = decoder.storeKitLog?.claim("product " + id, at: jsonPath(decoder.codingPath)) {
            throw c.invalid("productID", "\"\(id)\" is also the id of \(earlier)")
        }
        let typeText = try c.decode(String.self, forKey: "type")
        guard let known = Self.types[typeText] else {
            throw c.invalid("type", "\"\(typeText)\" is not a StoreKit product type (\(Self.types.keys.sorted().joined(separator: ", ")))")
        }
        guard known.list == list else { throw c.invalid("type", "a \(typeText) belongs in \(known.list), not \(list)") }
        self.init(
            id: id, type: known.type, referenceName: try c.optional(String.self, "referenceName"),
            internalId: try c.optional(String.self, "internalID"), price: try c.price("displayPrice", allowZero: false),
            familyShareable: try c.optional(Bool.self, "familyShareable") ?? false,
            localizations: try c.list(CatalogueLocalization.self, "localizations"))
        guard inGroup else { return }
        let level = try c.decode(Int.self, forKey: "groupNumber")
        guard level >= 1 else { throw c.invalid("groupNumber", "\(level): a level is 1 or more") }
        let periodText = try c.decode(String.self, forKey: "recurringSubscriptionPeriod")
        guard let period = SubscriptionPeriod(rawValue: periodText) else {
            throw c.invalid(
                "recurringSubscriptionPeriod",
                "\"\(periodText)\" is not an auto-renewable period (\(SubscriptionPeriod.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        var offers: [CatalogueOffer] = []
        for intro in try c.list(CatalogueOffer.self, "introductoryOffers") + [c.optional(CatalogueOffer.self, "introductoryOffer")].compactMap({ $0 })
        where !offers.contains(intro) {
            offers.append(intro)
        }
        offers += try c.list(CatalogueOffer.self, "adHocOffers")
        offers += try c.list(CatalogueOffer.self, "codeOffers")
        offers += try c.list(CatalogueOffer.self, "winbackOffers")
        subscription = CatalogueSubscription(
            groupId: try c.optional(String.self, "subscriptionGroupID") ?? "", level: level, period: period, offers: offers,
            billingPlans: try c.list(CatalogueBillingPlan.self, "billingPlans"))
    }
}

extension CatalogueOffer: Decodable {
    /// Each list's offer type and the keys its offers have beside the shared ones.
    private static let lists: [String: (type: OfferType, keys: Set<String>)] = [
        "introductoryOffer": (.introductory, []), "introductoryOffers": (.introductory, []),
        "adHocOffers": (.promotional, ["offerID", "referenceName"]),
        "codeOffers": (.offerCode, ["referenceName", "eligibility", "isStackable"]),
        "winbackOffers": (.winBack, ["offerID", "referenceName", "isEligible"]),
    ]
    private static let sharedKeys: Set<String> = [
        "internalID", "paymentMode", "subscriptionPeriod", "displayPrice", "numberOfPeriods", "billingPlanType",
    ]
    private static let modes: [String: OfferDiscountType] = [
        "free": .freeTrial, "payAsYouGo": .payAsYouGo, "payUpFront": .payUpFront,
    ]

    public init(from decoder: any Decoder) throws {
        let list = Self.lists[decoder.enclosingKey ?? ""] ?? (.introductory, [])
        let c = try decoder.storeKitObject(known: Self.sharedKeys.union(list.keys))
        let modeText = try c.decode(String.self, forKey: "paymentMode")
        guard let mode = Self.modes[modeText] else {
            throw c.invalid("paymentMode", "\"\(modeText)\" is not free, payAsYouGo or payUpFront")
        }
        let periodText = try c.decode(String.self, forKey: "subscriptionPeriod")
        guard let period = CalendarPeriod(iso8601: periodText) else {
            throw c.invalid("subscriptionPeriod", "\"\(periodText)\" is not a period like P3D, P1W, P1M or P1Y")
        }
        let count = try c.optional(Int.self, "numberOfPeriods") ?? 1
        guard (1...120).contains(count) else { throw c.invalid("numberOfPeriods", "\(count): from 1 to 120") }
        let price = try c.contains("displayPrice") ? c.price("displayPrice", allowZero: true) : nil
        if mode != .freeTrial, price == nil { throw c.invalid("displayPrice", "a \(modeText) offer needs a price") }
        var eligibility: [Eligibility] = []
        for text in try c.list(String.self, "eligibility") {
            guard let value = Eligibility(rawValue: text) else {
                throw c.invalid("eligibility", "\"\(text)\" is not new, existing or expired")
            }
            eligibility.append(value)
        }
        self.init(
            type: list.type, offerId: try c.optional(String.self, "offerID"), referenceName: try c.optional(String.self, "referenceName"),
            internalId: try c.optional(String.self, "internalID"), paymentMode: mode, period: period, periodCount: count,
            price: price, eligibility: eligibility, stackable: try c.optional(Bool.self, "isStackable"),
            eligible: try c.optional(Bool.self, "isEligible"), billingPlanType: try c.optional(String.self, "billingPlanType"))
    }
}

extension CatalogueBillingPlan: Decodable {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.storeKitObject(known: ["billingPlanType", "commitmentDisplayPrice", "displayPrice", "internalID", "isEnabled"])
        self.init(
            type: try c.requiredText("billingPlanType"), price: try c.price("displayPrice", allowZero: true),
            commitmentPrice: try c.contains("commitmentDisplayPrice") ? c.price("commitmentDisplayPrice", allowZero: true) : nil,
            internalId: try c.optional(String.self, "internalID"), enabled: try c.optional(Bool.self, "isEnabled") ?? true)
    }
}

extension CatalogueLocalization: Decodable {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.storeKitObject(known: ["description", "displayName", "locale"])
        self.init(
            locale: try c.requiredText("locale"), displayName: try c.optional(String.self, "displayName") ?? "",
            description: try c.optional(String.self, "description") ?? "")
    }
}

extension StoreKitSettings: Decodable {
    private static let keys: Set<String> = [
        "_timeRate", "_compatibilityTimeRate", "_askToBuyEnabled", "_failTransactionsEnabled", "_billingIssuesEnabled",
        "_renewalBillingIssuesEnabled", "_billingGracePeriodEnabled", "_disableDialogs", "_locale", "_storefront",
        "_storeKitError", "_storeKitErrors", "_applicationInternalID", "_developerTeamID", "_lastSynchronizedDate",
        "_shouldSetupSyncOnLoad", "_lastVerificationError",
    ]

    public init(from decoder: any Decoder) throws {
        let c = try decoder.storeKitObject(known: Self.keys)
        func flag(_ key: JSONKey) throws -> Bool { try c.optional(Bool.self, key) ?? false }
        var compatibility: [Int] = []
        if let single = try? c.decodeIfPresent(Int.self, forKey: "_compatibilityTimeRate") {
            compatibility = [single]
        } else if let byVersion = try c.optional([String: Int].self, "_compatibilityTimeRate") {
            compatibility = byVersion.sorted { (Int($0.key) ?? 0) > (Int($1.key) ?? 0) }.map(\.value)
        }
        let storefront = try c.optional(String.self, "_storefront")
        if let storefront, storefront.count != 3 || !storefront.allSatisfy({ $0.isASCII && $0.isLetter }) {
            throw c.invalid("_storefront", "\"\(storefront)\" is not an ISO 3166 alpha-3 country code like USA or CHN")
        }
        let synced = try c.optional(Double.self, "_lastSynchronizedDate")
        self.init(
            timeRate: try c.optional(Int.self, "_timeRate").map(StoreKitTimeRate.init(rawValue:)),
            compatibilityTimeRates: compatibility, askToBuy: try flag("_askToBuyEnabled"),
            failTransactions: try flag("_failTransactionsEnabled"),
            billingIssues: try flag("_billingIssuesEnabled") || flag("_renewalBillingIssuesEnabled"),
            billingGracePeriod: try flag("_billingGracePeriodEnabled"), disableDialogs: try flag("_disableDialogs"),
            locale: try c.optional(String.self, "_locale"), storefront: storefront?.uppercased(),
            enabledErrors: try c.list(StoreKitErrorSetting.self, "_storeKitErrors").filter(\.enabled).map(\.name),
            appStoreAppId: try c.optional(String.self, "_applicationInternalID"),
            teamId: try c.optional(String.self, "_developerTeamID"),
            // Seconds since Apple's reference date, 2001-01-01 UTC.
            lastSynchronized: synced.map { Instant(millis: 978_307_200_000 + Int64(($0 * 1000).rounded())) })
        _ = try c.optional(Int.self, "_storeKitError")
    }
}

/// One entry of `_storeKitErrors`: an API whose simulated error can be turned on.
private struct StoreKitErrorSetting: Decodable {
    var name: String
    var enabled: Bool

    init(from decoder: any Decoder) throws {
        let c = try decoder.storeKitObject(known: ["current", "enabled", "name"])
        name = try c.decode(String.self, forKey: "name")
        enabled = try c.optional(Bool.self, "enabled") ?? false
        _ = try c.optional(ErrorChoice.self, "current")
    }

    /// The error chosen for that API (`{index, type}`).
    private struct ErrorChoice: Decodable {
        init(from decoder: any Decoder) throws {
            let c = try decoder.storeKitObject(known: ["index", "type"])
            _ = try c.optional(Int.self, "index")
            _ = try c.optional(String.self, "type")
        }
    }
}
