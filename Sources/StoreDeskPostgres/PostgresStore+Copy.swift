import NIOCore
import PostgresNIO
import StoreDeskCore
import StoreDeskStoreAPI

extension PostgresStore {
    /// Copies every row of `source` into this store, which must hold none yet, in one transaction (each
    /// table by `COPY … FROM STDIN`, as `seed` and `store copy` both write): a
    /// copy that fails (a value the schema refuses, a lost connection) leaves the database as it was.
    /// Returns the rows moved per table, counted again on this side before the commit.
    public func load(from source: any StoreRowSource) throws -> StoreCopyReport {
        guard !isReadOnly else { throw StoreError.readOnlyFile(path: name) }
        return try write { db in try load(from: source, db) }
    }

    /// A new store at `address`, its schema and every row of `source`, in one transaction (PostgreSQL's DDL
    /// is transactional): a copy that fails leaves the database without a trace of it, schema included.
    public static func build(_ address: PostgresAddress, from source: any StoreRowSource) throws -> StoreCopyReport {
        let store = PostgresStore(address: address, session: try PostgresSession(address: address), readOnly: false)
        defer { store.close() }
        do {
            return try store.write { db in
                try applyMigrations(db)
                return try store.load(from: source, db)
            }
        } catch {
            throw store.session.describe(error)
        }
    }

    func load(from source: any StoreRowSource, _ db: PostgresSession.Transaction) throws -> StoreCopyReport {
        let held = try db.rows(#"SELECT (SELECT count(*) FROM app) + (SELECT count(*) FROM "user")"#).first?.decode(Int64.self) ?? 0
        guard held == 0 else {
            throw StoreError.invalidArgument("\(name) already holds a store: copy into a database without one")
        }
        var report: [(name: String, rows: Int)] = []
        // An index built once over every row is far cheaper than one kept up row by row (pg_restore loads
        // the same way): the indexes no constraint needs go while the rows arrive and are made again after,
        // in the same transaction, so no other session ever sees the store without them.
        let indexes = try secondaryIndexes(db)
        for index in indexes { try db.run("DROP INDEX \(unescaped: index.name)") }
        try source.snapshot { source in
            for table in PostgresSchema.copyOrder {
                let columns = try source.columns(of: table)
                let expected = try source.count(of: table)
                if table == "store_meta" {
                    // The schema's own meta rows are there already: the source's replace them.
                    try source.rows(of: table, columns: columns, batch: Self.batchRows(columns: columns.count)) { rows in
                        try insert(rows, into: table, columns: columns, onConflict: "(key) DO UPDATE SET value = excluded.value", db)
                    }
                } else {
                    try db.copy(into: table, columns: columns) { send in
                        try source.rows(of: table, columns: columns, batch: Self.copyBatchRows, send)
                    }
                }
                let copied = try db.rows("SELECT count(*) FROM \(unescaped: Self.quoted(table))").first?.decode(Int64.self) ?? 0
                guard copied == expected else {
                    throw StoreError.invalidArgument("the copy of \(table) holds \(copied) rows, the source \(expected): nothing was copied")
                }
                report.append((table, expected))
            }
        }
        for index in indexes { try db.run("\(unescaped: index.definition)") }
        // Identity columns go on after the copied rows.
        for (table, column) in Self.identityColumns {
            try db.run(
                """
                SELECT setval(pg_get_serial_sequence(\(Self.quoted(table)), \(column)), coalesce(max(\(unescaped: column)), 0) + 1, false)
                FROM \(unescaped: Self.quoted(table))
                """)
        }
        return StoreCopyReport(tables: report)
    }

    /// The schema's indexes that back no constraint (a primary key, a unique or exclusion constraint keeps
    /// its own), by qualified name, with the statement that makes each again.
    func secondaryIndexes(_ db: PostgresSession.Transaction) throws -> [(name: String, definition: String)] {
        try db.rows(
            """
            SELECT i.indexrelid::regclass::text, pg_get_indexdef(i.indexrelid)
            FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid JOIN pg_namespace n ON n.oid = t.relnamespace
            WHERE n.nspname = current_schema() AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid)
            ORDER BY 1
            """
        ).map { row in let (name, definition) = try row.decode((String, String).self); return (name, definition) }
    }

    /// Inserts `rows` by multi-row INSERTs, as many rows a statement as PostgreSQL's bound values allow;
    /// `onConflict` (after `ON CONFLICT`) says what a row already there becomes.
    func insert(
        _ rows: [[StoreValue]], into table: String, columns: [String], onConflict: String? = nil, _ db: PostgresSession.Transaction
    ) throws {
        let batch = Self.batchRows(columns: columns.count)
        var start = rows.startIndex
        while start < rows.endIndex {
            let slice = rows[start..<min(start + batch, rows.endIndex)]
            start = slice.endIndex
            var sql = SQLBuilder("INSERT INTO \(Self.quoted(table)) (\(columns.map(Self.quoted).joined(separator: ", "))) VALUES ")
            for (index, row) in slice.enumerated() {
                if index > 0 { sql.append(", ") }
                sql.append("(" + row.map { value in sql.bind(value) }.joined(separator: ", ") + ")")
            }
            if let onConflict { sql.append(" ON CONFLICT \(onConflict)") }
            try db.run(sql.query)
        }
    }

    /// Rows a COPY batch: large enough that a batch is one write, small enough that four in flight stay small.
    static let copyBatchRows = 2000

    /// Rows per INSERT: PostgreSQL takes at most 65,535 bound values a statement.
    static func batchRows(columns: Int) -> Int { max(1, min(1000, 60_000 / max(1, columns))) }

    static func quoted(_ name: String) -> String { "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }

    /// The tables whose id the store hands out, and that id's column.
    static let identityColumns = [
        ("user", "seq"), ("game_account", "id"), ("payment_run", "id"), ("server_callback", "id"), ("item_grant", "id"),
        ("restore_request", "id"), ("audit_log", "id"), ("transaction_event", "id"), ("login_entry_history", "id"),
        ("trust_root", "id"), ("subscription_event", "id"), ("game_server_callback", "id"), ("apple_renewal_extension", "id"),
        ("notification_attempt", "id"),
    ]
}

extension SQLBuilder {
    /// Binds a stored value with the type it holds (NULL takes its column's type).
    mutating func bind(_ value: StoreValue) -> String {
        switch value {
        case .null: binds.appendNull()
        case .integer(let number): binds.append(number)
        case .real(let number): binds.append(number)
        case .text(let text): binds.append(text)
        case .blob(let bytes): binds.append(ByteBuffer(bytes: bytes))
        }
        return "$\(binds.count)"
    }
}
