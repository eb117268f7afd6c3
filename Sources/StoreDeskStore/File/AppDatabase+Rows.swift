import GRDB
import StoreDeskStoreAPI

/// The SQLite store as a source of `store copy`: every table's rows as plain values, from one snapshot.
extension AppDatabase: StoreRowSource {
    public func columns(of table: String) throws -> [String] { try snapshot { try $0.columns(of: table) } }

    public func rows(of table: String, columns: [String], batch: Int, _ body: ([[StoreValue]]) throws -> Void) throws {
        try snapshot { try $0.rows(of: table, columns: columns, batch: batch, body) }
    }

    public func count(of table: String) throws -> Int { try snapshot { try $0.count(of: table) } }

    public func snapshot<T>(_ body: (any StoreRowSource) throws -> T) throws -> T {
        do {
            return try reader.read { db in try body(SQLiteSnapshot(db: db, path: path)) }
        } catch let error as DatabaseError {
            throw StoreError(error, path: path)
        }
    }
}

/// Reads inside one read transaction (valid only within `AppDatabase.snapshot`'s closure).
private struct SQLiteSnapshot: StoreRowSource, @unchecked Sendable {
    let db: Database
    let path: String

    func columns(of table: String) throws -> [String] {
        let names = try Row.fetchAll(db, sql: "SELECT name FROM pragma_table_info(?) ORDER BY cid", arguments: [table])
            .map { row -> String in row["name"] }
        guard !names.isEmpty else { throw StoreError.damaged(path: path, detail: "it has no table \(table)") }
        // The user list's creation order is SQLite's rowid; other stores call it `seq`.
        return names.map { $0 == "rowid" ? "seq" : $0 }
    }

    func rows(of table: String, columns: [String], batch: Int, _ body: ([[StoreValue]]) throws -> Void) throws {
        let list = columns.map { $0 == "seq" ? "rowid" : $0 }.map { "\"\($0)\"" }.joined(separator: ", ")
        let cursor = try Row.fetchCursor(db, sql: "SELECT \(list) FROM \"\(table)\" ORDER BY 1")
        var rows: [[StoreValue]] = []
        rows.reserveCapacity(batch)
        while let row = try cursor.next() {
            rows.append((0..<columns.count).map { index in Self.value(row[index] as DatabaseValue) })
            if rows.count == batch {
                try body(rows)
                rows.removeAll(keepingCapacity: true)
            }
        }
        if !rows.isEmpty { try body(rows) }
    }

    func count(of table: String) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \"\(table)\"") ?? 0
    }

    func snapshot<T>(_ body: (any StoreRowSource) throws -> T) throws -> T { try body(self) }

    static func value(_ value: DatabaseValue) -> StoreValue {
        switch value.storage {
        case .null: .null
        case .int64(let number): .integer(number)
        case .double(let number): .real(number)
        case .string(let text): .text(text)
        case .blob(let data): .blob([UInt8](data))
        }
    }
}
