import GRDB
import StoreDeskCore
import StoreDeskStoreAPI

/// What every other command needs of a store before it can read a row, checked the way they read it:
/// the tables and columns the migrations make (a column dropped by hand fails every read of its table),
/// and each column the records decode into a Core enum holding one of that enum's values (a `site` of
/// 'x' makes `user show` say the store is damaged). Both lists come from where the reads come from:
/// the schema from `SQLiteMigrations.migrator`, the columns from the records' `CodingKeys` and the values
/// from the enums' `allCases`, so a new column or case is checked without a change here.
extension StoreCheck {
    /// One column decoded into a Core enum: the values its decoder takes.
    struct DecodedColumn: Sendable {
        var table: String
        /// The column that names a row in a finding (its id).
        var key: String
        var column: String
        var values: [DatabaseValue]
        /// The column holds a JSON array of such values (a record's array property, as GRDB stores it).
        var jsonArray = false

        init(_ shared: StoreCheckRules.DecodedColumn) {
            table = shared.table
            key = shared.key
            column = shared.column
            values = shared.values.map { value in
                switch value {
                case .integer(let number): number.databaseValue
                case .text(let text): text.databaseValue
                default: .null
                }
            }
            jsonArray = shared.jsonArray
        }

        /// The rows whose value the decoder refuses: `(id, message)`. A value of another type (text in a
        /// number column) and NULL where the schema says NOT NULL are `typedValueQueries`' findings, said once.
        var sql: String {
            let listed = values.map(\.sqlLiteral).joined(separator: ", ")
            let storage = values.first.map { if case .int64 = $0.storage { "integer" } else { "text" } } ?? "text"
            if jsonArray {
                return """
                    SELECT CAST(\(key) AS TEXT), '\(table) ' || quote(\(key)) || ': \(column) ' || quote(\(column))
                      || ' is not a JSON list of \(listed.replacingOccurrences(of: "'", with: "''"))'
                    FROM \(table) WHERE \(column) IS NOT NULL AND (NOT json_valid(\(column)) OR json_type(\(column)) != 'array'
                      OR EXISTS (SELECT 1 FROM json_each(\(column)) e WHERE e.type != '\(storage)' OR e.value NOT IN (\(listed))))
                    """
            }
            return """
                SELECT CAST(\(key) AS TEXT), '\(table) ' || quote(\(key)) || ': \(column) ' || quote(\(column))
                  || ' is not one StoreDesk reads (\(listed.replacingOccurrences(of: "'", with: "''")))'
                FROM \(table) WHERE typeof(\(column)) = '\(storage)' AND \(column) NOT IN (\(listed))
                """
        }
    }

    /// Every column a record decodes into a Core enum.
    static let decodedColumns: [DecodedColumn] = StoreCheckRules.decodedColumns.map(DecodedColumn.init)

    /// A table as `PRAGMA table_info` describes it.
    struct SchemaTable: Sendable {
        struct Column: Sendable {
            var name, type: String
            var notNull: Bool
            var primaryKey: Bool
        }
        var table: String
        var columns: [Column]
        var names: [String] { columns.map(\.name) }
    }

    /// The tables and columns of a store of this binary's schema, made by running the migrations on an
    /// empty store in memory once per process.
    static let expectedSchema: [SchemaTable] = {
        do {
            let queue = try DatabaseQueue()
            try SQLiteMigrations.migrator.migrate(queue)
            return try queue.read { try schema($0) }
        } catch {
            return []
        }
    }()

    /// A connection's tables (SQLite's own, virtual tables and their shadow tables aside: an index's
    /// inner tables are SQLite's business) and their columns, in order.
    static func schema(_ db: Database) throws -> [SchemaTable] {
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT m.name, c.name, c.type, c."notnull", c.pk FROM sqlite_master m JOIN pragma_table_info(m.name) c
                WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND m.sql NOT LIKE 'CREATE VIRTUAL%'
                  AND NOT EXISTS (
                    SELECT 1 FROM sqlite_master v WHERE v.type = 'table' AND v.sql LIKE 'CREATE VIRTUAL%'
                      AND m.name LIKE v.name || '\\_%' ESCAPE '\\')
                ORDER BY m.name, c.cid
                """)
        var tables: [SchemaTable] = []
        for row in rows {
            let table: String = try row.decode(atIndex: 0)
            let column = SchemaTable.Column(
                name: try row.decode(atIndex: 1), type: try row.decode(atIndex: 2), notNull: try row.decode(atIndex: 3),
                primaryKey: try row.decode(Int.self, atIndex: 4) == 1)
            if tables.last?.table == table { tables[tables.count - 1].columns.append(column) } else { tables.append(SchemaTable(table: table, columns: [column])) }
        }
        return tables
    }

    /// The store's tables and the names of their columns.
    static func presentSchema(_ db: Database) throws -> [String: Set<String>] {
        Dictionary(try schema(db).map { ($0.table, Set($0.names)) }, uniquingKeysWith: { $1 })
    }

    /// Each table or column of `expectedSchema` the store lacks.
    static func schemaViolations(present: [String: Set<String>]) -> [Violation] {
        var violations: [Violation] = []
        for expected in expectedSchema {
            let table = expected.table
            guard let have = present[table] else {
                violations.append(StoreCheckRules.missing(table: table))
                continue
            }
            // A `rowid` column declared by the schema is the table's own rowid, which every rowid table has.
            for column in expected.names where !have.contains(column) && column != "rowid" {
                violations.append(StoreCheckRules.missing(column: column, of: table))
            }
        }
        return violations
    }

    /// The rows of each table with a value its column's type cannot give the records that read it: text in
    /// a number column (`created_at` 'abc', which `user show` calls damaged), a fraction where a whole
    /// number is read, NULL in a NOT NULL column (a table rebuilt without its constraints). One scan a
    /// table, the row's first such value named. Tables or columns gone are `schemaViolations`' findings.
    static func typedValueQueries(present: [String: Set<String>]) -> [String] {
        expectedSchema.compactMap { expected in
            guard let have = present[expected.table] else { return nil }
            let columns = expected.columns.filter { have.contains($0.name) && $0.name != "rowid" }
            var cases: [(condition: String, problem: String)] = []
            for column in columns {
                let name = "\"\(column.name)\""
                let type = column.type.uppercased()
                if type.contains("INT") {
                    cases.append((
                        "typeof(\(name)) IN ('text', 'blob') OR (typeof(\(name)) = 'real' AND \(name) <> CAST(\(name) AS INTEGER))",
                        "'\(column.name) ' || quote(\(name)) || ' is not a whole number'"))
                } else if type.contains("REAL") {
                    cases.append(("typeof(\(name)) IN ('text', 'blob')", "'\(column.name) ' || quote(\(name)) || ' is not a number'"))
                }
                if column.notNull { cases.append(("\(name) IS NULL", "'\(column.name) is NULL'")) }
            }
            guard !cases.isEmpty else { return nil }
            let key = columns.first(where: \.primaryKey).map { "\"\($0.name)\"" } ?? (have.contains("id") ? "\"id\"" : "rowid")
            return """
                SELECT CAST(\(key) AS TEXT), '\(expected.table) ' || quote(\(key)) || ': ' || CASE
                  \(cases.map { "WHEN \($0.condition) THEN \($0.problem)" }.joined(separator: "\n  "))
                  END
                FROM "\(expected.table)" WHERE \(cases.map { "(\($0.condition))" }.joined(separator: " OR "))
                """
        }
    }

    /// The schema's findings, then every decoded column holding a value its decoder refuses.
    static func decodingViolations(_ db: Database) throws -> [Violation] {
        let present = try presentSchema(db)
        var violations = schemaViolations(present: present)
        let enums = decodedColumns.filter { column in
            present[column.table].map { $0.contains(column.column) && $0.contains(column.key) } ?? false
        }
        for sql in typedValueQueries(present: present) + enums.map(\.sql) {
            for row in try Row.fetchAll(db, sql: sql) {
                violations.append(
                    Violation(
                        kind: "value_unreadable", subject: try row.decode(String?.self, atIndex: 0) ?? "",
                        message: try row.decode(String?.self, atIndex: 1) ?? "a value StoreDesk cannot read"))
            }
        }
        return violations
    }

    /// Why a store must not be written, or nil: the first table or column it lacks. A write opened on
    /// such a store would commit its first steps and fail on the next (a `payment_run` row left by a
    /// `simulate` that then found no `item_grant`), so it is refused before anything is written.
    static func unwritableSchema(_ db: Database) throws -> String? {
        schemaViolations(present: try presentSchema(db)).first?.message
    }
}

extension DatabaseValue {
    /// The value as an SQL literal: a number as it is, text quoted.
    fileprivate var sqlLiteral: String {
        switch storage {
        case .int64(let value): String(value)
        case .double(let value): String(value)
        case .string(let text): "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
        case .null, .blob: "NULL"
        }
    }
}
