import Foundation
import GRDB
import StoreDeskStoreAPI

/// The SQLite store as a source of `store copy`: every table's rows as plain values, from one snapshot.
extension AppDatabase: SnapshotRowSource {
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
        // The user list's creation order is its `rowid` column (SQLite's rowid); other stores call it `seq`.
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

extension AppDatabase {
    /// Builds a new SQLite store at `path` holding every row of `source` (`storedesk store copy`), in one
    /// transaction on a file beside it that takes the path only once complete and counted: a copy that
    /// fails leaves whatever was at `path` as it was. Refused when `path` exists, unless `replacing`.
    public static func build(at path: String, from source: any StoreRowSource, replacing: Bool) throws -> StoreCopyReport {
        var report = StoreCopyReport(tables: [])
        try FileReplacement.write(to: path, replacing: replacing) { temporary in
            let queue = try DatabaseQueue(path: temporary, configuration: AppDatabase.configuration(readOnly: false))
            try SQLiteMigrations.migrator.migrate(queue)
            try queue.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA foreign_keys = OFF")
                try db.inTransaction {
                    // A new store's own rows (its clock, its one-tap simulator) give way to the source's.
                    for table in StoreTables.copyOrder.reversed() { try db.execute(sql: "DELETE FROM \(table.quotedDatabaseIdentifier)") }
                    try source.snapshot { source in
                        for table in StoreTables.copyOrder {
                            let columns = try source.columns(of: table)
                            let expected = try source.count(of: table)
                            let names = columns.map { ($0 == "seq" && table == "user" ? "rowid" : $0).quotedDatabaseIdentifier }
                            let statement = try db.makeStatement(
                                sql: "INSERT INTO \(table.quotedDatabaseIdentifier) (\(names.joined(separator: ", "))) VALUES (\(Array(repeating: "?", count: names.count).joined(separator: ", ")))")
                            try source.rows(of: table, columns: columns, batch: 1000) { rows in
                                for row in rows {
                                    try statement.execute(arguments: StatementArguments(row.map(Self.databaseValue)))
                                }
                            }
                            let copied = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table.quotedDatabaseIdentifier)") ?? 0
                            guard copied == expected else {
                                throw StoreError.invalidArgument("the copy of \(table) holds \(copied) rows, the source \(expected): nothing was copied")
                            }
                            report.tables.append((table, expected))
                        }
                    }
                    let broken = try Row.fetchAll(db, sql: "PRAGMA foreign_key_check")
                    guard broken.isEmpty else {
                        let table: String = broken[0][0]
                        throw StoreError.invalidArgument("the copy of \(table) refers to rows the source does not hold: nothing was copied")
                    }
                    return .commit
                }
                try db.execute(sql: "PRAGMA foreign_keys = ON")
                try db.execute(sql: "INSERT INTO user_search(user_search) VALUES ('rebuild')")
                try db.execute(sql: "PRAGMA analysis_limit = 1000; ANALYZE")
            }
            try queue.close()
        }
        return report
    }

    static func databaseValue(_ value: StoreValue) -> DatabaseValue {
        switch value {
        case .null: .null
        case .integer(let number): number.databaseValue
        case .real(let number): number.databaseValue
        case .text(let text): text.databaseValue
        case .blob(let bytes): Data(bytes).databaseValue
        }
    }
}
