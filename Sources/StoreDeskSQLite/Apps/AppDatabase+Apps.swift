import GRDB
import StoreDeskCore
import StoreDeskStoreAPI

/// Apps on SQLite: `AppProcedures`, written once for both backends, each write in one IMMEDIATE transaction.
extension AppDatabase {
    /// One app, or nil when the store has none with that id.
    public func app(id: String) throws -> App? {
        try reader.read { db in try AppProcedures.app(procedures(db), id: id) }
    }

    /// Every app with what the store holds for it, in id order.
    public func appOverviews() throws -> [AppOverview] {
        try reader.read { db in try AppProcedures.overviews(procedures(db), appId: nil) }
    }

    /// One app with what the store holds for it.
    ///
    /// - Throws: `StoreError.invalidArgument` naming the known apps when there is no such app.
    public func appOverview(id: String) throws -> AppOverview {
        try reader.read { db in try AppProcedures.overview(procedures(db), id: id) }
    }

    /// Adds an app with an audit line, in one transaction. Only a developer may; an id already taken is
    /// refused and nothing is written.
    public func addApp(_ app: App, by staff: StaffMember, at now: Instant) throws {
        try AppWrites.check(staff, readOnly: isReadOnly, what: "the app was not added")
        try writeImmediate { db in try AppProcedures.add(procedures(db), app, by: staff, at: now) }
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
        return try writeImmediate { db in try AppProcedures.update(procedures(db), id: id, settings, by: staff, at: now) }
    }
}
