import Foundation
import StoreDeskCore
import StoreDeskStoreAPI
import StoreDeskUI

/// `apps list|show|add --json`: one app, snake_case keys, every key always present, the AppKey masked.
struct AppJSON: Encodable {
    var id: String
    var name: String
    var bundleId: String
    var appKey: String
    @NullWhenAbsent var appleAppId: Int64?
    var currencyPerYuan: Int
    var ownership: String
    var graceDays: Int
    var environment: String
    @NullWhenAbsent var callbackURL: String?
    @NullWhenAbsent var notificationURL: String?
    /// Only `list` and `show` know these: how many products, and the StoreKit file the catalogue came from.
    var products: Int?
    var catalogue: CatalogueSourceJSON??

    enum CodingKeys: String, CodingKey {
        case id, name, ownership, environment, products, catalogue
        case bundleId = "bundle_id", appKey = "app_key", appleAppId = "apple_app_id", currencyPerYuan = "currency_per_yuan"
        case graceDays = "grace_days", callbackURL = "callback_url", notificationURL = "notification_url"
    }

    init(_ app: App) {
        id = app.id
        name = app.name
        bundleId = app.bundleId
        appKey = app.maskedAppKey
        appleAppId = app.appleAppId
        currencyPerYuan = app.currencyPerYuan
        ownership = app.restoreOwnership.rawValue
        graceDays = app.gracePeriodDays
        environment = app.environments.rawValue
        callbackURL = app.callbackURL
        notificationURL = app.notificationURL
    }

    init(_ overview: AppOverview) {
        self.init(overview.app)
        products = overview.productCount
        catalogue = .some(
            overview.catalogueSource.map { CatalogueSourceJSON(file: $0, importedAt: overview.catalogueImportedAt?.iso8601 ?? "") })
    }

    func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(name, forKey: .name)
        try c.encode(bundleId, forKey: .bundleId)
        try c.encode(appKey, forKey: .appKey)
        try c.encode(appleAppId, forKey: .appleAppId)
        try c.encode(currencyPerYuan, forKey: .currencyPerYuan)
        try c.encode(ownership, forKey: .ownership)
        try c.encode(graceDays, forKey: .graceDays)
        try c.encode(environment, forKey: .environment)
        try c.encode(callbackURL, forKey: .callbackURL)
        try c.encode(notificationURL, forKey: .notificationURL)
        if let products { try c.encode(products, forKey: .products) }
        if let catalogue { try c.encode(catalogue, forKey: .catalogue) }
    }
}

/// Where an app's catalogue came from: the StoreKit file and when it was imported.
struct CatalogueSourceJSON: Encodable {
    var file: String
    var importedAt: String
    enum CodingKeys: String, CodingKey { case file, importedAt = "imported_at" }
}

/// `apps set --json`: the app as it now is, and what changed (the AppKey masked).
struct AppChangeJSON: Encodable {
    var app: AppJSON
    var changed: Bool
    var changes: [String]
}

/// The plain-text forms of `apps list|show|add`.
enum AppsText {
    /// One line per app under a header, columns aligned by display width (CJK names are two columns a
    /// character).
    static func table(_ apps: [AppOverview]) -> String {
        guard !apps.isEmpty else { return "no apps: add one with `storedesk apps add ID --name NAME --bundle-id BUNDLE --app-key-file FILE`" }
        let header = ["ID", "NAME", "BUNDLE ID", "APPLE APP ID", "ENV", "APP KEY", "PRODUCTS", "CALLBACK URL"]
        let rows = apps.map { overview -> [String] in
            let app = overview.app
            // Escaped before the widths are measured: a stored line break or escape shows as its escape.
            return [
                app.id, app.name, app.bundleId, app.appleAppId.map(String.init) ?? "-", app.environments.rawValue, app.maskedAppKey,
                String(overview.productCount), app.callbackURL ?? "-",
            ].map(\.controlsEscaped)
        }
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].columns }.max() ?? 0 }
        return ([header] + rows).map { row in
            row.enumerated().map { index, cell in index == row.count - 1 ? cell : cell.padded(to: widths[index]) }
                .joined(separator: "  ")
        }.joined(separator: "\n")
    }

    static func details(_ app: App) -> String {
        let fields: [(String, String)] = [
            ("app", app.id), ("name", app.name), ("bundle id", app.bundleId), ("app key", app.maskedAppKey),
            ("apple app id", app.appleAppId.map(String.init) ?? "none"), ("environment", app.environments.rawValue),
            ("currency/yuan", String(app.currencyPerYuan)), ("ownership", app.restoreOwnership.rawValue),
            ("grace days", String(app.gracePeriodDays)), ("callback url", app.callbackURL ?? "none"),
            ("notifications", app.notificationURL ?? "none"),
        ]
        return reportText(fields.map { "\($0.0.padded(to: 14))\($0.1)" })
    }

    static func catalogueLine(_ overview: AppOverview) -> String {
        let source = overview.catalogueSource.map { "from \($0), imported \(overview.catalogueImportedAt?.iso8601 ?? "?")" }
            ?? "not from a StoreKit file"
        return reportText(["\("products".padded(to: 14))\(overview.productCount) (\(source))"])
    }
}

/// `apps add`: the app as added.
struct AppAddedReport: CommandReport {
    var app: App
    var json: AppJSON { AppJSON(app) }
    var text: String { reportText(["added app \(app.id)"]) + "\n" + AppsText.details(app) }
}

/// `apps set`: the app as it now is and what changed.
struct AppChangeReport: CommandReport {
    var app: App
    var changes: [String]
    var json: AppChangeJSON { AppChangeJSON(app: AppJSON(app), changed: !changes.isEmpty, changes: changes) }
    var text: String { reportText([changes.isEmpty ? "app \(app.id): unchanged" : "app \(app.id): " + changes.joined(separator: "; ")]) }
}

/// `apps list`: every app.
struct AppListReport: CommandReport {
    var apps: [AppOverview]
    var json: [AppJSON] { apps.map(AppJSON.init) }
    var text: String { AppsText.table(apps) }
}

/// `apps show`: one app and where its catalogue came from.
struct AppReport: CommandReport {
    var overview: AppOverview
    var json: AppJSON { AppJSON(overview) }
    var text: String { AppsText.details(overview.app) + "\n" + AppsText.catalogueLine(overview) }
}
