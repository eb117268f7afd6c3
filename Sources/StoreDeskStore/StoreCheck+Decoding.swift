import GRDB
import StoreDeskCore

/// What every other command needs of a store before it can read a row, checked the way they read it:
/// the tables and columns the migrations make (a column dropped by hand fails every read of its table),
/// and each column the records decode into a Core enum holding one of that enum's values (a `site` of
/// 'x' makes `user show` say the store is damaged). Both lists come from where the reads come from:
/// the schema from `AppDatabase.migrator`, the columns from the records' `CodingKeys` and the values
/// from the enums' `allCases`, so a new column or case is checked without a change here.
extension StoreCheck {
    /// One column decoded into a Core enum: the values its decoder takes.
    struct DecodedColumn: Sendable {
        var table: String
        /// The column that names a row in a finding (its id).
        var key: String
        var column: String
        var values: [DatabaseValue]
        var optional: Bool

        init<Record: TableRecord, Value: RawRepresentable & CaseIterable>(
            _ record: Record.Type, key: some CodingKey, _ column: some CodingKey, _ type: Value.Type, optional: Bool = false
        ) where Value.RawValue: DatabaseValueConvertible {
            table = Record.databaseTableName
            self.key = key.stringValue
            self.column = column.stringValue
            values = Value.allCases.map(\.rawValue.databaseValue)
            self.optional = optional
        }

        /// The rows whose value the decoder refuses: `(id, message)`.
        var sql: String {
            let listed = values.map(\.sqlLiteral).joined(separator: ", ")
            let bad = "(\(column) NOT IN (\(listed))\(optional ? "" : " OR \(column) IS NULL"))"
            return """
                SELECT CAST(\(key) AS TEXT), '\(table) ' || quote(\(key)) || ': \(column) ' || quote(\(column))
                  || ' is not one StoreDesk reads (\(listed.replacingOccurrences(of: "'", with: "''")))'
                FROM \(table) WHERE \(bad)
                """
        }
    }

    /// Every column a record decodes into a Core enum.
    static let decodedColumns: [DecodedColumn] = [
        DecodedColumn(User.self, key: User.CodingKeys.id, User.CodingKeys.site, Site.self),
        DecodedColumn(User.self, key: User.CodingKeys.id, User.CodingKeys.adultType, AdultType.self),
        DecodedColumn(App.self, key: App.CodingKeys.id, App.CodingKeys.restoreOwnership, RestoreOwnership.self),
        DecodedColumn(App.self, key: App.CodingKeys.id, App.CodingKeys.environments, AppEnvironments.self),
        DecodedColumn(Product.self, key: Product.CodingKeys.id, Product.CodingKeys.type, ProductType.self),
        DecodedColumn(Product.self, key: Product.CodingKeys.id, Product.CodingKeys.period, SubscriptionPeriod.self, optional: true),
        DecodedColumn(StoreTransaction.self, key: StoreTransaction.CodingKeys.id, StoreTransaction.CodingKeys.state, TransactionState.self),
        DecodedColumn(
            StoreTransaction.self, key: StoreTransaction.CodingKeys.id, StoreTransaction.CodingKeys.failureReason, FailureReason.self,
            optional: true),
        DecodedColumn(
            StoreTransaction.self, key: StoreTransaction.CodingKeys.id, StoreTransaction.CodingKeys.environment, StoreEnvironment.self),
        DecodedColumn(PaymentOrder.self, key: PaymentOrder.CodingKeys.id, PaymentOrder.CodingKeys.status, OrderStatus.self),
        DecodedColumn(Grant.self, key: Grant.CodingKeys.id, Grant.CodingKeys.kind, GrantKind.self),
        DecodedColumn(Grant.self, key: Grant.CodingKeys.id, Grant.CodingKeys.source, GrantSource.self),
        DecodedColumn(Subscription.self, key: Subscription.CodingKeys.id, Subscription.CodingKeys.state, SubscriptionState.self),
        DecodedColumn(RestoreRequest.self, key: RestoreRequest.CodingKeys.id, RestoreRequest.CodingKeys.status, RestoreStatus.self),
    ]

    /// The tables and columns of a store of this binary's schema, made by running the migrations on an
    /// empty store in memory once per process.
    static let expectedSchema: [(table: String, columns: [String])] = {
        do {
            let queue = try DatabaseQueue()
            try AppDatabase.migrator.migrate(queue)
            return try queue.read { try schema($0) }
        } catch {
            return []
        }
    }()

    /// A connection's tables (SQLite's own, virtual tables and their shadow tables aside: an index's
    /// inner tables are SQLite's business) and their columns, in order.
    static func schema(_ db: Database) throws -> [(table: String, columns: [String])] {
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT m.name, c.name FROM sqlite_master m JOIN pragma_table_info(m.name) c
                WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND m.sql NOT LIKE 'CREATE VIRTUAL%'
                  AND NOT EXISTS (
                    SELECT 1 FROM sqlite_master v WHERE v.type = 'table' AND v.sql LIKE 'CREATE VIRTUAL%'
                      AND m.name LIKE v.name || '\\_%' ESCAPE '\\')
                ORDER BY m.name, c.cid
                """)
        var tables: [(table: String, columns: [String])] = []
        for row in rows {
            let table: String = try row.decode(atIndex: 0), column: String = try row.decode(atIndex: 1)
            if tables.last?.table == table { tables[tables.count - 1].columns.append(column) } else { tables.append((table, [column])) }
        }
        return tables
    }

    /// Each table or column of `expectedSchema` the store lacks.
    static func schemaViolations(_ db: Database) throws -> [Violation] {
        let present = Dictionary(try schema(db).map { ($0.table, Set($0.columns)) }, uniquingKeysWith: { $1 })
        var violations: [Violation] = []
        for (table, columns) in expectedSchema {
            guard let have = present[table] else {
                violations.append(
                    Violation(kind: "schema_table_missing", subject: table, message: "table \(table) is missing (the schema was changed outside StoreDesk)"))
                continue
            }
            // A `rowid` column declared by the schema is the table's own rowid, which every rowid table has.
            for column in columns where !have.contains(column) && column != "rowid" {
                violations.append(
                    Violation(
                        kind: "schema_column_missing", subject: "\(table).\(column)",
                        message: "table \(table) has no column \(column) (the schema was changed outside StoreDesk)"))
            }
        }
        return violations
    }

    /// The schema's findings, then every decoded column holding a value its decoder refuses.
    static func decodingViolations(_ db: Database) throws -> [Violation] {
        var violations = try schemaViolations(db)
        let missing = Set(violations.map(\.subject))
        for column in decodedColumns where !missing.contains(column.table) && !missing.contains("\(column.table).\(column.column)")
            && !missing.contains("\(column.table).\(column.key)")
        {
            for row in try Row.fetchAll(db, sql: column.sql) {
                violations.append(
                    Violation(
                        kind: "value_unreadable", subject: try row.decode(String?.self, atIndex: 0) ?? "",
                        message: try row.decode(String?.self, atIndex: 1) ?? "\(column.table).\(column.column) holds a value StoreDesk cannot read"))
            }
        }
        return violations
    }

    /// Why a store must not be written, or nil: the first table or column it lacks. A write opened on
    /// such a store would commit its first steps and fail on the next (a `payment_run` row left by a
    /// `simulate` that then found no `item_grant`), so it is refused before anything is written.
    static func unwritableSchema(_ db: Database) throws -> String? {
        try schemaViolations(db).first?.message
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
