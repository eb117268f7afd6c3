import Foundation
import GRDB
import StoreDeskCore
import StoreDeskStoreAPI

extension LoginEntryHistory: FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "login_entry_history"
    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

extension AppDatabase {
    /// A game's saved login entries, its third-party AppIDs and its latest changes.
    ///
    /// - Throws: `StoreError.invalidArgument` for an app the store does not know.
    public func loginEntrySetup(appId: String, historyLimit: Int = 20) throws -> LoginEntrySetup {
        try reader.read { db in
            guard let app = try App.fetchOne(db, matching: "id", appId) else { throw Self.unknownApp(appId, db) }
            let configuration = try LoginEntryConfiguration.fetchOne(db, matching: "app_id", appId)
            let history = try LoginEntryHistory
                .filter(Column("app_id") == appId)
                .order(Column("id").desc)
                .limit(historyLimit)
                .fetchAll(db)
            return LoginEntrySetup(app: app, configuration: configuration, history: history)
        }
    }

    /// Saves a game's login entries (nil: back to unconfigured, the SDK's default) with its history line
    /// and an audit line, in one transaction. Only a developer may; a list that breaks a rule on every
    /// platform is refused; an unchanged list writes nothing.
    ///
    /// - Returns: the history line written, or nil when the list was already that.
    @discardableResult
    public func setLoginEntries(
        _ entries: [LoginEntry]?, appId: String, by staff: StaffMember, surface: String, at now: Instant
    ) throws -> LoginEntryHistory? {
        try LoginEntrySetup.checkChange(entries, by: staff, readOnly: isReadOnly)
        return try writeImmediate { db in
            guard try App.exists(db, matching: "id", appId) else { throw Self.unknownApp(appId, db) }
            let now = try StoreMeta.stamp(now, in: db)
            let old = try LoginEntryConfiguration.fetchOne(db, matching: "app_id", appId)
            guard old == nil || old?.entries != entries else { return nil }
            var configuration = old ?? LoginEntryConfiguration(appId: appId, entries: nil, updatedAt: now, updatedBy: staff.name)
            configuration.entries = entries
            configuration.updatedAt = now
            configuration.updatedBy = staff.name
            try configuration.save(db)
            var line = LoginEntryHistory(
                appId: appId, at: now, actor: staff.name, role: staff.role.rawValue, surface: surface, oldEntries: old?.entries,
                newEntries: entries)
            try line.insert(db)
            var audit = AuditEntry(
                at: now, actor: staff.name, role: staff.role.rawValue, action: "login.entries.set", subject: "app \(appId)",
                detail: "\(line.change) (from \(surface))")
            try audit.insert(db)
            return line
        }
    }

    static func unknownApp(_ appId: String, _ db: Database) -> StoreError {
        let known = (try? String.fetchAll(db, sql: "SELECT id FROM app ORDER BY id")) ?? []
        return AppWrites.unknownApp(appId, known: known)
    }
}
