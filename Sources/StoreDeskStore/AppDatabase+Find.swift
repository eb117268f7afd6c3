import Foundation
import GRDB
import StoreDeskCore

extension AppDatabase {
    /// The indexes `find` seeks on that the schema lacked: game accounts by Sid, Role_Id and role name,
    /// transactions by the app's order id, notifications by their web order line item id (inside the
    /// stored JSON, so an expression index). A whole phone number seeks on `user_on_phone_last4`.
    static let findIndexes = """
        CREATE INDEX game_account_on_sid ON game_account(sid, role_id);
        CREATE INDEX game_account_on_role_id ON game_account(role_id);
        CREATE INDEX game_account_on_role_name ON game_account(role_name);
        CREATE INDEX transaction_on_app_order ON store_transaction(app_order_id);
        CREATE INDEX subscription_event_on_web_order_line_item ON subscription_event(
            json_extract(payload, '$.data.transactionInfo.webOrderLineItemId'));
        """

    /// The JSON path of a notification's web order line item id, as `findIndexes` indexes it.
    static let webOrderLineItem = "json_extract(e.payload, '$.data.transactionInfo.webOrderLineItemId')"

    public func find(_ query: FindQuery) throws -> [FindResult] {
        try reader.read { db in try FindPlan(query).run(db) }
    }
}

/// One `find`: every lookup it makes, in the order results are shown.
///
/// A process that looks up one id spent most of its `find` preparing statements: thirty of them, each
/// joining the player and reading a dozen columns. So the lookups are first probed together, as one
/// compound statement of `EXISTS` seeks on each lookup's own table (exact matches, then prefixes), and
/// only the lookups that found something are run whole, usually one or two.
struct FindPlan {
    /// One field looked up: the result columns, the tables (the looked-up one first, then the joins to
    /// its player), and the column compared.
    struct Lookup {
        var kind: FindKind
        var field: FindField
        var columns: String
        var tables: String
        var column: String
        /// Extra condition, for a lookup that must not repeat another (a transaction by its original id).
        var also: String = ""
        /// Whether a prefix of the text is looked up too. Not for a transaction by its original id: most
        /// transactions are their own original, so a prefix range would walk past all of them to find the
        /// few renewals (2.6 s for `20000000` on 3,000,000 transactions); the subscription's own lookup
        /// finds a chain by the prefix of its original id.
        var prefix: Bool = true
    }

    /// One lookup, exact or by prefix, as `run` makes it.
    struct Arm {
        var kind: FindKind
        var field: FindField
        var match: FindMatch
        var columns: String
        var tables: String
        /// The WHERE clause, on the looked-up table alone, and its arguments.
        var condition: String
        var arguments: StatementArguments
        /// " ORDER BY column" for a prefix range (rows in the index's order), else empty.
        var order = ""
        var limit: Int

        /// The looked-up table, without the joins (what the probe seeks in).
        var table: String { tables.components(separatedBy: " JOIN ").first ?? tables }

        /// The whole lookup: its rows, with their players.
        var statement: (String, StatementArguments) {
            (columns + "FROM " + tables + " WHERE " + condition + order + " LIMIT ?", arguments + [limit])
        }

        /// Whether it finds anything: one seek on the looked-up table's index.
        var probe: (String, StatementArguments) { ("EXISTS (SELECT 1 FROM \(table) WHERE \(condition))", arguments) }
    }

    let query: FindQuery

    init(_ query: FindQuery) { self.query = query }

    /// The player's columns every lookup ends with, joined on `u`.
    static func select(
        _ matched: String, transaction: String = "NULL", original: String = "NULL", order: String = "NULL",
        restore: String = "NULL", notification: String = "NULL", account: String = "NULL"
    ) -> String {
        "SELECT \(matched) AS matched, u.id AS user_id, u.name AS name, u.friendly_name AS friendly_name, "
            + "\(transaction) AS transaction_id, \(original) AS original_transaction_id, \(order) AS order_id, "
            + "\(restore) AS restore_id, \(notification) AS notification_uuid, \(account) AS account, "
            + "(SELECT finished FROM store_transaction WHERE id = \(transaction)) AS finished "
    }

    static let account = "g.app_id || ' ' || g.sid || '/' || g.role_id"

    static let orderOf = "(SELECT order_id FROM payment_order WHERE transaction_id = t.id)"

    static func player(_ field: FindField, _ column: String) -> Lookup {
        Lookup(kind: .player, field: field, columns: select(column), tables: "user u", column: column)
    }

    static func gameAccount(_ field: FindField, _ column: String) -> Lookup {
        Lookup(
            kind: .gameAccount, field: field, columns: select(column, account: account),
            tables: "game_account g JOIN user u ON u.id = g.user_id", column: column)
    }

    static func transaction(_ field: FindField, _ column: String, also: String = "", prefix: Bool = true) -> Lookup {
        Lookup(
            kind: .transaction, field: field,
            columns: select(column, transaction: "t.id", original: "t.original_transaction_id", order: orderOf),
            tables: "store_transaction t JOIN user u ON u.id = t.user_id", column: column, also: also, prefix: prefix)
    }

    static func notification(_ field: FindField, _ column: String) -> Lookup {
        Lookup(
            kind: .notification, field: field,
            columns: select(column, original: "e.original_transaction_id", notification: "e.notification_uuid"),
            tables: "subscription_event e JOIN subscription s ON s.original_transaction_id = e.original_transaction_id "
                + "JOIN user u ON u.id = s.user_id", column: column)
    }

    /// Text lookups, exact then prefix: each an index seek or a range on one index.
    static let textLookups: [Lookup] = [
        player(.playerId, "u.id"), player(.name, "u.name"), player(.friendlyName, "u.friendly_name"),
        gameAccount(.appleId, "g.apple_id"), gameAccount(.roleId, "g.role_id"), gameAccount(.roleName, "g.role_name"),
        gameAccount(.sid, "g.sid"),
        transaction(.transactionId, "t.id"),
        Lookup(
            kind: .order, field: .orderId, columns: select("o.order_id", transaction: "o.transaction_id", order: "o.order_id"),
            tables: "payment_order o JOIN user u ON u.id = o.user_id", column: "o.order_id"),
        transaction(.appOrderId, "t.app_order_id"),
        Lookup(
            kind: .subscription, field: .originalTransactionId,
            columns: select("s.original_transaction_id", original: "s.original_transaction_id"),
            tables: "subscription s JOIN user u ON u.id = s.user_id", column: "s.original_transaction_id"),
        transaction(.originalTransactionId, "t.original_transaction_id", also: " AND t.id <> t.original_transaction_id", prefix: false),
        Lookup(
            kind: .restorePrompt, field: .transactionId,
            columns: select("r.transaction_id", transaction: "r.transaction_id", restore: "r.id"),
            tables: "restore_request r JOIN user u ON u.id = r.user_id", column: "r.transaction_id"),
        notification(.notificationUUID, "e.notification_uuid"),
        notification(.webOrderLineItemId, AppDatabase.webOrderLineItem),
    ]

    /// Fields whose prefix is worth a range: ids a ticket may give cut short, and names. (A Sid is a
    /// short server name: its prefix would list a whole server.)
    static let prefixFields: Set<FindField> = [
        .playerId, .name, .friendlyName, .appleId, .roleId, .roleName, .transactionId, .orderId, .appOrderId,
        .originalTransactionId, .notificationUUID, .webOrderLineItemId,
    ]

    /// The upper bound of a prefix range: every text starting with `prefix` sorts below it.
    static func upperBound(_ prefix: String) -> String { prefix + "\u{10FFFF}" }

    /// One lookup, exact or by prefix.
    func arm(_ lookup: Lookup, _ match: FindMatch) -> Arm {
        var arm = Arm(
            kind: lookup.kind, field: lookup.field, match: match, columns: lookup.columns, tables: lookup.tables,
            condition: "\(lookup.column) = ?\(lookup.also)", arguments: [query.text], limit: query.limit)
        if match == .prefix {
            arm.condition = "\(lookup.column) > ? AND \(lookup.column) < ?\(lookup.also)"
            arm.arguments = [query.text, Self.upperBound(query.text)]
            arm.order = " ORDER BY \(lookup.column)"
        }
        return arm
    }

    /// Every lookup `run` may make, each whole, for the query-plan tests.
    func statements() -> [(String, StatementArguments)] {
        (exactArms() + prefixArms()).map(\.statement)
    }

    /// The digits of a phone number as a ticket may write it (`138 0000 0000`, `+86 138-0000-0000`).
    var phoneDigits: String? {
        var digits = query.text.filter { !" -()".contains($0) }
        if digits.hasPrefix("+86") { digits.removeFirst(3) } else if digits.hasPrefix("0086") { digits.removeFirst(4) }
        guard digits.count >= 7, digits.count <= 15, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return digits
    }

    var isLastFour: Bool { query.text.count == 4 && query.text.allSatisfy { $0.isASCII && $0.isNumber } }

    /// The exact lookups, in the order their results are shown: every text field by its index, the
    /// phone number (whole, then its last four), a restore prompt by its number.
    ///
    /// A whole number seeks on the last-four index and compares the rest (`+u.phone`: as a plain
    /// `u.phone = ?`, SQLite would put the number into `substr` and miss the index).
    func exactArms() -> [Arm] {
        var arms = Self.textLookups.map { arm($0, .exact) }
        func phone(_ field: FindField, _ condition: String, _ arguments: StatementArguments) -> Arm {
            Arm(
                kind: .player, field: field, match: .exact, columns: Self.select("u.phone"), tables: "user u",
                condition: condition, arguments: arguments, limit: query.limit)
        }
        if let digits = phoneDigits {
            arms.append(phone(.phone, "substr(phone, -4) = ? AND +u.phone = ?", [String(digits.suffix(4)), digits]))
        }
        if isLastFour { arms.append(phone(.phoneLast4, "substr(phone, -4) = ?", [query.text])) }
        if let number = Int64(query.text), number > 0 {
            arms.append(
                Arm(
                    kind: .restorePrompt, field: .restorePromptId, match: .exact,
                    columns: Self.select("CAST(r.id AS TEXT)", transaction: "r.transaction_id", restore: "r.id"),
                    tables: "restore_request r JOIN user u ON u.id = r.user_id", condition: "r.id = ?", arguments: [number],
                    limit: query.limit))
        }
        return arms
    }

    /// The prefix lookups (a range on each index), when the text allows them.
    func prefixArms() -> [Arm] {
        guard query.allowsPrefix else { return [] }
        return Self.textLookups.filter(\.isPrefixed).map { arm($0, .prefix) }
    }

    /// Which of `arms` find anything, in one statement: a row of flags, each an `EXISTS` seek.
    static func probe(_ arms: [Arm]) -> (String, StatementArguments) {
        var arguments = StatementArguments()
        let probes: [String] = arms.map { arm in
            let (sql, probeArguments) = arm.probe
            arguments += probeArguments
            return sql
        }
        return ("SELECT " + probes.joined(separator: ", "), arguments)
    }

    /// Names holding the text anywhere, through the trigram index (three characters or more).
    static let containsSQL = select("u.name")
        + "FROM user u WHERE u.rowid IN (SELECT rowid FROM user_search WHERE user_search MATCH ?) ORDER BY u.rowid LIMIT ?"

    func run(_ db: Database) throws -> [FindResult] {
        var results: [FindResult] = []
        var seen: Set<String> = []
        func add(_ kind: FindKind, _ field: FindField, _ match: FindMatch, _ sql: String, _ arguments: StatementArguments) throws {
            for row in try Row.fetchAll(db, sql: sql, arguments: arguments) {
                guard results.count < query.limit else { return }
                guard let result = try Self.result(row, kind: kind, field: field, match: match, text: query.text) else { continue }
                if seen.insert(Self.identity(result)).inserted { results.append(result) }
            }
        }
        // Exact matches first, each field by its index; then, unless the text was an id found exactly,
        // prefixes and names containing the text. A ticket's id found exactly is what was asked for
        // (every other field it matches exactly is listed too): ids that merely start with it are other
        // things, and the trigram index, which holds every player id, reads long lists for a string of
        // digits (3.8 ms for a 16-digit transaction id on 1,000,000 players, against 0.02 ms for the id).
        var foundAnId = false
        for arms in [exactArms(), prefixArms()] where !arms.isEmpty && !foundAnId {
            let (sql, arguments) = Self.probe(arms)
            guard let found = try Row.fetchOne(db, sql: sql, arguments: arguments) else { continue }
            for (index, arm) in arms.enumerated() where found[index] as Bool {
                let (sql, arguments) = arm.statement
                try add(arm.kind, arm.field, arm.match, sql, arguments)
            }
            foundAnId = results.contains { $0.match == .exact && !$0.field.isName }
        }
        let search = UserSearch(text: query.text)
        if search.usesFullTextIndex, !foundAnId, results.count < query.limit {
            try add(.player, .name, .contains, Self.containsSQL, [search.ftsPhrase, query.limit])
        }
        return results
    }

    /// What a row says, typed; nil for a name match that was in neither name (the trigram index also
    /// holds the id, which the id lookups already cover).
    static func result(_ row: Row, kind: FindKind, field: FindField, match: FindMatch, text: String) throws -> FindResult? {
        var field = field
        var matched: String = try row.decode(forColumn: "matched")
        let name: String = try row.decode(forColumn: "name"), friendly: String = try row.decode(forColumn: "friendly_name")
        if match == .contains {
            let needle = text.lowercased()
            if name.lowercased().contains(needle) {
                field = .name
            } else if friendly.lowercased().contains(needle) {
                (field, matched) = (.friendlyName, friendly)
            } else {
                return nil
            }
        }
        if field == .phone || field == .phoneLast4 { matched = Masking.phone(matched) }
        return FindResult(
            kind: kind, field: field, match: match, matched: matched, userId: try row.decode(forColumn: "user_id"),
            userName: friendly.isEmpty ? name : friendly, transactionId: try row.decode(forColumn: "transaction_id"),
            originalTransactionId: try row.decode(forColumn: "original_transaction_id"), orderId: try row.decode(forColumn: "order_id"),
            restorePromptId: try row.decode(forColumn: "restore_id"), notificationUUID: try row.decode(forColumn: "notification_uuid"),
            gameAccount: try row.decode(forColumn: "account"), transactionFinished: try row.decode(forColumn: "finished"))
    }

    /// The thing a result names, so a thing found by several fields is listed once, by its best match.
    static func identity(_ r: FindResult) -> String {
        switch r.kind {
        case .player: "p " + r.userId
        case .gameAccount: "g " + (r.gameAccount ?? "")
        case .transaction: "t " + (r.transactionId ?? "")
        case .order: "o " + (r.orderId ?? "")
        case .subscription: "s " + (r.originalTransactionId ?? "")
        case .notification: "n " + (r.notificationUUID ?? "")
        case .restorePrompt: "r " + String(r.restorePromptId ?? 0)
        }
    }
}

extension FindPlan.Lookup {
    /// Looked up by the text's prefix too (a range on its index).
    var isPrefixed: Bool { prefix && FindPlan.prefixFields.contains(field) }
}
