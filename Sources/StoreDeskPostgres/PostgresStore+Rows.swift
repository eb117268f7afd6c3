import NIOCore
import PostgresNIO
import StoreDeskCore
import StoreDeskStoreAPI

/// The team store as a source of `store copy` (to a SQLite file, or another server): every table's rows as
/// plain values, all from one snapshot (a REPEATABLE READ, read-only transaction), read through a cursor a
/// batch at a time, so a million players never sit in memory at once.
extension PostgresStore: SnapshotRowSource {
    public func snapshot<T>(_ body: (any StoreRowSource) throws -> T) throws -> T {
        do {
            return try session.transaction(readOnly: true) { db in
                try db.run("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
                return try body(PostgresSnapshot(db: db, path: name))
            }
        } catch {
            throw session.describe(error)
        }
    }
}

/// Reads inside one snapshot transaction (valid only within `PostgresStore.snapshot`'s closure).
private struct PostgresSnapshot: StoreRowSource, @unchecked Sendable {
    let db: PostgresSession.Transaction
    let path: String

    func columns(of table: String) throws -> [String] {
        let names = try db.rows(
            """
            SELECT column_name::text FROM information_schema.columns
            WHERE table_schema = current_schema() AND table_name = \(table) ORDER BY ordinal_position
            """
        ).map { try $0.decode(String.self) }
        guard !names.isEmpty else { throw StoreError.damaged(path: path, detail: "it has no table \(table)") }
        return names
    }

    func rows(of table: String, columns: [String], batch: Int, _ body: ([[StoreValue]]) throws -> Void) throws {
        let list = columns.map(PostgresStore.quoted).joined(separator: ", ")
        try db.run("DECLARE store_copy NO SCROLL CURSOR FOR SELECT \(unescaped: list) FROM \(unescaped: PostgresStore.quoted(table)) ORDER BY 1")
        defer { _ = try? db.run("CLOSE store_copy") }
        while true {
            let rows = try db.rows("FETCH \(unescaped: String(max(1, batch))) FROM store_copy")
            if rows.isEmpty { break }
            try body(try rows.map { row in try row.map(Self.value) })
        }
    }

    func count(of table: String) throws -> Int {
        Int(try db.rows("SELECT count(*) FROM \(unescaped: PostgresStore.quoted(table))").first?.decode(Int64.self) ?? 0)
    }

    func snapshot<T>(_ body: (any StoreRowSource) throws -> T) throws -> T { try body(self) }

    /// A cell as the value every backend holds: the schema keeps integers, text and bytes only.
    static func value(_ cell: PostgresCell) throws -> StoreValue {
        guard cell.bytes != nil else { return .null }
        switch cell.dataType {
        case .int2, .int4, .int8: return .integer(try cell.decode(Int64.self))
        case .float4, .float8: return .real(try cell.decode(Double.self))
        case .bool: return .integer(try cell.decode(Bool.self) ? 1 : 0)
        case .bytea:
            var buffer = try cell.decode(ByteBuffer.self)
            return .blob(buffer.readBytes(length: buffer.readableBytes) ?? [])
        default: return .text(try cell.decode(String.self))
        }
    }
}
