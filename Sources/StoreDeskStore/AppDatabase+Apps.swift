import GRDB
import StoreDeskCore

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
        try Self.checkAppWriter(staff, readOnly: isReadOnly, what: "the app was not added")
        try writeImmediate { db in
            if let existing = try App.fetchOne(db, matching: "id", app.id) {
                throw StoreError.invalidArgument(
                    "app \(app.id) already exists (\(existing.name)): change it with `storedesk apps set \(app.id) ...`")
            }
            try app.insert(db)
            var audit = AuditEntry(
                at: try StoreMeta.stamp(now, in: db), actor: staff.name, role: staff.role.rawValue, action: "app.add", subject: "app \(app.id)",
                detail: AppSettings.summary(app))
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
        try Self.checkAppWriter(staff, readOnly: isReadOnly, what: "the app was not changed")
        return try writeImmediate { db in
            guard let old = try App.fetchOne(db, matching: "id", id) else { throw Self.unknownApp(id, db) }
            let new = settings.applied(to: old)
            let changes = AppSettings.differences(old, new)
            guard !changes.isEmpty else { return nil }
            try new.update(db)
            var audit = AuditEntry(
                at: try StoreMeta.stamp(now, in: db), actor: staff.name, role: staff.role.rawValue, action: "app.set", subject: "app \(id)",
                detail: changes.joined(separator: "; "))
            try audit.insert(db)
            return (old, new)
        }
    }

    /// Refuses a write to an app's configuration by anyone but a developer, or on a read-only store.
    static func checkAppWriter(_ staff: StaffMember, readOnly: Bool, what: String, permission: Permission = .editApps) throws {
        guard !readOnly else { throw StoreError.invalidArgument("the store is open read-only: \(what)") }
        if let refusal = staff.refusal(permission) { throw StoreError.invalidArgument(refusal) }
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
