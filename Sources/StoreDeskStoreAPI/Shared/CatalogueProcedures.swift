import Foundation
import StoreDeskCore

/// Apps' catalogues, written once for both backends. `CatalogueImport` decides (which products change, a
/// conflicting file, the audit line); this reads and persists. An import locks the app's row first (`FOR
/// UPDATE` on PostgreSQL), so two machines importing into one app write one after the other.
public enum CatalogueProcedures {
    /// The catalogue of one app.
    ///
    /// - Throws: `StoreError.invalidArgument` naming the known apps when there is no such app.
    public static func catalogue(_ db: some StoreSQLTransaction, appId: String) throws -> AppCatalogue {
        guard let app = try db.row("SELECT * FROM app WHERE id = \(appId)")?.app() else { throw try LoginProcedures.unknownApp(appId, db) }
        return try catalogue(db, of: app)
    }

    /// The time rate an app's StoreKit configuration runs subscriptions at, nil when it has none (its
    /// catalogue did not come from a file, or the file sets no rate StoreDesk knows).
    public static func storeKitTimeRate(_ db: some StoreSQLTransaction, appId: String) throws -> StoreKitTimeRate? {
        try db.row("SELECT * FROM catalogue WHERE app_id = \(appId)")?.storeKitSettings().appliedTimeRate
    }

    /// The StoreKit test settings the payment simulator applies, by app id (only apps whose catalogue came
    /// from a file that turns Ask to Buy or failing transactions on).
    public static func purchaseTesting(_ db: some StoreSQLTransaction) throws -> [String: StoreKitPurchaseTesting] {
        var settings: [String: StoreKitPurchaseTesting] = [:]
        for row in try db.rows("SELECT app_id, ask_to_buy, fail_transactions FROM catalogue WHERE ask_to_buy <> 0 OR fail_transactions <> 0") {
            settings[try row.text("app_id")] = StoreKitPurchaseTesting(askToBuy: try row.flag("ask_to_buy"), failTransactions: try row.flag("fail_transactions"))
        }
        return settings
    }

    /// Imports a StoreKit configuration as `appId`'s catalogue: each product's row is added or updated (a
    /// product the file no longer lists is kept), the app's StoreKit details are replaced whole, and an audit
    /// line says what changed. A product id another app already has, or an unknown app, refuse the whole
    /// file: nothing is written.
    public static func importCatalogue(
        _ db: some StoreSQLTransaction, _ configuration: StoreKitConfiguration, appId: String, source: String, by staff: StaffMember, at now: Instant
    ) throws -> CatalogueImport.Report {
        guard let app = try db.row("SELECT * FROM app WHERE id = \(appId)\(.lockingRows)")?.app() else {
            throw try LoginProcedures.unknownApp(appId, db)
        }
        let ids = configuration.products.map(\.id)
        var existing: [String: Product] = [:]
        for start in stride(from: 0, to: ids.count, by: 500) {
            let chunk = Array(ids[start..<min(start + 500, ids.count)])
            for product in try db.rows("SELECT * FROM product WHERE id IN \(list: chunk)\(.lockingRows)").map({ try $0.product() }) {
                existing[product.id] = product
            }
        }
        var names: [String: String] = [:]
        for row in try db.rows("SELECT id, name FROM app") { names[try row.text("id")] = try row.text("name") }
        let plan = try CatalogueImport.plan(
            configuration, app: app, source: source, existing: existing, apps: names, before: try catalogue(db, of: app))
        for p in plan.saves {
            try db.execute(
                """
                INSERT INTO product (id, app_id, name, type, price_cents, currency, subscription_group, period, grants_currency)
                VALUES (\(p.id), \(p.appId), \(p.name), \(p.type.rawValue), \(p.priceCents), \(p.currency), \(p.subscriptionGroup),
                  \(p.period?.rawValue), \(p.grantsCurrency))
                ON CONFLICT (id) DO UPDATE SET app_id = excluded.app_id, name = excluded.name, type = excluded.type,
                  price_cents = excluded.price_cents, currency = excluded.currency, subscription_group = excluded.subscription_group,
                  period = excluded.period, grants_currency = excluded.grants_currency
                """)
        }
        let now = try db.stamp(now)
        try replace(db, appId: appId, with: configuration, source: source, by: staff.name, at: now)
        try db.insert(CatalogueImport.audit(plan.report, configuration: configuration, by: staff, at: now))
        return plan.report
    }

    public static func catalogue(_ db: some StoreSQLTransaction, of app: App) throws -> AppCatalogue {
        let source = try db.row("SELECT * FROM catalogue WHERE app_id = \(app.id)")?.catalogueSource()
        var names: [String: [CatalogueLocalization]] = [:]
        for row in try db.rows(
            "SELECT * FROM catalogue_localization WHERE app_id = \(app.id) ORDER BY subject\(.byteOrder), subject_id\(.byteOrder), position")
        {
            names[try row.text("subject") + " " + (try row.text("subject_id")), default: []].append(try row.catalogueLocalization())
        }
        let offers = try rowsByProduct(db, "catalogue_offer", appId: app.id) { try $0.catalogueOffer() }
        let plans = try rowsByProduct(db, "catalogue_billing_plan", appId: app.id) { try $0.catalogueBillingPlan() }
        var details: [String: (position: Int64, product: CatalogueProduct)] = [:]
        for row in try db.rows("SELECT * FROM catalogue_product WHERE app_id = \(app.id)") {
            let id = try row.text("product_id")
            details[id] = (
                try row.int("position"),
                try row.catalogueProduct(localizations: names["product " + id] ?? [], offers: offers[id] ?? [], plans: plans[id] ?? [])
            )
        }
        let products = try db.rows("SELECT * FROM product WHERE app_id = \(app.id) ORDER BY id\(.byteOrder)").map { try $0.product() }
        let entries = products.map { AppCatalogue.Entry(product: $0, details: details[$0.id]?.product) }
            .sorted { (details[$0.product.id]?.position ?? .max, $0.product.id) < (details[$1.product.id]?.position ?? .max, $1.product.id) }
        let groups = try db.rows("SELECT id, name FROM catalogue_group WHERE app_id = \(app.id) ORDER BY position").map { row in
            let id = try row.text("id")
            return CatalogueGroup(id: id, name: try row.text("name"), localizations: names["group " + id] ?? [])
        }
        return AppCatalogue(app: app, source: source, groups: groups, entries: entries)
    }

    /// The rows of a per-product table (offers, billing plans) of the app's products, by product, in order.
    static func rowsByProduct<T>(
        _ db: some StoreSQLTransaction, _ table: String, appId: String, _ decode: (any StoreColumns) throws -> T
    ) throws -> [String: [T]] {
        var found: [String: [T]] = [:]
        for row in try db.rows(
            """
            SELECT t.* FROM \(sql: table) t JOIN catalogue_product p ON p.product_id = t.product_id
            WHERE p.app_id = \(appId) ORDER BY t.product_id, t.position
            """)
        {
            found[try row.text("product_id"), default: []].append(try decode(row))
        }
        return found
    }

    /// Replaces the app's StoreKit details with the file's.
    static func replace(
        _ db: some StoreSQLTransaction, appId: String, with configuration: StoreKitConfiguration, source: String, by actor: String, at now: Instant
    ) throws {
        try db.execute("DELETE FROM catalogue_offer WHERE product_id IN (SELECT product_id FROM catalogue_product WHERE app_id = \(appId))")
        try db.execute("DELETE FROM catalogue_billing_plan WHERE product_id IN (SELECT product_id FROM catalogue_product WHERE app_id = \(appId))")
        for table in ["catalogue_localization", "catalogue_product", "catalogue_group", "catalogue"] {
            try db.execute("DELETE FROM \(sql: table) WHERE app_id = \(appId)")
        }
        let s = configuration.settings
        try db.execute(
            """
            INSERT INTO catalogue (app_id, source, identifier, format_version, imported_at, imported_by, storefront, currency,
              locale, time_rate, compatibility_time_rates, ask_to_buy, fail_transactions, billing_issues, billing_grace_period,
              disable_dialogs, enabled_errors, app_store_app_id, team_id, last_synchronized)
            VALUES (\(appId), \(source), \(configuration.identifier), \(configuration.version.description), \(now), \(actor),
              \(s.effectiveStorefront), \(s.currency), \(s.locale), \(s.timeRate.map { Int64($0.rawValue) }),
              \(json(s.compatibilityTimeRates)), \(flag(s.askToBuy)), \(flag(s.failTransactions)), \(flag(s.billingIssues)),
              \(flag(s.billingGracePeriod)), \(flag(s.disableDialogs)), \(json(s.enabledErrors)), \(s.appStoreAppId), \(s.teamId),
              \(s.lastSynchronized))
            """)
        for (position, group) in configuration.groups.enumerated() {
            try db.execute("INSERT INTO catalogue_group (app_id, id, position, name) VALUES (\(appId), \(group.id), \(position), \(group.name))")
            try insert(db, group.localizations, appId: appId, subject: "group", id: group.id)
        }
        for (position, product) in configuration.products.enumerated() {
            let terms = product.subscription
            try db.execute(
                """
                INSERT INTO catalogue_product (product_id, app_id, position, type, reference_name, internal_id, display_price,
                  price_cents, family_shareable, group_id, group_level, period)
                VALUES (\(product.id), \(appId), \(position), \(product.type.rawValue), \(product.referenceName), \(product.internalId),
                  \(product.price.text), \(product.price.cents), \(flag(product.familyShareable)), \(terms?.groupId),
                  \(terms.map { Int64($0.level) }), \(terms?.period.rawValue))
                """)
            try insert(db, product.localizations, appId: appId, subject: "product", id: product.id)
            for (index, offer) in (terms?.offers ?? []).enumerated() {
                try db.execute(
                    """
                    INSERT INTO catalogue_offer (product_id, position, type, offer_id, reference_name, internal_id, payment_mode,
                      period, period_count, display_price, price_cents, eligibility, stackable, eligible, billing_plan_type)
                    VALUES (\(product.id), \(index), \(offer.type.key), \(offer.offerId), \(offer.referenceName), \(offer.internalId),
                      \(offer.paymentMode.rawValue), \(offer.period.iso8601), \(offer.periodCount), \(offer.price?.text),
                      \(offer.price.map { Int64($0.cents) }), \(offer.eligibility.map(\.rawValue).joined(separator: ",")),
                      \(offer.stackable.map(flag)), \(offer.eligible.map(flag)), \(offer.billingPlanType))
                    """)
            }
            for (index, plan) in (terms?.billingPlans ?? []).enumerated() {
                try db.execute(
                    """
                    INSERT INTO catalogue_billing_plan (product_id, position, type, display_price, commitment_display_price, internal_id, enabled)
                    VALUES (\(product.id), \(index), \(plan.type), \(plan.price.text), \(plan.commitmentPrice?.text), \(plan.internalId),
                      \(flag(plan.enabled)))
                    """)
            }
        }
    }

    static func insert(_ db: some StoreSQLTransaction, _ localizations: [CatalogueLocalization], appId: String, subject: String, id: String) throws {
        for (position, l) in localizations.enumerated() {
            try db.execute(
                """
                INSERT INTO catalogue_localization (app_id, subject, subject_id, position, locale, display_name, description)
                VALUES (\(appId), \(subject), \(id), \(position), \(l.locale), \(l.displayName), \(l.description))
                """)
        }
    }

    static func flag(_ value: Bool) -> Int64 { value ? 1 : 0 }

    static func json<T: Encodable>(_ value: T) -> String {
        (try? JSONEncoder().encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "[]"
    }
}
