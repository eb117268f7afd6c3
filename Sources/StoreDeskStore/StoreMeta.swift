import GRDB
import GRDBSQLite
import StoreDeskCore

/// Small facts about a store kept in `store_meta`: its clock and what it was built from.
public enum StoreMeta {
    public enum Key: String, Sendable {
        /// The store's own "now" in milliseconds: demo and synthetic data are consistent relative to it.
        case clock
        /// What the store was built from: the demo dataset's name, or the generator's parameters.
        case dataset
        /// How many users the store holds, kept by triggers.
        case userCount = "user_count"
    }

    public static func set(_ key: Key, _ value: String, in db: Database) throws {
        try db.execute(
            sql: "INSERT INTO store_meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            arguments: [key.rawValue, value])
    }

    public static func get(_ key: Key, in db: Database) throws -> String? {
        try String.fetchOne(db, sql: "SELECT value FROM store_meta WHERE key = ?", arguments: [key.rawValue])
    }

    /// The store's clock; nil when it keeps none. A value that is not a date StoreDesk can work with
    /// (text, or milliseconds outside 1970...9999, from a hand edit) is an error, not a clock: every
    /// date the store computes from it would be wrong or overflow.
    public static func clock(in db: Database) throws -> Instant? {
        guard let text = try get(.clock, in: db) else { return nil }
        guard let millis = Int64(text), Instant(millis: millis).isSupported else {
            throw StoreError.damaged(path: db.storePath, detail: "its clock (store_meta 'clock' = '\(text)') \(clockProblem)")
        }
        return Instant(millis: millis)
    }

    /// What is wrong with a clock `clock` refuses, for its error and `storedesk check`.
    static let clockProblem = "is not milliseconds from 1970 to 9999"
}

extension AppDatabase {
    /// The store's own clock, when it keeps one (demo and synthetic stores do).
    public func clock() throws -> Instant? { try reader.read { try StoreMeta.clock(in: $0) } }
}

extension AppDatabase {
    /// The number of users, read from the counter the triggers keep (no table scan).
    public func userCount() throws -> Int {
        try reader.read { try StoreMeta.get(.userCount, in: $0).flatMap { Int($0) } ?? 0 }
    }
}

extension Database {
    /// The file this connection reads, for errors raised deep inside a read or a write.
    var storePath: String {
        guard let connection = sqliteConnection, let name = sqlite3_db_filename(connection, "main") else { return "the store" }
        let path = String(cString: name)
        return path.isEmpty ? "the store" : path
    }
}
