import GRDB
import StoreDeskCore
import StoreDeskStoreAPI

extension AppDatabase {
    /// One app, or nil when the store has none with that id.
    public func app(id: String) throws -> App? {
        try reader.read { try App.fetchOne($0, matching: "id", id) }
    }

    /// Every app with what the store holds for it, in id order.
    public func appOverviews() throws -> [AppOverview] {
        try reader.read { db in try Self.overviews(db, appId: nil) }
    }

    /// One app with what the store holds for it.
    ///
    /// - Throws: `StoreError.invalidArgument` naming the known apps when there is no such app.
    public func appOverview(id: String) throws -> AppOverview {
        try reader.read { db in
            guard let overview = try Self.overviews(db, appId: id).first else { throw Self.unknownApp(id, db) }
            return overview
        }
    }

    /// Adds an app with an audit line, in one transaction. Only a developer may; an id already taken is
    /// refused and nothing is written.
    public func addApp(_ app: App, by staff: StaffMember, at now: Instant) throws {
        try AppWrites.check(staff, readOnly: isReadOnly, what: "the app was not added")
        try writeImmediate { db in
            if let existing = try App.fetchOne(db, matching: "id", app.id) { throw AppWrites.alreadyExists(app, existing: existing) }
            try app.insert(db)
            if app.notificationURL != nil { try NotificationSendProcedures.start(procedures(db), appId: app.id) }
            var audit = AppWrites.added(app, by: staff, at: try StoreMeta.stamp(now, in: db))
            try audit.insert(db)
        }
    }

    /// Applies `settings` to an app with an audit line naming each change (the AppKey masked), in one
    /// transaction. Only a developer may; an unknown app is refused; settings that change nothing write
    /// nothing.
    ///
    /// - Returns: the app before and after, or nil when nothing changed.
    @discardableResult
    public func updateApp(
        id: String, _ settings: AppSettings, by staff: StaffMember, at now: Instant
    ) throws -> (old: App, new: App)? {
        try AppWrites.check(staff, readOnly: isReadOnly, what: "the app was not changed")
        return try writeImmediate { db in
            guard let old = try App.fetchOne(db, matching: "id", id) else { throw Self.unknownApp(id, db) }
            guard let change = AppWrites.change(old, settings, by: staff, at: try StoreMeta.stampInstant(now, in: db)) else { return nil }
            let new = change.new
            try new.update(db)
            if old.notificationURL == nil, new.notificationURL != nil { try NotificationSendProcedures.start(procedures(db), appId: new.id) }
            if old.notificationURL != nil, new.notificationURL == nil { try NotificationSendProcedures.stop(procedures(db), appId: new.id, at: now) }
            var line = change.audit
            line.at = try StoreMeta.stamp(now, in: db)
            try line.insert(db)
            return (old, new)
        }
    }

    private static func overviews(_ db: Database, appId: String?) throws -> [AppOverview] {
        let apps = try appId.map { id in try App.fetchOne(db, matching: "id", id).map { [$0] } ?? [] }
            ?? App.fetchAll(db, sql: "SELECT * FROM app ORDER BY id")
        return try apps.map { app in
            let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM product WHERE app_id = ?", arguments: [app.id]) ?? 0
            let catalogue = try Row.fetchOne(
                db, sql: "SELECT source, imported_at FROM catalogue WHERE app_id = ?", arguments: [app.id])
            return AppOverview(
                app: app, productCount: count, catalogueSource: catalogue?["source"],
                catalogueImportedAt: catalogue?["imported_at"])
        }
    }
}
