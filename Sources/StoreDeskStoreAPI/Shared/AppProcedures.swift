import StoreDeskCore

/// Apps, written once for both backends. `AppWrites` decides (who may, what an id taken says, what a
/// change is, the audit line); this reads and persists. A write locks the app's row first (`FOR UPDATE` on
/// PostgreSQL), so two machines changing one app write one after the other.
public enum AppProcedures {
    public static func app(_ db: some StoreSQLTransaction, id: String) throws -> App? {
        try db.row("SELECT * FROM app WHERE id = \(id)")?.app()
    }

    /// Every app (or the one `appId` names) with what the store holds for it, in id order.
    public static func overviews(_ db: some StoreSQLTransaction, appId: String?) throws -> [AppOverview] {
        let one: StoreSQL = appId.map { " WHERE a.id = \($0)" } ?? ""
        return try db.rows(
            """
            SELECT a.*, (SELECT COUNT(*) FROM product p WHERE p.app_id = a.id) AS sd_products,
              c.source AS sd_source, c.imported_at AS sd_imported_at
            FROM app a LEFT JOIN catalogue c ON c.app_id = a.id\(one) ORDER BY a.id\(.byteOrder)
            """
        ).map { row in
            AppOverview(
                app: try row.app(), productCount: Int(try row.int("sd_products")), catalogueSource: try row.optionalText("sd_source"),
                catalogueImportedAt: try row.optionalInstant("sd_imported_at"))
        }
    }

    /// One app with what the store holds for it.
    ///
    /// - Throws: `StoreError.invalidArgument` naming the known apps when there is no such app.
    public static func overview(_ db: some StoreSQLTransaction, id: String) throws -> AppOverview {
        guard let overview = try overviews(db, appId: id).first else { throw try LoginProcedures.unknownApp(id, db) }
        return overview
    }

    /// Adds an app with an audit line; an id already taken is refused and nothing is written. Two machines
    /// adding one id at once: the second waits on the key, then is refused the same way.
    public static func add(_ db: some StoreSQLTransaction, _ app: App, by staff: StaffMember, at now: Instant) throws {
        if let existing = try db.row("SELECT * FROM app WHERE id = \(app.id)\(.lockingRows)")?.app() {
            throw AppWrites.alreadyExists(app, existing: existing)
        }
        let inserted = try db.execute(
            """
            INSERT INTO app (id, name, bundle_id, app_key, currency_per_yuan, restore_ownership, grace_period_days,
              apple_app_id, environment, callback_url, notification_url)
            VALUES (\(app.id), \(app.name), \(app.bundleId), \(app.appKey), \(app.currencyPerYuan), \(app.restoreOwnership.rawValue),
              \(app.gracePeriodDays), \(app.appleAppId), \(app.environments.rawValue), \(app.callbackURL), \(app.notificationURL))
            ON CONFLICT (id) DO NOTHING
            """)
        guard inserted == 1 else { throw AppWrites.alreadyExists(app, existing: try self.app(db, id: app.id) ?? app) }
        if app.notificationURL != nil { try NotificationSendProcedures.start(db, appId: app.id) }
        try db.insert(AppWrites.added(app, by: staff, at: try db.stamp(now)))
    }

    /// Applies `settings` to an app with an audit line naming each change (the AppKey masked); settings that
    /// change nothing write nothing.
    ///
    /// - Returns: the app before and after, or nil when nothing changed.
    public static func update(_ db: some StoreSQLTransaction, id: String, _ settings: AppSettings, by staff: StaffMember, at now: Instant) throws
        -> (old: App, new: App)?
    {
        guard let old = try db.row("SELECT * FROM app WHERE id = \(id)\(.lockingRows)")?.app() else { throw try LoginProcedures.unknownApp(id, db) }
        guard let change = AppWrites.change(old, settings, by: staff, at: now) else { return nil }
        let new = change.new
        try db.execute(
            """
            UPDATE app SET name = \(new.name), bundle_id = \(new.bundleId), app_key = \(new.appKey), currency_per_yuan = \(new.currencyPerYuan),
              restore_ownership = \(new.restoreOwnership.rawValue), grace_period_days = \(new.gracePeriodDays), apple_app_id = \(new.appleAppId),
              environment = \(new.environments.rawValue), callback_url = \(new.callbackURL), notification_url = \(new.notificationURL)
            WHERE id = \(id)
            """)
        if old.notificationURL == nil, new.notificationURL != nil { try NotificationSendProcedures.start(db, appId: id) }
        if old.notificationURL != nil, new.notificationURL == nil { try NotificationSendProcedures.stop(db, appId: id, at: now) }
        var line = change.audit
        line.at = try db.stamp(now)
        try db.insert(line)
        return (old, new)
    }

    /// Every app with its products, in id order.
    public static func appsWithProducts(_ db: some StoreSQLTransaction) throws -> [(app: App, products: [Product])] {
        let products = Dictionary(grouping: try db.rows("SELECT * FROM product ORDER BY id\(.byteOrder)").map { try $0.product() }, by: \.appId)
        return try db.rows("SELECT * FROM app ORDER BY id\(.byteOrder)").map { row in
            let app = try row.app()
            return (app, products[app.id] ?? [])
        }
    }
}
