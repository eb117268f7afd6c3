import Foundation
import GRDB
import PostgresClusterSupport
import StoreDeskPostgres
import StoreDeskSQLite
import StoreDeskStoreAPI
import Testing

/// `store copy` moves the tables in `StoreTables.copyOrder`: every table either backend's schema makes is
/// among them (a table added by a migration and left out would be lost by a copy, silently).
@Suite struct CopyTablesContractTests {
    @Test func everyTableOfEitherSchemaIsCopied() throws {
        let stores = try ContractStores.get()
        let sqlite = try stores.sqlite()
        let own = try sqlite.snapshotTables()
        #expect(Set(own) == Set(StoreTables.copyOrder), "SQLite: \(Set(own).symmetricDifference(StoreTables.copyOrder))")
        let postgres = try stores.postgres()
        let names = try stores.cluster.psql(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'storedesk_migration'", database: postgres.address.database)
            .split(separator: "\n").map(String.init)
        #expect(Set(names) == Set(StoreTables.copyOrder), "PostgreSQL: \(Set(names).symmetricDifference(StoreTables.copyOrder))")
        #expect(Set(StoreTables.copyOrder).count == StoreTables.copyOrder.count)
    }

    /// COPY's text format escapes what would break a line or a column: names and audit details holding a
    /// tab, a newline, a carriage return, a backslash, `\N` and CJK arrive as themselves, and so do bytes.
    @Test func awkwardValuesCrossByCopyAsThemselves() throws {
        let stores = try ContractStores.get()
        let source = AwkwardRows(base: try stores.sqlite())
        let postgres = try PostgresStore.open(try stores.database(), access: .create)
        defer { postgres.close() }
        _ = try postgres.load(from: source)
        for table in ["user", "audit_log", "trust_root"] {
            let sent = try source.snapshot { try Self.all($0, table) }
            let kept = try postgres.snapshot { try Self.all($0, table) }
            #expect(sent.count > 0, "\(table) is empty in the demo")
            #expect(Set(kept) == Set(sent), "\(table): \(Set(kept).symmetricDifference(sent).prefix(2))")
        }
        #expect(try postgres.user(id: try source.firstUserId())?.name == AwkwardRows.text)
    }

    /// A row the server refuses early in a long table: the copy stops with the server's own refusal in one
    /// line (not the pipe's "stopped"), while the encoder still had thousands of rows to send, and the
    /// database keeps nothing.
    @Test func aRowRefusedEarlyInALongTableStopsTheCopyWithTheServersWords() throws {
        let stores = try ContractStores.get()
        let address = try stores.database()
        let postgres = try PostgresStore.open(address, access: .create)
        defer { postgres.close() }
        let source = RepeatedRows(base: try stores.sqlite(), table: "user", times: 600)
        do {
            _ = try postgres.load(from: source)
            Issue.record("a copy of duplicated players was taken")
        } catch {
            let said = "\(postgres.storeError(for: error) ?? error)"
            #expect(said.contains("duplicate key") && !said.contains("Stopped") && !said.contains("\n"), "\(said)")
        }
        #expect(try postgres.userCount() == 0)
    }

    static func all(_ source: any StoreRowSource, _ table: String) throws -> [[StoreValue]] {
        let columns = try source.columns(of: table)
        var rows: [[StoreValue]] = []
        try source.rows(of: table, columns: columns, batch: 7) { rows += $0 }
        return rows
    }
}

/// The demo store's rows, with every text column of `user` and `audit_log` replaced by text COPY must escape.
struct AwkwardRows: StoreRowSource, @unchecked Sendable {
    static let text = "a\tb\\c\nd\re \\N 王小明\\"
    let base: AppDatabase
    var path: String { base.path }

    func columns(of table: String) throws -> [String] { try base.columns(of: table) }
    func count(of table: String) throws -> Int { try base.count(of: table) }
    func snapshot<T>(_ body: (any StoreRowSource) throws -> T) throws -> T { try body(self) }

    func rows(of table: String, columns: [String], batch: Int, _ body: ([[StoreValue]]) throws -> Void) throws {
        let awkward: Set<String> = table == "user" ? ["name"] : table == "audit_log" ? ["detail"] : []
        try base.rows(of: table, columns: columns, batch: batch) { rows in
            try body(rows.map { row in
                zip(columns, row).map { column, value in awkward.contains(column) ? .text(Self.text) : value }
            })
        }
    }

    func firstUserId() throws -> String {
        var id: String?
        let columns = try columns(of: "user")
        try rows(of: "user", columns: columns, batch: 1) { rows in
            if id == nil, case .text(let text)? = rows.first?[columns.firstIndex(of: "id")!] { id = text }
        }
        return try #require(id)
    }
}

extension AppDatabase {
    /// The store's own tables (not GRDB's, SQLite's, or the search index's shadow tables).
    func snapshotTables() throws -> [String] {
        try DatabaseQueue(path: path, configuration: { var c = Configuration(); c.readonly = true; return c }()).read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
                    AND name NOT LIKE 'grdb_%' AND name NOT LIKE 'user_search%'
                    """)
        }
    }
}

/// The demo store's rows, with one table's rows sent `times` over (so its keys repeat).
struct RepeatedRows: StoreRowSource, @unchecked Sendable {
    let base: AppDatabase
    let table: String
    let times: Int
    var path: String { base.path }

    func columns(of table: String) throws -> [String] { try base.columns(of: table) }
    func count(of table: String) throws -> Int { try base.count(of: table) * (table == self.table ? times : 1) }
    func snapshot<T>(_ body: (any StoreRowSource) throws -> T) throws -> T { try body(self) }

    func rows(of table: String, columns: [String], batch: Int, _ body: ([[StoreValue]]) throws -> Void) throws {
        for _ in 0..<(table == self.table ? times : 1) { try base.rows(of: table, columns: columns, batch: batch, body) }
    }
}
