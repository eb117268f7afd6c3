/// How a StoreKit configuration becomes an app's catalogue in the store: each file product maps onto the
/// `Product` row that the payment simulator, the grant rule, notification import and the subscription
/// screens already use, and an import says what it did.
///
///     let row = CatalogueImport.product(entry, appId: "1001", settings: file.settings, existing: nil)
///     row.priceCents      // 3000 for "30"
///     row.currency        // "CNY" for the CHN storefront
public enum CatalogueImport {
    /// The store's row for a file's product. A product the store already has keeps what only the store
    /// knows (`grantsCurrency`, what a currency pack grants).
    public static func product(_ entry: CatalogueProduct, appId: String, settings: StoreKitSettings, existing: Product?) -> Product {
        Product(
            id: entry.id, appId: appId, name: entry.displayName(preferring: settings.locale), type: entry.type,
            priceCents: entry.price.cents, currency: settings.currency, subscriptionGroup: entry.subscription?.groupId,
            period: entry.subscription?.period, grantsCurrency: existing?.grantsCurrency ?? 0)
    }

    /// Why a file cannot be imported into `app` at all, or nil: a product id that another app's catalogue
    /// already has (a product id names one product in the store).
    public static func conflict(appId: String, existing: [Product], apps: [String: String]) -> String? {
        guard let taken = existing.first(where: { $0.appId != appId }) else { return nil }
        let owner = apps[taken.appId].map { "\(taken.appId) (\($0))" } ?? taken.appId
        return "product '\(taken.id)' already belongs to app \(owner): a product id names one product in the store"
    }

    /// What an import did, for the command's answer and the audit line.
    public struct Report: Hashable, Sendable {
        public var appId: String
        /// The file's name.
        public var source: String
        public var identifier: String?
        public var version: String
        public var added: [String] = []
        public var updated: [String] = []
        public var unchanged: [String] = []
        /// Products the store holds for this app that the file does not list: kept, since purchases and
        /// subscriptions refer to them.
        public var notInFile: [String] = []
        public var groups: Int = 0
        /// Offers by type key (`introductory`, `promotional`, `offer_code`, `win_back`).
        public var offers: [String: Int] = [:]
        public var locales: [String] = []
        public var storefront: String
        public var currency: String
        public var applied: [String] = []
        public var unknownKeys: [String] = []
        public var notKept: [String] = []
        public var notes: [String] = []

        public init(appId: String, source: String, configuration: StoreKitConfiguration) {
            self.appId = appId
            self.source = source
            identifier = configuration.identifier
            version = configuration.version.description
            storefront = configuration.settings.effectiveStorefront
            currency = configuration.settings.currency
            groups = configuration.groups.count
            for offer in configuration.products.flatMap({ $0.subscription?.offers ?? [] }) {
                offers[offer.type.key, default: 0] += 1
            }
            let locales = configuration.products.flatMap(\.localizations) + configuration.groups.flatMap(\.localizations)
            self.locales = Array(Set(locales.map(\.locale))).sorted()
            applied = configuration.settings.applied
            unknownKeys = configuration.unknownKeys
            notKept = configuration.notKept
        }

        /// Whether the import changed the store's products.
        public var changedProducts: Bool { !added.isEmpty || !updated.isEmpty }

        /// `6 products (2 added, 1 updated, 3 unchanged), 1 group, 10 offers; 2 unknown keys skipped`.
        public var summary: String {
            let products = added.count + updated.count + unchanged.count
            let offerCount = offers.values.reduce(0, +)
            var text = "\(products) product\(products == 1 ? "" : "s") (\(added.count) added, \(updated.count) updated, "
                + "\(unchanged.count) unchanged), \(groups) group\(groups == 1 ? "" : "s"), \(offerCount) offer\(offerCount == 1 ? "" : "s")"
            if !unknownKeys.isEmpty { text += "; \(unknownKeys.count) unknown key\(unknownKeys.count == 1 ? "" : "s") skipped" }
            return text
        }
    }

    /// What the import should tell the developer about the app itself: the file's App Store app id
    /// when it differs from the app's, or when the app has none yet.
    public static func notes(app: App, settings: StoreKitSettings) -> [String] {
        guard let text = settings.appStoreAppId, let fileId = Int64(text), fileId > 0 else { return [] }
        switch app.appleAppId {
        case nil:
            return ["the file was synced with App Store app id \(fileId); set it with `storedesk apps set \(app.id) --apple-app-id \(fileId)`"]
        case let appId? where appId != fileId:
            return ["the file was synced with App Store app id \(fileId), but app \(app.id) has apple app id \(appId)"]
        default:
            return []
        }
    }
}
