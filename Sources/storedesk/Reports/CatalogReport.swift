import Foundation
import StoreDeskCore
import StoreDeskStoreAPI
import StoreDeskUI

/// `catalog import --json`: what the import did.
struct CatalogImportJSON: Encodable {
    struct Products: Encodable {
        var added, updated, unchanged, notInFile: [String]
        enum CodingKeys: String, CodingKey { case added, updated, unchanged, notInFile = "not_in_file" }
    }

    var app: String
    var file: String
    var store: String
    @NullWhenAbsent var identifier: String?
    var version: String
    var storefront: String
    var currency: String
    var products: Products
    var groups: Int
    var offers: [String: Int]
    var locales: [String]
    var appliedSettings: [String]
    var unknownKeys: [String]
    var notKept: [String]
    var notes: [String]

    enum CodingKeys: String, CodingKey {
        case app, file, store, identifier, version, storefront, currency, products, groups, offers, locales, notes
        case appliedSettings = "applied_settings", unknownKeys = "unknown_keys", notKept = "not_kept"
    }

    init(_ report: CatalogueImport.Report, file: String, store: String) {
        app = report.appId
        self.file = file
        self.store = store
        identifier = report.identifier
        version = report.version
        storefront = report.storefront
        currency = report.currency
        products = Products(added: report.added, updated: report.updated, unchanged: report.unchanged, notInFile: report.notInFile)
        groups = report.groups
        var offers: [String: Int] = [:]
        for type in [OfferType.introductory, .promotional, .offerCode, .winBack] { offers[type.key] = report.offers[type.key] ?? 0 }
        self.offers = offers
        locales = report.locales
        appliedSettings = report.applied
        unknownKeys = report.unknownKeys
        notKept = report.notKept
        notes = report.notes
    }
}

/// `catalog show --json`: the app, where its catalogue came from, its settings, groups and products.
struct CatalogJSON: Encodable {
    struct AppRef: Encodable {
        var id: String
        var name: String
    }
    struct Source: Encodable {
        var file: String
        @NullWhenAbsent var identifier: String?
        var version: String
        var importedAt: String
        var importedBy: String
        var storefront: String
        var currency: String
        enum CodingKeys: String, CodingKey {
            case file, identifier, version, storefront, currency
            case importedAt = "imported_at", importedBy = "imported_by"
        }
    }
    struct Settings: Encodable {
        @NullWhenAbsent var timeRate: Int?
        @NullWhenAbsent var timeRateName: String?
        var storedeskTimeRate: String
        var askToBuy, failTransactions, billingIssues, billingGracePeriod, disableDialogs: Bool
        @NullWhenAbsent var locale: String?
        var enabledErrors: [String]
        @NullWhenAbsent var appStoreAppId: String?
        @NullWhenAbsent var teamId: String?
        @NullWhenAbsent var lastSynchronized: String?
        enum CodingKeys: String, CodingKey {
            case locale
            case timeRate = "time_rate", timeRateName = "time_rate_name", storedeskTimeRate = "storedesk_time_rate"
            case askToBuy = "ask_to_buy", failTransactions = "fail_transactions", billingIssues = "billing_issues"
            case billingGracePeriod = "billing_grace_period", disableDialogs = "disable_dialogs", enabledErrors = "enabled_errors"
            case appStoreAppId = "app_store_app_id", teamId = "team_id", lastSynchronized = "last_synchronized"
        }
        init(_ settings: StoreKitSettings) {
            timeRate = settings.timeRate?.rawValue
            timeRateName = settings.timeRate?.name
            storedeskTimeRate = settings.storeDeskTimeRate.name
            askToBuy = settings.askToBuy
            failTransactions = settings.failTransactions
            billingIssues = settings.billingIssues
            billingGracePeriod = settings.billingGracePeriod
            disableDialogs = settings.disableDialogs
            locale = settings.locale
            enabledErrors = settings.enabledErrors
            appStoreAppId = settings.appStoreAppId
            teamId = settings.teamId
            lastSynchronized = settings.lastSynchronized?.iso8601
        }
    }
    struct Localization: Encodable {
        var locale, displayName, description: String
        enum CodingKeys: String, CodingKey { case locale, description, displayName = "display_name" }
        init(_ l: CatalogueLocalization) {
            locale = l.locale
            displayName = l.displayName
            description = l.description
        }
    }
    struct Group: Encodable {
        var id, name: String
        var localizations: [Localization]
        /// Product ids by level, highest service (level 1) first.
        var subscriptions: [String]
    }
    struct Offer: Encodable {
        var type: String
        @NullWhenAbsent var offerId: String?
        @NullWhenAbsent var referenceName: String?
        var paymentMode: String
        var period: String
        var periodCount: Int
        @NullWhenAbsent var displayPrice: String?
        @NullWhenAbsent var priceCents: Int?
        var eligibility: [String]
        @NullWhenAbsent var stackable: Bool?
        @NullWhenAbsent var eligible: Bool?
        @NullWhenAbsent var billingPlanType: String?
        var terms: String
        enum CodingKeys: String, CodingKey {
            case type, period, eligibility, stackable, eligible, terms
            case offerId = "offer_id", referenceName = "reference_name", paymentMode = "payment_mode"
            case periodCount = "period_count", displayPrice = "display_price", priceCents = "price_cents"
            case billingPlanType = "billing_plan_type"
        }
        init(_ o: CatalogueOffer) {
            type = o.type.key
            offerId = o.offerId
            referenceName = o.referenceName
            paymentMode = o.paymentMode.rawValue.lowercased()
            period = o.period.iso8601
            periodCount = o.periodCount
            displayPrice = o.price?.text
            priceCents = o.price?.cents
            eligibility = o.eligibility.map(\.rawValue)
            stackable = o.stackable
            eligible = o.eligible
            billingPlanType = o.billingPlanType
            terms = o.terms
        }
    }
    struct BillingPlan: Encodable {
        var type, displayPrice: String
        @NullWhenAbsent var commitmentDisplayPrice: String?
        var enabled: Bool
        enum CodingKeys: String, CodingKey {
            case type, enabled, displayPrice = "display_price", commitmentDisplayPrice = "commitment_display_price"
        }
    }
    struct Subscription: Encodable {
        var groupId: String
        var level: Int
        var period: String
        var offers: [Offer]
        var billingPlans: [BillingPlan]
        enum CodingKeys: String, CodingKey {
            case level, period, offers, groupId = "group_id", billingPlans = "billing_plans"
        }
    }
    struct ProductJSON: Encodable {
        var id, name, type: String
        var price: String
        var priceCents: Int
        var currency: String
        var fromFile: Bool
        @NullWhenAbsent var displayPrice: String?
        @NullWhenAbsent var referenceName: String?
        var familyShareable: Bool
        var localizations: [Localization]
        @NullWhenAbsent var subscriptionGroup: String?
        @NullWhenAbsent var period: String?
        @NullWhenAbsent var subscription: Subscription?
        enum CodingKeys: String, CodingKey {
            case id, name, type, price, currency, localizations, period, subscription
            case priceCents = "price_cents", fromFile = "from_file", displayPrice = "display_price"
            case referenceName = "reference_name", familyShareable = "family_shareable", subscriptionGroup = "subscription_group"
        }
        init(_ entry: AppCatalogue.Entry) {
            let product = entry.product
            id = product.id
            name = product.name
            type = product.type.rawValue
            price = product.priceText
            priceCents = product.priceCents
            currency = product.currency
            fromFile = entry.details != nil
            displayPrice = entry.details?.price.text
            referenceName = entry.details?.referenceName
            familyShareable = entry.details?.familyShareable ?? false
            localizations = (entry.details?.localizations ?? []).map(Localization.init)
            subscriptionGroup = product.subscriptionGroup
            period = product.period?.rawValue
            subscription = entry.details?.subscription.map { terms in
                Subscription(
                    groupId: terms.groupId, level: terms.level, period: terms.period.rawValue, offers: terms.offers.map(Offer.init),
                    billingPlans: terms.billingPlans.map {
                        BillingPlan(type: $0.type, displayPrice: $0.price.text, commitmentDisplayPrice: $0.commitmentPrice?.text, enabled: $0.enabled)
                    })
            }
        }
    }

    var app: AppRef
    @NullWhenAbsent var source: Source?
    @NullWhenAbsent var settings: Settings?
    var groups: [Group]
    var products: [ProductJSON]

    init(_ catalogue: AppCatalogue) {
        app = AppRef(id: catalogue.app.id, name: catalogue.app.name)
        source = catalogue.source.map {
            Source(
                file: $0.file, identifier: $0.identifier, version: $0.version, importedAt: $0.importedAt.iso8601,
                importedBy: $0.importedBy, storefront: $0.storefront, currency: $0.currency)
        }
        settings = catalogue.source.map { Settings($0.settings) }
        groups = catalogue.groups.map { group in
            Group(
                id: group.id, name: group.name, localizations: group.localizations.map(Localization.init),
                subscriptions: catalogue.subscriptions(inGroup: group.id).map(\.product.id))
        }
        products = catalogue.entries.map(ProductJSON.init)
    }
}

/// The plain-text forms of `catalog import` and `catalog show`.
enum CatalogText {
    static func importSummary(_ report: CatalogueImport.Report, store: String) -> String {
        var lines = [
            "imported \(report.source) (StoreKit \(report.version)\(report.identifier.map { ", \($0)" } ?? "")) into app "
                + "\(report.appId) (\(store)): \(report.summary)",
            "  prices in \(report.currency) (storefront \(report.storefront))"
                + (report.locales.isEmpty ? "" : "; locales \(report.locales.joined(separator: ", "))"),
        ]
        lines += report.added.map { "  added      \($0)" }
        lines += report.updated.map { "  updated    \($0)" }
        lines += report.notInFile.map { "  kept       \($0) (not in the file; purchases may refer to it)" }
        lines += report.applied.map { "  applied    \($0)" }
        lines += report.unknownKeys.map { "  skipped    unknown key \($0)" }
        lines += report.notKept.map { "  not kept   \($0)" }
        lines += report.notes.map { "  note       \($0)" }
        return reportText(lines)
    }

    static func catalogue(_ catalogue: AppCatalogue) -> String {
        let app = catalogue.app
        var lines: [String] = []
        if let source = catalogue.source {
            lines.append(
                "app \(app.id) \(app.name): catalogue from \(source.file) (StoreKit \(source.version)), imported "
                    + "\(source.importedAt.iso8601) by \(source.importedBy); prices in \(source.currency) (storefront \(source.storefront))")
            let settings = source.settings
            let rate = settings.appliedTimeRate.map { "\($0) → \(settings.storeDeskTimeRate.name)" } ?? "real time"
            lines.append(
                "settings: time rate \(rate); Ask to Buy \(onOff(settings.askToBuy)); failing transactions "
                    + "\(onOff(settings.failTransactions)); billing issues \(onOff(settings.billingIssues)); grace period "
                    + "\(onOff(settings.billingGracePeriod))" + (settings.locale.map { "; locale \($0)" } ?? ""))
        } else {
            lines.append("app \(app.id) \(app.name): catalogue not from a StoreKit file (import one with `storedesk catalog import FILE --app \(app.id)`)")
        }
        guard !catalogue.entries.isEmpty else { return reportText(lines + ["no products"]) }
        let grouped = Set(catalogue.groups.flatMap { catalogue.subscriptions(inGroup: $0.id).map(\.product.id) })
        let loose = catalogue.entries.filter { !grouped.contains($0.product.id) }
        let idWidth = catalogue.entries.map(\.product.id.columns).max() ?? 0
        let nameWidth = min(24, catalogue.entries.map(\.product.name.columns).max() ?? 0)
        func line(_ entry: AppCatalogue.Entry, prefix: String) -> [String] {
            let product = entry.product
            var price = product.priceText
            if let period = product.period { price += " / \(period.name)" }
            var flags: [String] = []
            if entry.details?.familyShareable == true { flags.append("family sharing") }
            if entry.details == nil { flags.append("not from the file") }
            var out = [
                "\(prefix)\(product.id.padded(to: idWidth))  \(product.name.fitted(to: nameWidth).padded(to: nameWidth))  \(price)"
                    + (flags.isEmpty ? "" : "  (\(flags.joined(separator: ", ")))")
            ]
            let names = (entry.details?.localizations ?? []).map { "\($0.locale) \($0.displayName)" }
            if names.count > 1 { out.append(prefix + "    names: " + names.joined(separator: " · ")) }
            for offer in entry.details?.subscription?.offers ?? [] {
                out.append(prefix + "    \(offer.typeName)\(offer.offerId.map { " \($0)" } ?? ""): \(offer.terms)")
            }
            return out
        }
        lines.append("")
        // A product's lines under its first, indented past the label: each stays a line of its own.
        func append(_ label: String, _ entry: AppCatalogue.Entry) {
            for (index, text) in line(entry, prefix: "").enumerated() { lines.append((index == 0 ? label : "").padded(to: label.count) + text) }
        }
        for entry in loose {
            append(entry.product.type.name.padded(to: 15), entry)
        }
        for group in catalogue.groups {
            let localized = group.localizations.map { "\($0.locale) \($0.displayName)" }
            lines.append("")
            lines.append("subscription group \(group.id) \"\(group.name)\"" + (localized.isEmpty ? "" : " (\(localized.joined(separator: " · ")))"))
            for entry in catalogue.subscriptions(inGroup: group.id) {
                append("  level \(entry.details?.subscription?.level ?? 0)".padded(to: 11), entry)
            }
        }
        return reportText(lines)
    }

    private static func onOff(_ flag: Bool) -> String { flag ? "on" : "off" }
}

/// `catalog import`: what the file added, updated and skipped.
struct CatalogImportReport: CommandReport {
    var report: CatalogueImport.Report
    var file: String
    var store: String
    var json: CatalogImportJSON { CatalogImportJSON(report, file: file, store: store) }
    var text: String { CatalogText.importSummary(report, store: store) }
}

/// `catalog show`: an app's catalogue.
struct CatalogReport: CommandReport {
    var catalogue: AppCatalogue
    var json: CatalogJSON { CatalogJSON(catalogue) }
    var text: String { CatalogText.catalogue(catalogue) }
}
