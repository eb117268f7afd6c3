import StoreDeskCore

/// SQLite's store is a whole store: every area's protocol is met by the named reads and writes of its
/// `AppDatabase+AREA.swift` file.
extension AppDatabase: Store {
    public func openCallbackLedger() throws -> any CallbackLedger { try GameServerLedger.open(database: self) }
}

