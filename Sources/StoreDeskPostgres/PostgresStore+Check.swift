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
                violations += try findings(db, kind: invariant.rawValue, rule: invariant.rawValue, sql: Self.sql(invariant))
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

/// The domain's invariants in PostgreSQL's SQL: each the SQLite store's rule, finding the same rows with
/// the same subject and message. The `switch` is exhaustive, so an invariant added to `StoreInvariant`
/// does not build until it is said here too.
extension PostgresStore {
    /// A store_meta value that is a whole number of milliseconds as SQLite would write one.
    private static let wholeNumber = "'^(0|-?[1-9][0-9]{0,17})$'"

    static func sql(_ invariant: StoreInvariant) -> String {
        switch invariant {
        case .storeClockInvalid:
            return """
                SELECT 'clock', 'store_meta clock ' || quote_literal(value) || ' \(StoreCheckRules.clockProblem)'
                FROM store_meta WHERE key = 'clock'
                  AND CASE WHEN value ~ \(wholeNumber) THEN value::bigint NOT BETWEEN 0 AND \(Instant.supported.upperBound.millis) ELSE true END
                """
        case .schemaKeyMissing:
            return """
                SELECT k.tbl, 'table ' || k.tbl || ' has no unique key on ' || k.col
                  || ': its rows can no longer be told apart (the schema was changed outside StoreDesk)'
                FROM (VALUES \(StoreCheckRules.keyColumns.map { "(\(literal($0.table)), \(literal($0.column)))" }.joined(separator: ", "))) k(tbl, col)
                WHERE to_regclass(quote_ident(k.tbl)) IS NOT NULL
                  AND NOT EXISTS (
                    SELECT 1 FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
                    WHERE i.indrelid = to_regclass(quote_ident(k.tbl)) AND i.indisunique AND i.indnkeyatts = 1
                      AND i.indpred IS NULL AND a.attname = k.col)
                """
        case .userCountDrift:
            return """
                SELECT 'user_count', 'store_meta says ' || m.value || ' users but the table holds ' || (SELECT count(*) FROM "user")
                FROM store_meta m WHERE m.key = 'user_count'
                  AND CASE WHEN m.value ~ \(wholeNumber) THEN m.value::bigint ELSE 0 END != (SELECT count(*) FROM "user")
                """
        case .orderGrantedTwice:
            return """
                SELECT order_id, 'order ' || order_id || ' was granted ' || count(*) || ' times'
                FROM item_grant GROUP BY order_id HAVING count(*) > 1
                """
        case .grantWithoutOrder:
            return """
                SELECT g.id::text, 'grant ' || g.id || ' points at order ' || g.order_id || ', which does not exist'
                FROM item_grant g LEFT JOIN payment_order o ON o.order_id = g.order_id WHERE o.order_id IS NULL
                """
        case .orderPendingWithGrant:
            return """
                SELECT o.order_id, 'order ' || o.order_id || ' (transaction ' || o.transaction_id || ') is pending but holds grant ' || g.id
                FROM payment_order o JOIN item_grant g ON g.order_id = o.order_id WHERE o.status = 'pending'
                """
        case .orderWithoutPayment:
            return """
                SELECT o.order_id, 'order ' || o.order_id || ' is for transaction ' || o.transaction_id || ', which is '
                  || t.state || ', not paid'
                FROM payment_order o JOIN store_transaction t ON t.id = o.transaction_id
                WHERE t.state NOT IN ('purchased', 'restored')
                """
        case .finishedPurchaseNotDelivered:
            return """
                SELECT t.id, 'transaction ' || t.id || ' (user ' || t.user_id || ', ' || t.product_id
                  || ') is purchased and finished but has no grant and no open restore request'
                FROM store_transaction t
                WHERE t.state = 'purchased' AND t.finished = 1
                  AND NOT EXISTS (SELECT 1 FROM payment_order o JOIN item_grant g ON g.order_id = o.order_id WHERE o.transaction_id = t.id)
                  AND NOT EXISTS (SELECT 1 FROM restore_request r WHERE r.transaction_id = t.id AND r.status = 'open')
                """
        case .acceptedCallbackGrants:
            return """
                SELECT c.order_id, 'order ' || c.order_id || ' has an accepted callback but '
                  || (SELECT count(*) FROM item_grant g WHERE g.order_id = c.order_id) || ' grants'
                FROM server_callback c WHERE c.verdict = 'accepted'
                  AND (SELECT count(*) FROM item_grant g WHERE g.order_id = c.order_id) != 1
                """
        case .orderAcceptedTwice:
            return """
                SELECT order_id, 'order ' || order_id || ' has ' || count(*) || ' accepted callbacks'
                FROM server_callback WHERE verdict = 'accepted' GROUP BY order_id HAVING count(*) > 1
                """
        case .grantWithoutAcceptedCallback:
            return """
                SELECT g.order_id, 'simulated order ' || g.order_id || ' was granted without an accepted callback'
                FROM item_grant g JOIN payment_order o ON o.order_id = g.order_id
                WHERE EXISTS (SELECT 1 FROM transaction_event e WHERE e.transaction_id = o.transaction_id)
                  AND NOT EXISTS (SELECT 1 FROM server_callback c WHERE c.order_id = g.order_id AND c.verdict = 'accepted')
                """
        case .droppedOrderGranted:
            return """
                SELECT e.transaction_id, 'transaction ' || e.transaction_id
                  || ' was dropped by a client crash but has an order or a grant without a confirmed restore'
                FROM transaction_event e
                WHERE e.kind = 'client_crashed'
                  AND EXISTS (SELECT 1 FROM payment_order o WHERE o.transaction_id = e.transaction_id)
                  AND NOT EXISTS (SELECT 1 FROM restore_request r WHERE r.transaction_id = e.transaction_id AND r.status = 'confirmed')
                """
        case .droppedOrderLost:
            return """
                SELECT e.transaction_id, 'transaction ' || e.transaction_id
                  || ' was dropped by a client crash but is no longer purchased and unfinished, and no restore was confirmed'
                FROM transaction_event e JOIN store_transaction t ON t.id = e.transaction_id
                WHERE e.kind = 'client_crashed' AND NOT (t.state = 'purchased' AND t.finished = 0)
                  AND NOT EXISTS (SELECT 1 FROM restore_request r WHERE r.transaction_id = t.id AND r.status = 'confirmed')
                """
        case .transactionRestoredTwice:
            return """
                SELECT transaction_id, 'transaction ' || transaction_id || ' has ' || count(*) || ' confirmed restores'
                FROM restore_request WHERE status = 'confirmed' GROUP BY transaction_id HAVING count(*) > 1
                UNION ALL
                SELECT o.transaction_id, 'transaction ' || o.transaction_id || ' was granted ' || count(*) || ' times by restores'
                FROM item_grant g JOIN payment_order o ON o.order_id = g.order_id
                WHERE g.source = 'restore' GROUP BY o.transaction_id HAVING count(*) > 1
                """
        case .confirmedRestoreGrants:
            return """
                SELECT r.transaction_id, 'the confirmed restore of transaction ' || r.transaction_id || ' has '
                  || (SELECT count(*) FROM payment_order o JOIN item_grant g ON g.order_id = o.order_id
                      WHERE o.transaction_id = r.transaction_id) || ' grants, not 1'
                FROM restore_request r WHERE r.status = 'confirmed'
                  AND (SELECT count(*) FROM payment_order o JOIN item_grant g ON g.order_id = o.order_id
                       WHERE o.transaction_id = r.transaction_id) != 1
                """
        case .servedSuccessWithoutGrant:
            return """
                SELECT c.order_id, 'the game server answered success to order ' || c.order_id || ' of ' || c.app_id
                  || ' but holds no grant for it'
                FROM game_server_callback c
                WHERE NOT EXISTS (SELECT 1 FROM game_server_grant g WHERE g.app_id = c.app_id AND g.order_id = c.order_id)
                UNION ALL
                SELECT g.order_id, 'the game server granted order ' || g.order_id || ' of ' || g.app_id
                  || ' from a callback it did not record as granting'
                FROM game_server_grant g JOIN game_server_callback c ON c.id = g.callback_id
                WHERE c.outcome != 'granted' OR c.order_id != g.order_id
                """
        case .eventWithoutTransaction:
            return """
                SELECT DISTINCT e.transaction_id, 'events for transaction ' || e.transaction_id || ', which does not exist'
                FROM transaction_event e
                WHERE e.kind NOT IN ('request_refused', 'purchase_refused')
                  AND NOT EXISTS (SELECT 1 FROM store_transaction t WHERE t.id = e.transaction_id)
                """
        case .subscriptionEntitledAfterRevocation:
            return """
                SELECT original_transaction_id, 'subscription ' || original_transaction_id || ' (user ' || user_id
                  || ') is ' || state || ' but was revoked on ' || \(iso("revocation_date"))
                FROM subscription WHERE state IN ('active', 'grace_period') AND revocation_date IS NOT NULL
                """
        case .subscriptionEntitledAfterExpiry:
            return """
                SELECT s.original_transaction_id, 'subscription ' || s.original_transaction_id || ' (user ' || s.user_id
                  || ') is ' || s.state || ' at the store clock ' || \(iso("c.now")) || ' but '
                  || CASE WHEN s.state = 'active' THEN 'its period ended ' || \(iso("s.expires_date"))
                     ELSE 'its grace period ended ' || \(iso("COALESCE(s.grace_period_expires_date, s.expires_date)")) END
                FROM subscription s
                  JOIN (SELECT value::bigint AS now FROM store_meta WHERE key = 'clock' AND value ~ \(wholeNumber)) c ON true
                WHERE (s.state = 'active' AND s.expires_date <= c.now)
                   OR (s.state = 'grace_period' AND COALESCE(s.grace_period_expires_date, s.expires_date) <= c.now)
                """
        case .subscriptionDatesOutOfOrder:
            return """
                SELECT original_transaction_id, 'subscription ' || original_transaction_id || ': ' || CASE
                  WHEN original_purchase_date > purchase_date THEN 'first bought ' || \(iso("original_purchase_date"))
                    || ', after its current period began ' || \(iso("purchase_date"))
                  WHEN expires_date <= purchase_date THEN 'expires ' || \(iso("expires_date"))
                    || ', not after its current period began ' || \(iso("purchase_date"))
                  WHEN grace_period_expires_date <= expires_date THEN 'its grace period ends '
                    || \(iso("grace_period_expires_date")) || ', not after the period it extends ' || \(iso("expires_date"))
                  WHEN revocation_date < purchase_date THEN 'revoked ' || \(iso("revocation_date"))
                    || ', before its current period began ' || \(iso("purchase_date"))
                  ELSE 'revoked without a revocation date' END
                FROM subscription
                WHERE original_purchase_date > purchase_date OR expires_date <= purchase_date
                   OR grace_period_expires_date <= expires_date OR revocation_date < purchase_date
                   OR (state = 'revoked' AND revocation_date IS NULL)
                """
        case .subscriptionEventWithoutSubscription:
            return """
                SELECT DISTINCT e.original_transaction_id, 'notifications for subscription ' || e.original_transaction_id
                  || ', which has no subscription row'
                FROM subscription_event e
                WHERE NOT EXISTS (SELECT 1 FROM subscription s WHERE s.original_transaction_id = e.original_transaction_id)
                  AND NOT (e.source = '\(SubscriptionEvent.Origin.support)' AND EXISTS (SELECT 1 FROM store_transaction t JOIN product p ON p.id = t.product_id
                    WHERE t.id = e.original_transaction_id AND p.type <> 'auto_renewable'))
                """
        case .stampAfterClock:
            let columns = StoreCheckRules.stampedColumns.map { column in
                "SELECT '\(column.table).\(column.column)' AS col, \(quoted(column.column)) AS stamp FROM \(quoted(column.table)), c WHERE \(quoted(column.column)) > c.now"
            }
            return """
                WITH c(now) AS (
                  SELECT max(value::bigint) FROM store_meta WHERE key IN ('clock', 'stamped_through') AND value ~ \(wholeNumber))
                SELECT s.col, s.col || ': ' || count(*) || CASE WHEN count(*) = 1 THEN ' row is' ELSE ' rows are' END
                  || ' stamped after the store''s clock ' || \(iso("c.now")) || ', the latest ' || \(iso("max(s.stamp)"))
                FROM (\(columns.joined(separator: " UNION ALL "))) s, c
                GROUP BY s.col, c.now ORDER BY s.col
                """
        }
    }

    /// SQL for a millisecond column as `2026-11-20T08:00:00Z`, as the SQLite store writes it; a value past
    /// what a date can say is shown as it is, so no message is ever empty.
    static func iso(_ column: String) -> String {
        """
        CASE WHEN (\(column)) BETWEEN -62167219200000 AND 253402300799999
          THEN to_char(to_timestamp((\(column)) / 1000) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
          ELSE coalesce((\(column))::text, 'NULL') || ' ms' END
        """
    }
}
