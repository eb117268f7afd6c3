import Foundation
import GRDB
import StoreDeskCore
import StoreDeskStoreAPI

extension AppDatabase {
    /// The catalogue of one app.
    ///
    /// - Throws: `StoreError.invalidArgument` naming the known apps when there is no such app.
    public func catalogue(appId: String) throws -> AppCatalogue {
        try reader.read { db in
            guard let app = try App.fetchOne(db, matching: "id", appId) else { throw Self.unknownApp(appId, db) }
            return try CatalogueRows(db: db).catalogue(of: app)
        }
    }

    /// The time rate an app's StoreKit configuration runs subscriptions at, nil when it has none (its
    /// catalogue did not come from a file, or the file sets no rate StoreDesk knows).
    public func storeKitTimeRate(appId: String) throws -> StoreKitTimeRate? {
        try reader.read { db in
            guard let row = try Row.fetchOne(
                db, sql: "SELECT time_rate, compatibility_time_rates FROM catalogue WHERE app_id = ?", arguments: [appId])
            else { return nil }
            let settings = StoreKitSettings(
                timeRate: (try row.column("time_rate") as Int?).map(StoreKitTimeRate.init(rawValue:)),
                compatibilityTimeRates: CatalogueRows.decodeJSON([Int].self, try row.column("compatibility_time_rates")) ?? [])
            return settings.appliedTimeRate
        }
    }

    /// Imports a StoreKit configuration as `appId`'s catalogue, in one transaction: each product's row is
    /// added or updated (a product the file no longer lists is kept), the app's StoreKit details are
    /// replaced whole, and an audit line says what changed. Only a developer may. A product id that
    /// another app already has, an unknown app or a read-only store refuse the whole file: nothing is written.
    public func importCatalogue(
        _ configuration: StoreKitConfiguration, appId: String, source: String, by staff: StaffMember, at now: Instant
    ) throws -> CatalogueImport.Report {
        try AppWrites.check(staff, readOnly: isReadOnly, what: "the catalogue was not imported", permission: .importCatalogue)
        return try writeImmediate { db in
            guard let app = try App.fetchOne(db, matching: "id", appId) else { throw Self.unknownApp(appId, db) }
            let rows = CatalogueRows(db: db)
            let names = try Dictionary(
                uniqueKeysWithValues: Row.fetchAll(db, sql: "SELECT id, name FROM app").map { (try $0.column("id") as String, try $0.column("name") as String) })
            let plan = try CatalogueImport.plan(
                configuration, app: app, source: source, existing: try rows.products(ids: configuration.products.map(\.id)), apps: names,
                before: try rows.catalogue(of: app))
            for row in plan.saves { try row.save(db) }
            let now = try StoreMeta.stamp(now, in: db)
            try rows.replace(appId: appId, with: configuration, source: source, by: staff.name, at: now)
            var audit = CatalogueImport.audit(plan.report, configuration: configuration, by: staff, at: now)
            try audit.insert(db)
            return plan.report
        }
    }
}

/// The catalogue tables' SQL, read and written inside the caller's transaction.
struct CatalogueRows {
    let db: Database

    /// The store's rows for these product ids, by id.
    func products(ids: [String]) throws -> [String: Product] {
        var found: [String: Product] = [:]
        for chunk in stride(from: 0, to: ids.count, by: 500).map({ Array(ids[$0..<min($0 + 500, ids.count)]) }) {
            let marks = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
            for product in try Product.fetchAll(db, sql: "SELECT * FROM product WHERE id IN (\(marks))", arguments: StatementArguments(chunk)) {
                found[product.id] = product
            }
        }
        return found
    }

    /// The StoreKit test settings the payment simulator applies, by app id (only apps whose catalogue
    /// came from a file that turns Ask to Buy or failing transactions on).
    func purchaseTesting() throws -> [String: StoreKitPurchaseTesting] {
        var settings: [String: StoreKitPurchaseTesting] = [:]
        for row in try Row.fetchAll(
            db, sql: "SELECT app_id, ask_to_buy, fail_transactions FROM catalogue WHERE ask_to_buy OR fail_transactions")
        {
            settings[try row.column("app_id")] = StoreKitPurchaseTesting(askToBuy: try row.column("ask_to_buy"), failTransactions: try row.column("fail_transactions"))
        }
        return settings
    }

    func catalogue(of app: App) throws -> AppCatalogue {
        let source = try Row.fetchOne(db, sql: "SELECT * FROM catalogue WHERE app_id = ?", arguments: [app.id]).map { try Self.source($0) }
        let groups = try Row.fetchAll(
            db, sql: "SELECT id, name FROM catalogue_group WHERE app_id = ? ORDER BY position", arguments: [app.id])
        let localizations = try Row.fetchAll(
            db, sql: "SELECT * FROM catalogue_localization WHERE app_id = ? ORDER BY subject, subject_id, position",
            arguments: [app.id])
        var names: [String: [CatalogueLocalization]] = [:]
        for row in localizations {
            let key = (try row.column("subject") as String) + " " + (try row.column("subject_id") as String)
            names[key, default: []].append(
                CatalogueLocalization(locale: try row.column("locale"), displayName: try row.column("display_name"), description: try row.column("description")))
        }
        let offers = try rowsByProduct("catalogue_offer", appId: app.id).mapValues { try $0.map(Self.offer) }
        let plans = try rowsByProduct("catalogue_billing_plan", appId: app.id).mapValues { try $0.map(Self.plan) }
        var details: [String: (position: Int, product: CatalogueProduct)] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT * FROM catalogue_product WHERE app_id = ?", arguments: [app.id]) {
            let id: String = try row.column("product_id")
            details[id] = (try row.column("position"), try Self.product(row, localizations: names["product " + id] ?? [], offers: offers[id] ?? [], plans: plans[id] ?? []))
        }
        let products = try Product.fetchAll(db, sql: "SELECT * FROM product WHERE app_id = ? ORDER BY id", arguments: [app.id])
        let entries = products.map { AppCatalogue.Entry(product: $0, details: details[$0.id]?.product) }
            .sorted { (details[$0.product.id]?.position ?? .max, $0.product.id) < (details[$1.product.id]?.position ?? .max, $1.product.id) }
        return AppCatalogue(
            app: app, source: source,
            groups: try groups.map { CatalogueGroup(id: try $0.column("id"), name: try $0.column("name"), localizations: names["group " + (try $0.column("id") as String)] ?? []) },
            entries: entries)
    }

    /// The rows of a per-product table (offers, billing plans) of the app's products, by product, in order.
    private func rowsByProduct(_ table: String, appId: String) throws -> [String: [Row]] {
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT t.* FROM \(table) t JOIN catalogue_product p ON p.product_id = t.product_id
                WHERE p.app_id = ? ORDER BY t.product_id, t.position
                """,
            arguments: [appId])
        return try Dictionary(grouping: rows) { try $0.column("product_id") as String }
    }

    /// Replaces the app's StoreKit details with the file's.
    func replace(appId: String, with configuration: StoreKitConfiguration, source: String, by actor: String, at now: Instant) throws {
        for table in ["catalogue_offer", "catalogue_billing_plan"] {
            try db.execute(
                sql: "DELETE FROM \(table) WHERE product_id IN (SELECT product_id FROM catalogue_product WHERE app_id = ?)",
                arguments: [appId])
        }
        for table in ["catalogue_localization", "catalogue_product", "catalogue_group", "catalogue"] {
            try db.execute(sql: "DELETE FROM \(table) WHERE app_id = ?", arguments: [appId])
        }
        let settings = configuration.settings
        try db.execute(
            sql: """
                INSERT INTO catalogue (app_id, source, identifier, format_version, imported_at, imported_by, storefront, currency,
                  locale, time_rate, compatibility_time_rates, ask_to_buy, fail_transactions, billing_issues, billing_grace_period,
                  disable_dialogs, enabled_errors, app_store_app_id, team_id, last_synchronized)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                appId, source, configuration.identifier, configuration.version.description, now, actor, settings.effectiveStorefront,
                settings.currency, settings.locale, settings.timeRate?.rawValue, Self.json(settings.compatibilityTimeRates),
                settings.askToBuy, settings.failTransactions, settings.billingIssues, settings.billingGracePeriod,
                settings.disableDialogs, Self.json(settings.enabledErrors), settings.appStoreAppId, settings.teamId,
                settings.lastSynchronized,
            ])
        for (position, group) in configuration.groups.enumerated() {
            try db.execute(
                sql: "INSERT INTO catalogue_group (app_id, id, position, name) VALUES (?, ?, ?, ?)",
                arguments: [appId, group.id, position, group.name])
            try insert(group.localizations, appId: appId, subject: "group", id: group.id)
        }
        for (position, product) in configuration.products.enumerated() {
            let terms = product.subscription
            try db.execute(
                sql: """
                    INSERT INTO catalogue_product (product_id, app_id, position, type, reference_name, internal_id, display_price,
                      price_cents, family_shareable, group_id, group_level, period)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    product.id, appId, position, product.type.rawValue, product.referenceName, product.internalId, product.price.text,
                    product.price.cents, product.familyShareable, terms?.groupId, terms?.level, terms?.period.rawValue,
                ])
            try insert(product.localizations, appId: appId, subject: "product", id: product.id)
            for (index, offer) in (terms?.offers ?? []).enumerated() {
                try db.execute(
                    sql: """
                        INSERT INTO catalogue_offer (product_id, position, type, offer_id, reference_name, internal_id, payment_mode,
                          period, period_count, display_price, price_cents, eligibility, stackable, eligible, billing_plan_type)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        product.id, index, offer.type.key, offer.offerId, offer.referenceName, offer.internalId,
                        offer.paymentMode.rawValue, offer.period.iso8601, offer.periodCount, offer.price?.text, offer.price?.cents,
                        offer.eligibility.map(\.rawValue).joined(separator: ","), offer.stackable, offer.eligible,
                        offer.billingPlanType,
                    ])
            }
            for (index, plan) in (terms?.billingPlans ?? []).enumerated() {
                try db.execute(
                    sql: """
                        INSERT INTO catalogue_billing_plan (product_id, position, type, display_price, commitment_display_price,
                          internal_id, enabled)
                        VALUES (?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [product.id, index, plan.type, plan.price.text, plan.commitmentPrice?.text, plan.internalId, plan.enabled])
            }
        }
    }

    private func insert(_ localizations: [CatalogueLocalization], appId: String, subject: String, id: String) throws {
        for (position, localization) in localizations.enumerated() {
            try db.execute(
                sql: """
                    INSERT INTO catalogue_localization (app_id, subject, subject_id, position, locale, display_name, description)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [appId, subject, id, position, localization.locale, localization.displayName, localization.description])
        }
    }

    // MARK: Rows to values

    private static func source(_ row: Row) throws -> AppCatalogue.Source {
        AppCatalogue.Source(
            file: try row.column("source"), identifier: try row.column("identifier"), version: try row.column("format_version"), importedAt: try row.column("imported_at"),
            importedBy: try row.column("imported_by"), storefront: try row.column("storefront"), currency: try row.column("currency"),
            settings: StoreKitSettings(
                timeRate: (try row.column("time_rate") as Int?).map(StoreKitTimeRate.init(rawValue:)),
                compatibilityTimeRates: decodeJSON([Int].self, try row.column("compatibility_time_rates")) ?? [],
                askToBuy: try row.column("ask_to_buy"), failTransactions: try row.column("fail_transactions"), billingIssues: try row.column("billing_issues"),
                billingGracePeriod: try row.column("billing_grace_period"), disableDialogs: try row.column("disable_dialogs"), locale: try row.column("locale"),
                storefront: try row.column("storefront"), enabledErrors: decodeJSON([String].self, try row.column("enabled_errors")) ?? [],
                appStoreAppId: try row.column("app_store_app_id"), teamId: try row.column("team_id"), lastSynchronized: try row.column("last_synchronized")))
    }

    private static func product(
        _ row: Row, localizations: [CatalogueLocalization], offers: [CatalogueOffer], plans: [CatalogueBillingPlan]
    ) throws -> CatalogueProduct {
        let typeText: String = try row.column("type")
        guard let type = ProductType(rawValue: typeText), let price = CataloguePrice(try row.column("display_price")) else {
            throw StoreError.invalidArgument("a stored catalogue product cannot be read back: \(row)")
        }
        var terms: CatalogueSubscription?
        if let groupId: String = try row.column("group_id"), let level: Int = try row.column("group_level"),
            let period = (try row.column("period") as String?).flatMap(SubscriptionPeriod.init(rawValue:))
        {
            terms = CatalogueSubscription(groupId: groupId, level: level, period: period, offers: offers, billingPlans: plans)
        }
        return CatalogueProduct(
            id: try row.column("product_id"), type: type, referenceName: try row.column("reference_name"), internalId: try row.column("internal_id"), price: price,
            familyShareable: try row.column("family_shareable"), localizations: localizations, subscription: terms)
    }

    private static func offer(_ row: Row) throws -> CatalogueOffer {
        guard let type = OfferType(key: try row.column("type")), let period = CalendarPeriod(iso8601: try row.column("period")) else {
            throw StoreError.invalidArgument("a stored catalogue offer cannot be read back: \(row)")
        }
        let eligibility: String = try row.column("eligibility")
        return CatalogueOffer(
            type: type, offerId: try row.column("offer_id"), referenceName: try row.column("reference_name"), internalId: try row.column("internal_id"),
            paymentMode: OfferDiscountType(rawValue: try row.column("payment_mode")), period: period, periodCount: try row.column("period_count"),
            price: (try row.column("display_price") as String?).flatMap(CataloguePrice.init),
            eligibility: eligibility.split(separator: ",").compactMap { CatalogueOffer.Eligibility(rawValue: String($0)) },
            stackable: try row.column("stackable"), eligible: try row.column("eligible"), billingPlanType: try row.column("billing_plan_type"))
    }

    private static func plan(_ row: Row) throws -> CatalogueBillingPlan {
        guard let price = CataloguePrice(try row.column("display_price")) else {
            throw StoreError.invalidArgument("a stored billing plan cannot be read back: \(row)")
        }
        return CatalogueBillingPlan(
            type: try row.column("type"), price: price, commitmentPrice: (try row.column("commitment_display_price") as String?).flatMap(CataloguePrice.init),
            internalId: try row.column("internal_id"), enabled: try row.column("enabled"))
    }

    static func json<T: Encodable>(_ value: T) -> String {
        (try? JSONEncoder().encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "[]"
    }

    static func decodeJSON<T: Decodable>(_ type: T.Type, _ text: String?) -> T? {
        text.flatMap { try? JSONDecoder().decode(type, from: Data($0.utf8)) }
    }
}
