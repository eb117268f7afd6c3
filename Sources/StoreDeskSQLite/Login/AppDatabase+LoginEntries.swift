import Foundation
import GRDB
import StoreDeskCore
import StoreDeskStoreAPI

extension LoginEntryHistory: FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "login_entry_history"
    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

/// A game's login entries on SQLite: `LoginProcedures`, written once for both backends.
extension AppDatabase {
    /// A game's saved login entries, its third-party AppIDs and its latest changes.
    ///
    /// - Throws: `StoreError.invalidArgument` for an app the store does not know.
    public func loginEntrySetup(appId: String, historyLimit: Int = 20) throws -> LoginEntrySetup {
        try reader.read { db in try LoginProcedures.setup(procedures(db), appId: appId, historyLimit: historyLimit) }
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
        return try writeImmediate { db in try LoginProcedures.set(procedures(db), entries, appId: appId, by: staff, surface: surface, at: now) }
    }

    static func unknownApp(_ appId: String, _ db: Database) -> StoreError {
        let known = (try? String.fetchAll(db, sql: "SELECT id FROM app ORDER BY id")) ?? []
        return AppWrites.unknownApp(appId, known: known)
    }
}
