import Foundation
import GRDB
import StoreDeskCore
import StoreDeskStoreAPI

/// The SQLite store's side of the procedures written once for both backends (`StoreSQLTransaction`):
/// statements run on GRDB's cached statements inside the caller's transaction, and the writes the SQLite
/// store does its own way (`PaymentRowWriter`, `StoreMeta`'s time line, `PaymentRuns`' blocks).
struct SQLiteTransaction: StoreSQLTransaction {
    let db: Database
    let store: String

    var dialect: StoreSQL.Dialect { .sqlite }

    func rows(_ sql: StoreSQL) throws -> [any StoreColumns] {
        let (text, values) = sql.rendered(.sqlite)
        return try Row.fetchAll(try statement(text, cached: !sql.hasList), arguments: Self.arguments(values)).map { SQLiteColumns(row: $0, store: store) }
    }

    @discardableResult
    func execute(_ sql: StoreSQL) throws -> Int {
        let (text, values) = sql.rendered(.sqlite)
        try statement(text, cached: !sql.hasList).execute(arguments: Self.arguments(values))
        return db.changesCount
    }

    /// A prepared statement: from the connection's cache (prepared once a connection), or, for a statement
    /// whose text changes with its values, made for this call alone.
    func statement(_ text: String, cached: Bool) throws -> Statement {
        cached ? try db.cachedStatement(sql: text) : try db.makeStatement(sql: text)
    }

    /// A statement written once for both backends in GRDB's terms, for reading its plan (`EXPLAIN QUERY
    /// PLAN` in the list tests); the procedures themselves go through `statement` and `arguments`.
    static func condition(_ sql: StoreSQL) -> (String, StatementArguments) {
        let (text, values) = sql.rendered(.sqlite)
        return (text, arguments(values))
    }

    static func arguments(_ values: [StoreValue]) -> StatementArguments {
        StatementArguments(values.map { value -> (any DatabaseValueConvertible)? in
            switch value {
            case .null: nil
            case .integer(let int): int
            case .real(let real): real
            case .text(let text): text
            case .blob(let bytes): Data(bytes)
            }
        })
    }

    func stamp(_ now: Instant) throws -> Instant { try StoreMeta.stamp(now, in: db) }
    func now(wall: Instant) throws -> Instant { try StoreMeta.now(in: db, wall: wall).instant }
    func write(_ change: PaymentChange) throws { try PaymentRowWriter(db).write(change) }
    func insert(_ event: PaymentEvent) throws { try event.insert(db) }

    func insert(_ entry: AuditEntry) throws {
        var entry = entry
        try entry.insert(db)
    }

    func importNotifications(_ lines: SubscriptionEventLines, source: String, at now: Instant) throws -> NotificationImport.Report {
        try NotificationImporter(db: db, source: source, wallClock: now, stampAt: now).run(lines)
    }

    func recordBaseline(chain: String, at now: Instant) throws { try SubscriptionBaselineRows.record(db, chain: chain, at: now) }

    func runIsGone(_ run: Int64, now: Instant) throws -> Bool { try PaymentRuns.isGone(db, run, store: store, now: now) }

    func restoreDeskNumbers(needing count: Int, now: Instant) throws -> OrderNumbers {
        try PaymentRuns.restoreDesk(db, needing: count, now: now, path: store)
    }

    func save(_ numbers: OrderNumbers) throws { try PaymentRuns.save(numbers, db) }

    /// Nothing to take: the write holds the whole file (`BEGIN IMMEDIATE`).
    func serialize(_ key: SerialKey) throws {}
    func tryHoldAlone(_ key: SerialKey) throws -> Bool { true }
}

/// One SQLite row's columns by name, read as `StoreColumns` reads them.
struct SQLiteColumns: StoreColumns {
    let row: Row
    let store: String

    func value(_ column: String) throws -> DatabaseValue {
        guard row.hasColumn(column) else { throw StoreError.damaged(path: store, detail: "it has no column \(column)") }
        return row[column]
    }

    func optionalText(_ column: String) throws -> String? {
        let value = try value(column)
        if value.isNull { return nil }
        guard let text = String.fromDatabaseValue(value) else { throw unreadable(column) }
        return text
    }

    func optionalBytes(_ column: String) throws -> [UInt8]? {
        let value = try value(column)
        if value.isNull { return nil }
        guard let data = Data.fromDatabaseValue(value) else { throw unreadable(column) }
        return Array(data)
    }

    func optionalInt(_ column: String) throws -> Int64? {
        let value = try value(column)
        if value.isNull { return nil }
        guard let int = Int64.fromDatabaseValue(value) else { throw unreadable(column) }
        return int
    }
}
