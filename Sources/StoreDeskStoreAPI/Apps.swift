import StoreDeskCore

/// An app as `apps show` sees it: its settings, and what the store holds for it.
public struct AppOverview: Sendable, Hashable {
    public var app: App
    /// Products in the store's catalogue for this app (imported or from the demo).
    public var productCount: Int
    /// The StoreKit configuration file its catalogue was last imported from, and when; nil when none was.
    public var catalogueSource: String?
    public var catalogueImportedAt: Instant?

    public init(app: App, productCount: Int, catalogueSource: String?, catalogueImportedAt: Instant?) {
        self.app = app
        self.productCount = productCount
        self.catalogueSource = catalogueSource
        self.catalogueImportedAt = catalogueImportedAt
    }
}

/// An app's catalogue as the store holds it: every product row of the app, with the StoreKit details of
/// those that came from a StoreKit configuration, and where that file came from.
public struct AppCatalogue: Sendable, Hashable {
    /// One product: the row every other part of StoreDesk uses, and the file's details when imported.
    public struct Entry: Sendable, Hashable {
        public var product: Product
        /// Nil for a product that did not come from a StoreKit file (the demo's, a seeded store's).
        public var details: CatalogueProduct?

        public init(product: Product, details: CatalogueProduct?) {
            self.product = product
            self.details = details
        }
    }

    /// The file the catalogue was last imported from.
    public struct Source: Sendable, Hashable {
        public var file: String
        public var identifier: String?
        public var version: String
        public var importedAt: Instant
        public var importedBy: String
        public var storefront: String
        public var currency: String
        public var settings: StoreKitSettings

        public init(
            file: String, identifier: String?, version: String, importedAt: Instant, importedBy: String, storefront: String,
            currency: String, settings: StoreKitSettings
        ) {
            self.file = file
            self.identifier = identifier
            self.version = version
            self.importedAt = importedAt
            self.importedBy = importedBy
            self.storefront = storefront
            self.currency = currency
            self.settings = settings
        }
    }

    public var app: App
    public var source: Source?
    public var groups: [CatalogueGroup]
    /// Imported products in file order, then any others by id.
    public var entries: [Entry]

    public init(app: App, source: Source?, groups: [CatalogueGroup], entries: [Entry]) {
        self.app = app
        self.source = source
        self.groups = groups
        self.entries = entries
    }

    /// The subscription levels of a group, highest service (level 1) first.
    public func subscriptions(inGroup id: String) -> [Entry] {
        entries.filter { $0.details?.subscription?.groupId == id }
            .sorted { ($0.details?.subscription?.level ?? 0, $0.product.id) < ($1.details?.subscription?.level ?? 0, $1.product.id) }
    }
}
