import Foundation
import PostgresNIO
import StoreDeskCore
import StoreDeskStoreAPI

/// Apps and their catalogues on PostgreSQL. `AppWrites` and `CatalogueImport` decide (who may, what an id
/// taken or a conflicting file says, which products change, the audit line); this reads and persists. A
/// write locks the app's row first (`FOR UPDATE`), so two machines importing into one app write one after
/// the other, each against what the other left.
extension PostgresStore: AppsStore {
    public func app(id: String) throws -> App? {
        try session.rows("SELECT * FROM app WHERE id = \(id)").first.map { try cells($0).app() }
    }

    public func appOverviews() throws -> [AppOverview] {
        try session.transaction(readOnly: true) { db in try overviews(db, appId: nil) }
    }

    public func appOverview(id: String) throws -> AppOverview {
        try session.transaction(readOnly: true) { db in
            guard let overview = try overviews(db, appId: id).first else { throw try unknownApp(id, db) }
            return overview
        }
    }

    public func addApp(_ app: App, by staff: StaffMember, at now: Instant) throws {
        try AppWrites.check(staff, readOnly: isReadOnly, what: "the app was not added")
        try write { db in
            if let existing = try db.rows("SELECT * FROM app WHERE id = \(app.id) FOR UPDATE").first {
                throw AppWrites.alreadyExists(app, existing: try cells(existing).app())
            }
            // Two machines adding one id at once: the second waits on the key, then is refused as above would.
            let inserted = try db.run(
                """
                INSERT INTO app (id, name, bundle_id, app_key, currency_per_yuan, restore_ownership, grace_period_days,
                  apple_app_id, environment, callback_url, notification_url)
                VALUES (\(app.id), \(app.name), \(app.bundleId), \(app.appKey), \(Int64(app.currencyPerYuan)),
                  \(app.restoreOwnership.rawValue), \(Int64(app.gracePeriodDays)), \(app.appleAppId), \(app.environments.rawValue),
                  \(app.callbackURL), \(app.notificationURL))
                ON CONFLICT (id) DO NOTHING
                """)
            guard inserted == 1 else {
                let existing = try db.rows("SELECT * FROM app WHERE id = \(app.id)").first.map { try cells($0).app() } ?? app
                throw AppWrites.alreadyExists(app, existing: existing)
            }
            if app.notificationURL != nil { try NotificationSendProcedures.start(procedures(db), appId: app.id) }
            try insert(AppWrites.added(app, by: staff, at: try stamp(now, in: db)), db)
        }
    }

    @discardableResult
    public func updateApp(id: String, _ settings: AppSettings, by staff: StaffMember, at now: Instant) throws -> (old: App, new: App)? {
        try AppWrites.check(staff, readOnly: isReadOnly, what: "the app was not changed")
        return try write { db in
            guard let old = try db.rows("SELECT * FROM app WHERE id = \(id) FOR UPDATE").first.map({ try cells($0).app() }) else {
                throw try unknownApp(id, db)
            }
            guard let change = AppWrites.change(old, settings, by: staff, at: now) else { return nil }
            let new = change.new
            try db.run(
                """
                UPDATE app SET name = \(new.name), bundle_id = \(new.bundleId), app_key = \(new.appKey),
                  currency_per_yuan = \(Int64(new.currencyPerYuan)), restore_ownership = \(new.restoreOwnership.rawValue),
                  grace_period_days = \(Int64(new.gracePeriodDays)), apple_app_id = \(new.appleAppId),
                  environment = \(new.environments.rawValue), callback_url = \(new.callbackURL),
                  notification_url = \(new.notificationURL)
                WHERE id = \(id)
                """)
            if old.notificationURL == nil, new.notificationURL != nil { try NotificationSendProcedures.start(procedures(db), appId: id) }
            if old.notificationURL != nil, new.notificationURL == nil { try NotificationSendProcedures.stop(procedures(db), appId: id, at: now) }
            var line = change.audit
            line.at = try stamp(now, in: db)
            try insert(line, db)
            return (old, new)
        }
    }

    public func appsWithProducts() throws -> [(app: App, products: [Product])] {
        try session.transaction(readOnly: true) { db in
            let products = Dictionary(
                grouping: try db.rows(#"SELECT * FROM product ORDER BY id COLLATE "C""#).map { try cells($0).product() }, by: \.appId)
            return try db.rows(#"SELECT * FROM app ORDER BY id COLLATE "C""#).map { row in
                let app = try cells(row).app()
                return (app, products[app.id] ?? [])
            }
        }
    }

    private func overviews(_ db: PostgresSession.Transaction, appId: String?) throws -> [AppOverview] {
        var sql = SQLBuilder(
            """
            SELECT a.*, (SELECT count(*) FROM product p WHERE p.app_id = a.id) AS sd_products,
              c.source AS sd_source, c.imported_at AS sd_imported_at
            FROM app a LEFT JOIN catalogue c ON c.app_id = a.id
            """)
        if let appId { sql.append(" WHERE a.id = \(sql.bind(appId))") }
        sql.append(#" ORDER BY a.id COLLATE "C""#)
        return try db.rows(sql.query).map { row in
            let cells = cells(row)
            return AppOverview(
                app: try cells.app(), productCount: Int(try cells.int("sd_products")), catalogueSource: try cells.optionalText("sd_source"),
                catalogueImportedAt: try cells.optionalInstant("sd_imported_at"))
        }
    }

    /// An audit line, in the caller's transaction (its instant already stamped).
    func insert(_ audit: AuditEntry, _ db: PostgresSession.Transaction) throws {
        try db.run(
            """
            INSERT INTO audit_log (at, actor, role, action, subject, detail)
            VALUES (\(audit.at.millis), \(audit.actor), \(audit.role), \(audit.action), \(audit.subject), \(audit.detail))
            """)
    }
}

extension PostgresStore: CatalogueStore {
    public func catalogue(appId: String) throws -> AppCatalogue {
        try session.transaction(readOnly: true) { db in
            guard let app = try db.rows("SELECT * FROM app WHERE id = \(appId)").first.map({ try cells($0).app() }) else {
                throw try unknownApp(appId, db)
            }
            return try catalogue(of: app, db)
        }
    }

    public func storeKitTimeRate(appId: String) throws -> StoreKitTimeRate? {
        guard let row = try session.rows("SELECT * FROM catalogue WHERE app_id = \(appId)").first else { return nil }
        return try cells(row).storeKitSettings().appliedTimeRate
    }

    public func product(id: String) throws -> Product? {
        try session.rows("SELECT * FROM product WHERE id = \(id)").first.map { try cells($0).product() }
    }

    public func importCatalogue(
        _ configuration: StoreKitConfiguration, appId: String, source: String, by staff: StaffMember, at now: Instant
    ) throws -> CatalogueImport.Report {
        try AppWrites.check(staff, readOnly: isReadOnly, what: "the catalogue was not imported", permission: .importCatalogue)
        return try write { db in
            guard let app = try db.rows("SELECT * FROM app WHERE id = \(appId) FOR UPDATE").first.map({ try cells($0).app() }) else {
                throw try unknownApp(appId, db)
            }
            let ids = configuration.products.map(\.id)
            let existing = Dictionary(
                try db.rows("SELECT * FROM product WHERE id = ANY(\(ids)) FOR UPDATE").map { try cells($0).product() }.map { ($0.id, $0) },
                uniquingKeysWith: { a, _ in a })
            var names: [String: String] = [:]
            for row in try db.rows("SELECT id, name FROM app") {
                let (id, name) = try row.decode((String, String).self)
                names[id] = name
            }
            let plan = try CatalogueImport.plan(
                configuration, app: app, source: source, existing: existing, apps: names, before: try catalogue(of: app, db))
            for p in plan.saves {
                try db.run(
                    """
                    INSERT INTO product (id, app_id, name, type, price_cents, currency, subscription_group, period, grants_currency)
                    VALUES (\(p.id), \(p.appId), \(p.name), \(p.type.rawValue), \(Int64(p.priceCents)), \(p.currency),
                      \(p.subscriptionGroup), \(p.period?.rawValue), \(Int64(p.grantsCurrency)))
                    ON CONFLICT (id) DO UPDATE SET app_id = excluded.app_id, name = excluded.name, type = excluded.type,
                      price_cents = excluded.price_cents, currency = excluded.currency,
                      subscription_group = excluded.subscription_group, period = excluded.period,
                      grants_currency = excluded.grants_currency
                    """)
            }
            let now = try stamp(now, in: db)
            try replaceCatalogue(appId: appId, with: configuration, source: source, by: staff.name, at: now, db)
            try insert(CatalogueImport.audit(plan.report, configuration: configuration, by: staff, at: now), db)
            return plan.report
        }
    }

    // MARK: The catalogue tables' SQL

    func catalogue(of app: App, _ db: PostgresSession.Transaction) throws -> AppCatalogue {
        let source = try db.rows("SELECT * FROM catalogue WHERE app_id = \(app.id)").first.map { try cells($0).catalogueSource() }
        var names: [String: [CatalogueLocalization]] = [:]
        for row in try db.rows(
            #"SELECT * FROM catalogue_localization WHERE app_id = \#(app.id) ORDER BY subject COLLATE "C", subject_id COLLATE "C", position"#)
        {
            let cells = cells(row)
            let key = try cells.text("subject") + " " + (try cells.text("subject_id"))
            names[key, default: []].append(try cells.catalogueLocalization())
        }
        let offers = try rowsByProduct("catalogue_offer", appId: app.id, db) { try $0.catalogueOffer() }
        let plans = try rowsByProduct("catalogue_billing_plan", appId: app.id, db) { try $0.catalogueBillingPlan() }
        var details: [String: (position: Int64, product: CatalogueProduct)] = [:]
        for row in try db.rows("SELECT * FROM catalogue_product WHERE app_id = \(app.id)") {
            let cells = cells(row)
            let id = try cells.text("product_id")
            details[id] = (
                try cells.int("position"),
                try cells.catalogueProduct(localizations: names["product " + id] ?? [], offers: offers[id] ?? [], plans: plans[id] ?? [])
            )
        }
        let products = try db.rows(#"SELECT * FROM product WHERE app_id = \#(app.id) ORDER BY id COLLATE "C""#).map { try cells($0).product() }
        let entries = products.map { AppCatalogue.Entry(product: $0, details: details[$0.id]?.product) }
            .sorted { (details[$0.product.id]?.position ?? .max, $0.product.id) < (details[$1.product.id]?.position ?? .max, $1.product.id) }
        let groups = try db.rows("SELECT id, name FROM catalogue_group WHERE app_id = \(app.id) ORDER BY position").map { row in
            let (id, name) = try row.decode((String, String).self)
            return CatalogueGroup(id: id, name: name, localizations: names["group " + id] ?? [])
        }
        return AppCatalogue(app: app, source: source, groups: groups, entries: entries)
    }

    /// The rows of a per-product table (offers, billing plans) of the app's products, by product, in order.
    private func rowsByProduct<T>(
        _ table: String, appId: String, _ db: PostgresSession.Transaction, _ decode: (PostgresCells) throws -> T
    ) throws -> [String: [T]] {
        var found: [String: [T]] = [:]
        for row in try db.rows(
            """
            SELECT t.* FROM \(unescaped: table) t JOIN catalogue_product p ON p.product_id = t.product_id
            WHERE p.app_id = \(appId) ORDER BY t.product_id, t.position
            """)
        {
            let cells = cells(row), id = try cells.text("product_id")
            found[id, default: []].append(try decode(cells))
        }
        return found
    }

    /// Replaces the app's StoreKit details with the file's.
    private func replaceCatalogue(
        appId: String, with configuration: StoreKitConfiguration, source: String, by actor: String, at now: Instant,
        _ db: PostgresSession.Transaction
    ) throws {
        try db.run("DELETE FROM catalogue_offer WHERE product_id IN (SELECT product_id FROM catalogue_product WHERE app_id = \(appId))")
        try db.run("DELETE FROM catalogue_billing_plan WHERE product_id IN (SELECT product_id FROM catalogue_product WHERE app_id = \(appId))")
        try db.run("DELETE FROM catalogue_localization WHERE app_id = \(appId)")
        try db.run("DELETE FROM catalogue_product WHERE app_id = \(appId)")
        try db.run("DELETE FROM catalogue_group WHERE app_id = \(appId)")
        try db.run("DELETE FROM catalogue WHERE app_id = \(appId)")
        let s = configuration.settings
        try db.run(
            """
            INSERT INTO catalogue (app_id, source, identifier, format_version, imported_at, imported_by, storefront, currency,
              locale, time_rate, compatibility_time_rates, ask_to_buy, fail_transactions, billing_issues, billing_grace_period,
              disable_dialogs, enabled_errors, app_store_app_id, team_id, last_synchronized)
            VALUES (\(appId), \(source), \(configuration.identifier), \(configuration.version.description), \(now.millis), \(actor),
              \(s.effectiveStorefront), \(s.currency), \(s.locale), \(s.timeRate.map { Int64($0.rawValue) }),
              \(Self.json(s.compatibilityTimeRates)), \(Self.flag(s.askToBuy)), \(Self.flag(s.failTransactions)),
              \(Self.flag(s.billingIssues)), \(Self.flag(s.billingGracePeriod)), \(Self.flag(s.disableDialogs)),
              \(Self.json(s.enabledErrors)), \(s.appStoreAppId), \(s.teamId), \(s.lastSynchronized?.millis))
            """)
        for (position, group) in configuration.groups.enumerated() {
            try db.run(
                "INSERT INTO catalogue_group (app_id, id, position, name) VALUES (\(appId), \(group.id), \(Int64(position)), \(group.name))")
            try insert(group.localizations, appId: appId, subject: "group", id: group.id, db)
        }
        for (position, product) in configuration.products.enumerated() {
            let terms = product.subscription
            try db.run(
                """
                INSERT INTO catalogue_product (product_id, app_id, position, type, reference_name, internal_id, display_price,
                  price_cents, family_shareable, group_id, group_level, period)
                VALUES (\(product.id), \(appId), \(Int64(position)), \(product.type.rawValue), \(product.referenceName),
                  \(product.internalId), \(product.price.text), \(Int64(product.price.cents)), \(Self.flag(product.familyShareable)),
                  \(terms?.groupId), \(terms.map { Int64($0.level) }), \(terms?.period.rawValue))
                """)
            try insert(product.localizations, appId: appId, subject: "product", id: product.id, db)
            for (index, offer) in (terms?.offers ?? []).enumerated() {
                try db.run(
                    """
                    INSERT INTO catalogue_offer (product_id, position, type, offer_id, reference_name, internal_id, payment_mode,
                      period, period_count, display_price, price_cents, eligibility, stackable, eligible, billing_plan_type)
                    VALUES (\(product.id), \(Int64(index)), \(offer.type.key), \(offer.offerId), \(offer.referenceName),
                      \(offer.internalId), \(offer.paymentMode.rawValue), \(offer.period.iso8601), \(Int64(offer.periodCount)),
                      \(offer.price?.text), \(offer.price.map { Int64($0.cents) }), \(offer.eligibility.map(\.rawValue).joined(separator: ",")),
                      \(offer.stackable.map(Self.flag)), \(offer.eligible.map(Self.flag)), \(offer.billingPlanType))
                    """)
            }
            for (index, plan) in (terms?.billingPlans ?? []).enumerated() {
                try db.run(
                    """
                    INSERT INTO catalogue_billing_plan (product_id, position, type, display_price, commitment_display_price,
                      internal_id, enabled)
                    VALUES (\(product.id), \(Int64(index)), \(plan.type), \(plan.price.text), \(plan.commitmentPrice?.text),
                      \(plan.internalId), \(Self.flag(plan.enabled)))
                    """)
            }
        }
    }

    private func insert(
        _ localizations: [CatalogueLocalization], appId: String, subject: String, id: String, _ db: PostgresSession.Transaction
    ) throws {
        for (position, l) in localizations.enumerated() {
            try db.run(
                """
                INSERT INTO catalogue_localization (app_id, subject, subject_id, position, locale, display_name, description)
                VALUES (\(appId), \(subject), \(id), \(Int64(position)), \(l.locale), \(l.displayName), \(l.description))
                """)
        }
    }

    static func flag(_ value: Bool) -> Int64 { value ? 1 : 0 }

    static func json<T: Encodable>(_ value: T) -> String {
        (try? JSONEncoder().encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "[]"
    }
}
