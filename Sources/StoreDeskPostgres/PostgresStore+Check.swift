import Foundation
import PostgresNIO
import StoreDeskCore
import StoreDeskStoreAPI

/// `storedesk check` on PostgreSQL: the same findings as the SQLite store's `StoreCheck` for the same
/// damage, read in one read-only snapshot (REPEATABLE READ), each rule in a savepoint of its own so a rule
/// that cannot run (a table or column dropped by hand) is itself the finding and the others still run.
///
/// SQLite's own checks have their counterparts here:
/// - `PRAGMA integrity_check`: `amcheck`'s `bt_index_check` on every index of the store, when the database
///   has that extension (`CREATE EXTENSION amcheck`, a superuser's step); without it the pages are the
///   server's to keep (data checksums), and `check` says nothing of them.
/// - `PRAGMA foreign_key_check`: the server enforces the schema's foreign keys, but a row written with them
///   off (`session_replication_role = replica`, a restore) is not refused: every foreign key of the store's
///   tables is checked by an anti-join.
/// - The typed values SQLite lets a column hold: PostgreSQL's column types hold only their type, so a
///   column whose type or NOT NULL was changed by hand is what is looked for.
/// The store's tables, each column's type and whether it takes NULL.
typealias PresentSchema = [String: [String: (type: String, nullable: Bool)]]

extension PostgresStore: StoreChecking {
    public func check() throws -> [StoreCheckViolation] {
        try session.transaction(readOnly: true) { db in
            try db.run("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            var violations = try integrity(db)
            let present = try presentSchema(db)
            violations += try foreignKeys(db)
            violations += schemaViolations(present: present)
            violations += try typedValues(db, present: present)
            violations += try decodedValues(db, present: present)
            for invariant in StoreInvariant.allCases {
                violations += try findings(db, kind: invariant.rawValue, rule: invariant.rawValue, sql: invariant.sql(.postgres))
            }
            return violations
        }
    }

    // MARK: The rules' runner

    /// The rows of one rule as findings `(subject, message)`; a rule the server cannot run is one `schema`
    /// finding naming `rule`.
    private func findings(_ db: PostgresSession.Transaction, kind: String, rule: String, sql: String) throws -> [StoreCheckViolation] {
        let rows: [PostgresRow]
        switch try guarded(db, rule: rule, { try db.rows(PostgresQuery(unsafeSQL: sql)) }) {
        case .ran(let value): rows = value
        case .refused(let finding): return [finding]
        }
        return try rows.map { row in
            let (subject, message) = try row.decode((String?, String?).self)
            let said = message ?? ""
            return StoreCheckViolation(
                kind: kind, subject: subject ?? "",
                message: said.isEmpty ? "\(kind) on \((subject ?? "").isEmpty ? "the store" : subject!)" : said)
        }
    }

    private enum Guarded<T> {
        case ran(T)
        /// The server refused the rule: the `schema` finding that says so.
        case refused(StoreCheckViolation)
    }

    /// Runs `body` in a savepoint, so a rule the server refuses leaves the snapshot usable for the next.
    private func guarded<T>(_ db: PostgresSession.Transaction, rule: String, _ body: () throws -> T) throws -> Guarded<T> {
        try db.run("SAVEPOINT storedesk_check")
        do {
            let value = try body()
            try db.run("RELEASE SAVEPOINT storedesk_check")
            return .ran(value)
        } catch let error as PSQLError where error.code == .server {
            try db.run("ROLLBACK TO SAVEPOINT storedesk_check")
            let message = error.serverInfo?[.message] ?? "the server refused it"
            return .refused(StoreCheckRules.cannotCheck(rule, because: message))
        }
    }

    // MARK: The store itself

    /// `amcheck` on every B-tree index of the store, when the database has the extension.
    private func integrity(_ db: PostgresSession.Transaction) throws -> [StoreCheckViolation] {
        guard !(try db.rows("SELECT 1 FROM pg_extension WHERE extname = 'amcheck'").isEmpty) else { return [] }
        let indexes = try db.rows(
            """
            SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am am ON am.oid = c.relam
              JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE am.amname = 'btree' AND n.nspname = current_schema() ORDER BY c.relname
            """
        ).map { try $0.decode(String.self) }
        var violations: [StoreCheckViolation] = []
        for index in indexes {
            let sql = "SELECT bt_index_check(\(Self.literal(Self.quoted(index)))::regclass)"
            if case .refused(let finding) = try guarded(db, rule: StoreCheckRules.integrity, { try db.run(PostgresQuery(unsafeSQL: sql)) }) {
                violations.append(StoreCheckViolation(kind: StoreCheckRules.integrity, subject: index, message: finding.message))
            }
        }
        return violations
    }

    /// Every row whose foreign key points at no row of its parent.
    private func foreignKeys(_ db: PostgresSession.Transaction) throws -> [StoreCheckViolation] {
        let keys = try db.rows(
            """
            SELECT c.conrelid::regclass::text, c.confrelid::regclass::text,
              (SELECT string_agg(quote_ident(a.attname), ',' ORDER BY k.n) FROM unnest(c.conkey) WITH ORDINALITY k(att, n)
                JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.att),
              (SELECT string_agg(quote_ident(a.attname), ',' ORDER BY k.n) FROM unnest(c.confkey) WITH ORDINALITY k(att, n)
                JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.att)
            FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
            WHERE c.contype = 'f' AND n.nspname = current_schema() ORDER BY 1, 2, 3
            """
        ).map { try $0.decode((String, String, String, String).self) }
        var violations: [StoreCheckViolation] = []
        for (child, parent, childColumns, parentColumns) in keys {
            let pairs = zip(childColumns.split(separator: ","), parentColumns.split(separator: ","))
            let table = child.replacingOccurrences(of: "\"", with: "")
            let parentName = parent.replacingOccurrences(of: "\"", with: "")
            let key = Self.rowKey(table: table)
            let sql = """
                SELECT \(key)::text FROM \(child) c
                WHERE \(pairs.map { "c.\($0.0) IS NOT NULL" }.joined(separator: " AND "))
                  AND NOT EXISTS (SELECT 1 FROM \(parent) p WHERE \(pairs.map { "p.\($0.1) = c.\($0.0)" }.joined(separator: " AND ")))
                """
            let rows: [PostgresRow]
            switch try guarded(db, rule: StoreCheckRules.foreignKey, { try db.rows(PostgresQuery(unsafeSQL: sql)) }) {
            case .ran(let value): rows = value
            case .refused(let finding):
                violations.append(finding)
                continue
            }
            for row in rows {
                let id = try row.decode(String?.self) ?? "?"
                violations.append(
                    StoreCheckViolation(kind: StoreCheckRules.foreignKey, subject: table, message: "\(table) row \(id) points at a missing \(parentName)"))
            }
        }
        return violations
    }

    /// The column that names a row of `table` in a finding: its one-column primary key, else `id`, else `ctid`.
    static func rowKey(table: String) -> String {
        guard let expected = PostgresExpectedSchema.tables.first(where: { $0.name == table }) else { return "c.ctid" }
        if let key = expected.columns.first(where: \.primaryKey) ?? expected.columns.first(where: { $0.name == "id" }) {
            return "c.\(quoted(key.name))"
        }
        return "c.ctid"
    }

    /// The store's tables and their columns: name, type and whether NULL is allowed.
    private func presentSchema(_ db: PostgresSession.Transaction) throws -> PresentSchema {
        var tables: PresentSchema = [:]
        for row in try db.rows(
            "SELECT table_name::text, column_name::text, data_type::text, is_nullable::text FROM information_schema.columns WHERE table_schema = current_schema()")
        {
            let (table, column, type, nullable) = try row.decode((String, String, String, String).self)
            tables[table, default: [:]][column] = (type, nullable == "YES")
        }
        return tables
    }

    /// Each table or column the migrations make that the store lacks.
    private func schemaViolations(present: PresentSchema) -> [StoreCheckViolation] {
        var violations: [StoreCheckViolation] = []
        for table in PostgresExpectedSchema.tables {
            guard let have = present[table.name] else {
                violations.append(StoreCheckRules.missing(table: table.name))
                continue
            }
            for column in table.columns where have[column.name] == nil {
                violations.append(StoreCheckRules.missing(column: column.name, of: table.name))
            }
        }
        return violations
    }

    /// A column whose type was changed by hand (every row's value is then one the records may not read),
    /// and NULL in a column the schema says NOT NULL whose constraint was dropped.
    private func typedValues(
        _ db: PostgresSession.Transaction, present: PresentSchema
    ) throws -> [StoreCheckViolation] {
        var violations: [StoreCheckViolation] = []
        for table in PostgresExpectedSchema.tables {
            guard let have = present[table.name] else { continue }
            let key = Self.rowKey(table: table.name)
            for column in table.columns {
                guard let actual = have[column.name] else { continue }
                if actual.type != column.type {
                    violations.append(
                        StoreCheckViolation(
                            kind: StoreCheckRules.valueUnreadable, subject: "\(table.name).\(column.name)",
                            message: "\(table.name): \(column.name) holds \(actual.type), not \(column.type) (the schema was changed outside StoreDesk)"))
                }
                guard column.notNull && actual.nullable else { continue }
                let sql = """
                    SELECT \(key)::text, \(Self.literal(table.name + " ")) || quote_nullable(\(key)::text) || \(Self.literal(": \(column.name) is NULL"))
                    FROM \(Self.quoted(table.name)) c WHERE c.\(Self.quoted(column.name)) IS NULL
                    """
                violations += try findings(db, kind: StoreCheckRules.valueUnreadable, rule: StoreCheckRules.valueUnreadable, sql: sql)
            }
        }
        return violations
    }

    /// Each column the records decode into a Core enum holding a value its decoder refuses.
    private func decodedValues(
        _ db: PostgresSession.Transaction, present: PresentSchema
    ) throws -> [StoreCheckViolation] {
        var violations: [StoreCheckViolation] = []
        for decoded in StoreCheckRules.decodedColumns {
            guard let have = present[decoded.table], have[decoded.column] != nil, have[decoded.key] != nil else { continue }
            let table = Self.quoted(decoded.table), key = Self.quoted(decoded.key), column = Self.quoted(decoded.column)
            if decoded.jsonArray {
                violations += try jsonArrays(db, decoded)
                continue
            }
            let isText = decoded.values.first.map { if case .text = $0 { true } else { false } } ?? true
            let shown = isText ? "quote_literal(\(column))" : "\(column)::text"
            let sql = """
                SELECT \(key)::text, \(Self.literal(decoded.table + " ")) || quote_literal(\(key)) || \(Self.literal(": \(decoded.column) "))
                  || \(shown) || \(Self.literal(" is not one StoreDesk reads (\(decoded.literals))"))
                FROM \(table) WHERE \(column) NOT IN (\(decoded.literals))
                """
            violations += try findings(db, kind: StoreCheckRules.valueUnreadable, rule: StoreCheckRules.valueUnreadable, sql: sql)
        }
        return violations
    }

    /// A column holding a JSON list of an enum's values: read here and judged as its decoder would.
    private func jsonArrays(_ db: PostgresSession.Transaction, _ decoded: StoreCheckRules.DecodedColumn) throws -> [StoreCheckViolation] {
        let allowed = Set(decoded.values.compactMap { if case .text(let text) = $0 { text } else { nil } })
        let sql = "SELECT \(Self.quoted(decoded.key))::text, \(Self.quoted(decoded.column))::text FROM \(Self.quoted(decoded.table)) WHERE \(Self.quoted(decoded.column)) IS NOT NULL"
        let rows: [PostgresRow]
        switch try guarded(db, rule: StoreCheckRules.valueUnreadable, { try db.rows(PostgresQuery(unsafeSQL: sql)) }) {
        case .ran(let value): rows = value
        case .refused(let finding): return [finding]
        }
        return try rows.compactMap { row in
            let (key, text) = try row.decode((String, String).self)
            let list = try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]) as? [Any]
            if let list, list.allSatisfy({ ($0 as? String).map(allowed.contains) ?? false }) { return nil }
            return StoreCheckViolation(
                kind: StoreCheckRules.valueUnreadable, subject: key,
                message: "\(decoded.table) '\(key)': \(decoded.column) '\(text)' is not a JSON list of \(decoded.literals)")
        }
    }

    static func literal(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }
}

/// The tables and columns PostgreSQL's migrations make, read from their own statements (`CREATE TABLE`,
/// `ALTER TABLE … ADD COLUMN`), so a new migration is checked without a change here.
enum PostgresExpectedSchema {
    struct Column {
        var name: String
        /// As `information_schema.columns.data_type` says it.
        var type: String
        var notNull: Bool
        var primaryKey: Bool
    }

    struct Table {
        var name: String
        var columns: [Column]
    }

    static let tables: [Table] = {
        var tables: [Table] = []
        for statement in PostgresSchema.migrations.flatMap(\.statements) {
            let text = statement.trimmingCharacters(in: .whitespacesAndNewlines)
            if text.hasPrefix("CREATE TABLE "), let open = text.firstIndex(of: "(") {
                let name = unquoted(text[text.index(text.startIndex, offsetBy: 13)..<open].trimmingCharacters(in: .whitespaces))
                let body = text[text.index(after: open)..<(text.lastIndex(of: ")") ?? text.endIndex)]
                tables.append(Table(name: name, columns: topLevelParts(String(body)).compactMap(column)))
            } else if text.hasPrefix("ALTER TABLE "), let range = text.range(of: " ADD COLUMN ") {
                let name = unquoted(text[text.index(text.startIndex, offsetBy: 12)..<range.lowerBound].trimmingCharacters(in: .whitespaces))
                if let index = tables.firstIndex(where: { $0.name == name }), let column = column(String(text[range.upperBound...])) {
                    tables[index].columns.append(column)
                }
            }
        }
        return tables
    }()

    private static func unquoted(_ name: String) -> String {
        let name = name.hasPrefix("IF NOT EXISTS ") ? String(name.dropFirst(14)) : name
        return name.replacingOccurrences(of: "\"", with: "").trimmingCharacters(in: .whitespaces)
    }

    /// A column's definition, or nil for a table constraint.
    private static func column(_ definition: String) -> Column? {
        let words = definition.split(whereSeparator: \.isWhitespace).map(String.init)
        guard let first = words.first, words.count >= 2,
            !["PRIMARY", "FOREIGN", "CHECK", "UNIQUE", "CONSTRAINT", "EXCLUDE"].contains(first.uppercased())
        else { return nil }
        let upper = definition.uppercased()
        let type = switch words[1].lowercased() {
        case "bigint": "bigint"
        case "text": "text"
        case "bytea": "bytea"
        case "smallint": "smallint"
        case "integer", "int": "integer"
        case "boolean": "boolean"
        case "timestamptz": "timestamp with time zone"
        default: words[1].lowercased()
        }
        let primaryKey = upper.contains("PRIMARY KEY")
        return Column(name: unquoted(first), type: type, notNull: upper.contains("NOT NULL") || primaryKey, primaryKey: primaryKey)
    }

    /// `text` split at its commas outside parentheses.
    private static func topLevelParts(_ text: String) -> [String] {
        var parts: [String] = [], current = "", depth = 0
        for character in text {
            switch character {
            case "(": depth += 1
            case ")": depth -= 1
            case "," where depth == 0:
                parts.append(current.trimmingCharacters(in: .whitespacesAndNewlines))
                current = ""
                continue
            default: break
            }
            current.append(character)
        }
        parts.append(current.trimmingCharacters(in: .whitespacesAndNewlines))
        return parts.filter { !$0.isEmpty }
    }
}
