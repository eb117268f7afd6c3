import StoreDeskCore

/// A value a `find` statement binds.
public enum FindValue: Sendable, Hashable {
    case text(String)
    case integer(Int64)
}

/// Where the backends' SQL differs in `find`'s statements.
public struct FindDialect: Sendable {
    /// The players' table as a statement names it.
    public var user: String
    /// The players' creation order, of `u`.
    public var userKey: String
    /// The phone's last four digits (what the last-four index holds), of `u`'s `phone`.
    public var lastFour: String
    /// The whole phone compared after the last-four seek (written so the planner keeps the seek).
    public var wholePhone: String
    /// A notification's web order line item id in its stored JSON, of `e`'s `payload`.
    public var webOrderLineItem: String
    /// The rest of the statement after the player's columns that finds names holding the text (its
    /// `FROM`, condition, order and limit), and its arguments.
    public var contains: @Sendable (UserSearch, Int) -> (String, [FindValue])

    public init(
        user: String, userKey: String, lastFour: String, wholePhone: String, webOrderLineItem: String,
        contains: @escaping @Sendable (UserSearch, Int) -> (String, [FindValue])
    ) {
        self.user = user
        self.userKey = userKey
        self.lastFour = lastFour
        self.wholePhone = wholePhone
        self.webOrderLineItem = webOrderLineItem
        self.contains = contains
    }
}

/// One row a `find` statement returns: the columns `FindPlan.select` names.
public struct FindRow: Sendable, Hashable {
    public var matched: String
    public var userId: String
    public var name: String
    public var friendlyName: String
    public var transactionId: String?
    public var originalTransactionId: String?
    public var orderId: String?
    public var restoreId: Int64?
    public var notificationUUID: String?
    public var account: String?
    public var finished: Bool?

    public init(
        matched: String, userId: String, name: String, friendlyName: String, transactionId: String?, originalTransactionId: String?,
        orderId: String?, restoreId: Int64?, notificationUUID: String?, account: String?, finished: Bool?
    ) {
        self.matched = matched
        self.userId = userId
        self.name = name
        self.friendlyName = friendlyName
        self.transactionId = transactionId
        self.originalTransactionId = originalTransactionId
        self.orderId = orderId
        self.restoreId = restoreId
        self.notificationUUID = notificationUUID
        self.account = account
        self.finished = finished
    }
}

/// A backend running a `FindPlan`'s statements (`?` placeholders, in order) inside one read.
public protocol FindRows {
    /// The one row of flags a probe returns.
    func flags(_ sql: String, _ arguments: [FindValue]) throws -> [Bool]
    func rows(_ sql: String, _ arguments: [FindValue]) throws -> [FindRow]
}

/// One `find`: every lookup it makes, in the order results are shown. The plan is every backend's; its SQL
/// differs only where the backends' SQL does (`FindDialect`), and a backend runs it (`FindRows`).
///
/// A process that looks up one id spent most of its `find` preparing statements: thirty of them, each
/// joining the player and reading a dozen columns. So the lookups are first probed together, as one
/// compound statement of `EXISTS` seeks on each lookup's own table (exact matches, then prefixes), and
/// only the lookups that found something are run whole, usually one or two.
public struct FindPlan: Sendable {
    /// One field looked up: the result columns, the tables (the looked-up one first, then the joins to
    /// its player), and the column compared.
    struct Lookup: Sendable {
        var kind: FindKind
        var field: FindField
        var columns: String
        var tables: String
        var column: String
        /// The looked-up table's own key: rows with the same value come in its order on every backend.
        var tie: String
        /// Extra condition, for a lookup that must not repeat another (a transaction by its original id).
        var also: String = ""
        /// The exact condition (one `?`) when it is not `column = ?`: a restore prompt by another id of its
        /// purchase, through that id's own index.
        var exact: String?
        /// Whether a prefix of the text is looked up too. Not for a transaction by its original id: most
        /// transactions are their own original, so a prefix range would walk past all of them to find the
        /// few renewals (2.6 s for `20000000` on 3,000,000 transactions); the subscription's own lookup
        /// finds a chain by the prefix of its original id.
        var prefix: Bool = true
    }

    /// One lookup, exact or by prefix, as `run` makes it.
    public struct Arm: Sendable {
        var kind: FindKind
        var field: FindField
        var match: FindMatch
        var columns: String
        var tables: String
        /// The WHERE clause, on the looked-up table alone, and its arguments.
        var condition: String
        var arguments: [FindValue]
        /// " ORDER BY column, key" for a prefix range, " ORDER BY key" for an exact match: the index's own
        /// order, so the same on every backend and no sort.
        var order = ""
        var limit: Int

        /// The looked-up table, without the joins (what the probe seeks in).
        var table: String { tables.components(separatedBy: " JOIN ").first ?? tables }

        /// The whole lookup: its rows, with their players.
        public var statement: (String, [FindValue]) {
            (columns + "FROM " + tables + " WHERE " + condition + order + " LIMIT ?", arguments + [.integer(Int64(limit))])
        }

        /// Whether it finds anything: one seek on the looked-up table's index.
        var probe: (String, [FindValue]) { ("EXISTS (SELECT 1 FROM \(table) WHERE \(condition))", arguments) }
    }

    let query: FindQuery
    let dialect: FindDialect
    let textLookups: [Lookup]

    public init(_ query: FindQuery, _ dialect: FindDialect) {
        self.query = query
        self.dialect = dialect
        textLookups = Self.textLookups(dialect)
    }

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

    /// Text lookups, exact then prefix: each an index seek or a range on one index.
    static func textLookups(_ dialect: FindDialect) -> [Lookup] {
        let user = dialect.user
        func player(_ field: FindField, _ column: String) -> Lookup {
            Lookup(kind: .player, field: field, columns: select(column), tables: "\(user) u", column: column, tie: dialect.userKey)
        }
        func gameAccount(_ field: FindField, _ column: String) -> Lookup {
            Lookup(
                kind: .gameAccount, field: field, columns: select(column, account: account),
                tables: "game_account g JOIN \(user) u ON u.id = g.user_id", column: column, tie: "g.id")
        }
        func transaction(_ field: FindField, _ column: String, also: String = "", prefix: Bool = true) -> Lookup {
            Lookup(
                kind: .transaction, field: field,
                columns: select(column, transaction: "t.id", original: "t.original_transaction_id", order: orderOf),
                tables: "store_transaction t JOIN \(user) u ON u.id = t.user_id", column: column, tie: "t.id", also: also, prefix: prefix)
        }
        // A restore prompt is about a purchase, so every id of the purchase names it: the transaction's own
        // (the lookup below), the game's order id and the platform's, each through its own index.
        func restorePrompt(_ field: FindField, matched: String, through purchase: String) -> Lookup {
            Lookup(
                kind: .restorePrompt, field: field, columns: select(matched, transaction: "r.transaction_id", restore: "r.id"),
                tables: "restore_request r JOIN \(user) u ON u.id = r.user_id", column: "r.transaction_id", tie: "r.id",
                exact: "r.transaction_id IN (\(purchase) = ?)", prefix: false)
        }
        func notification(_ field: FindField, _ column: String) -> Lookup {
            Lookup(
                kind: .notification, field: field,
                columns: select(column, original: "e.original_transaction_id", notification: "e.notification_uuid"),
                tables: "subscription_event e JOIN subscription s ON s.original_transaction_id = e.original_transaction_id "
                    + "JOIN \(user) u ON u.id = s.user_id", column: column, tie: "e.id")
        }
        return [
        player(.playerId, "u.id"), player(.name, "u.name"), player(.friendlyName, "u.friendly_name"),
        gameAccount(.appleId, "g.apple_id"), gameAccount(.roleId, "g.role_id"), gameAccount(.roleName, "g.role_name"),
        gameAccount(.sid, "g.sid"),
        transaction(.transactionId, "t.id"),
        Lookup(
            kind: .order, field: .orderId, columns: select("o.order_id", transaction: "o.transaction_id", order: "o.order_id"),
            tables: "payment_order o JOIN \(user) u ON u.id = o.user_id", column: "o.order_id", tie: "o.order_id"),
        transaction(.appOrderId, "t.app_order_id"),
        Lookup(
            kind: .subscription, field: .originalTransactionId,
            columns: select("s.original_transaction_id", original: "s.original_transaction_id"),
            tables: "subscription s JOIN \(user) u ON u.id = s.user_id", column: "s.original_transaction_id",
            tie: "s.original_transaction_id"),
        transaction(.originalTransactionId, "t.original_transaction_id", also: " AND t.id <> t.original_transaction_id", prefix: false),
        Lookup(
            kind: .restorePrompt, field: .transactionId,
            columns: select("r.transaction_id", transaction: "r.transaction_id", restore: "r.id"),
            tables: "restore_request r JOIN \(user) u ON u.id = r.user_id", column: "r.transaction_id", tie: "r.id"),
        restorePrompt(
            .appOrderId, matched: "(SELECT t.app_order_id FROM store_transaction t WHERE t.id = r.transaction_id)",
            through: "SELECT t.id FROM store_transaction t WHERE t.app_order_id"),
        restorePrompt(
            .orderId, matched: "(SELECT o.order_id FROM payment_order o WHERE o.transaction_id = r.transaction_id)",
            through: "SELECT o.transaction_id FROM payment_order o WHERE o.order_id"),
        notification(.notificationUUID, "e.notification_uuid"),
        notification(.webOrderLineItemId, dialect.webOrderLineItem),
        ]
    }

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
            condition: (lookup.exact ?? "\(lookup.column) = ?") + lookup.also, arguments: [.text(query.text)],
            order: lookup.tie == lookup.column ? "" : " ORDER BY \(lookup.tie)", limit: query.limit)
        if match == .prefix {
            arm.condition = "\(lookup.column) > ? AND \(lookup.column) < ?\(lookup.also)"
            arm.arguments = [.text(query.text), .text(Self.upperBound(query.text))]
            arm.order = lookup.tie == lookup.column ? " ORDER BY \(lookup.column)" : " ORDER BY \(lookup.column), \(lookup.tie)"
        }
        return arm
    }

    /// Every lookup `run` may make, each whole, for the query-plan tests.
    public func statements() -> [(String, [FindValue])] {
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
    /// A whole number seeks on the last-four index and compares the rest (`dialect.wholePhone`).
    public func exactArms() -> [Arm] {
        var arms = textLookups.map { arm($0, .exact) }
        func phone(_ field: FindField, _ condition: String, _ arguments: [FindValue]) -> Arm {
            Arm(
                kind: .player, field: field, match: .exact, columns: Self.select("u.phone"), tables: "\(dialect.user) u",
                condition: condition, arguments: arguments, order: " ORDER BY \(dialect.userKey)", limit: query.limit)
        }
        if let digits = phoneDigits {
            arms.append(
                phone(.phone, "\(dialect.lastFour) = ? AND \(dialect.wholePhone) = ?", [.text(String(digits.suffix(4))), .text(digits)]))
        }
        if isLastFour { arms.append(phone(.phoneLast4, "\(dialect.lastFour) = ?", [.text(query.text)])) }
        if let number = Int64(query.text), number > 0 {
            arms.append(
                Arm(
                    kind: .restorePrompt, field: .restorePromptId, match: .exact,
                    columns: Self.select("CAST(r.id AS TEXT)", transaction: "r.transaction_id", restore: "r.id"),
                    tables: "restore_request r JOIN \(dialect.user) u ON u.id = r.user_id", condition: "r.id = ?",
                    arguments: [.integer(number)],
                    limit: query.limit))
        }
        // The order id Apple prints on a receipt: made from the transaction id and turned back into it
        // (`AppleOrderId`), so the lookup is the transaction's own key. Its characters are letters and
        // digits only, so it is shown as a literal.
        if let transactionId = AppleOrderId.transactionId(of: query.text) {
            let order = AppleOrderId.of(transactionId: transactionId)
            arms.append(
                Arm(
                    kind: .transaction, field: .appleOrderId, match: .exact,
                    columns: Self.select("'\(order)'", transaction: "t.id", original: "t.original_transaction_id", order: Self.orderOf),
                    tables: "store_transaction t JOIN \(dialect.user) u ON u.id = t.user_id", condition: "t.id = ?",
                    arguments: [.text(transactionId)], limit: query.limit))
            arms.append(
                Arm(
                    kind: .restorePrompt, field: .appleOrderId, match: .exact,
                    columns: Self.select("'\(order)'", transaction: "r.transaction_id", restore: "r.id"),
                    tables: "restore_request r JOIN \(dialect.user) u ON u.id = r.user_id", condition: "r.transaction_id = ?",
                    arguments: [.text(transactionId)], limit: query.limit))
        }
        return arms
    }

    /// The prefix lookups (a range on each index), when the text allows them.
    public func prefixArms() -> [Arm] {
        guard query.allowsPrefix else { return [] }
        return textLookups.filter(\.isPrefixed).map { arm($0, .prefix) }
    }

    /// Which of `arms` find anything, in one statement: a row of flags, each an `EXISTS` seek.
    public static func probe(_ arms: [Arm]) -> (String, [FindValue]) {
        var arguments: [FindValue] = []
        let probes: [String] = arms.map { arm in
            let (sql, probeArguments) = arm.probe
            arguments += probeArguments
            return sql
        }
        return ("SELECT " + probes.joined(separator: ", "), arguments)
    }

    /// Runs the plan on a backend's rows.
    public func run(on store: some FindRows) throws -> [FindResult] {
        var results: [FindResult] = []
        var seen: Set<String> = []
        func add(_ kind: FindKind, _ field: FindField, _ match: FindMatch, _ sql: String, _ arguments: [FindValue]) throws {
            for row in try store.rows(sql, arguments) {
                guard results.count < query.limit else { return }
                guard let result = Self.result(row, kind: kind, field: field, match: match, text: query.text) else { continue }
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
            let found = try store.flags(sql, arguments)
            for (index, arm) in arms.enumerated() where index < found.count && found[index] {
                let (sql, arguments) = arm.statement
                try add(arm.kind, arm.field, arm.match, sql, arguments)
            }
            foundAnId = results.contains { $0.match == .exact && !$0.field.isName }
        }
        let search = UserSearch(text: query.text)
        if search.usesFullTextIndex, !foundAnId, results.count < query.limit {
            let (sql, arguments) = dialect.contains(search, query.limit)
            try add(.player, .name, .contains, Self.select("u.name") + sql, arguments)
        }
        return results
    }

    /// What a row says, typed; nil for a name match that was in neither name (the trigram index also
    /// holds the id, which the id lookups already cover).
    static func result(_ row: FindRow, kind: FindKind, field: FindField, match: FindMatch, text: String) -> FindResult? {
        var field = field
        var matched = row.matched
        let name = row.name, friendly = row.friendlyName
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
            kind: kind, field: field, match: match, matched: matched, userId: row.userId,
            userName: friendly.isEmpty ? name : friendly, transactionId: row.transactionId,
            originalTransactionId: row.originalTransactionId, orderId: row.orderId, restorePromptId: row.restoreId,
            notificationUUID: row.notificationUUID, gameAccount: row.account, transactionFinished: row.finished)
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
