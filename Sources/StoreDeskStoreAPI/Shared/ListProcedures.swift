import StoreDeskCore

/// Keyset paging over `(key, tie)` columns, or over `tie` alone, both backends': a page after, from or
/// before a row's cursor, either way, each over the index its columns lead; never OFFSET.
public struct StoreKeyset: Sendable {
    /// Nil when the list runs by `tie` alone; the cursor's values are then only the tie's.
    public var key: String?
    public var tie: String
    /// The list runs newest (largest) first.
    public var descending: Bool

    public init(key: String?, tie: String, descending: Bool) {
        (self.key, self.tie, self.descending) = (key, tie, descending)
    }

    /// One page of `select` (everything up to WHERE) filtered by `conditions` and the anchor, and whether its
    /// rows come back reversed (a page before a cursor is read backward). `values` are the cursor's columns'
    /// values: `[key, tie]`, or `[tie]`.
    public func page<Cursor>(
        select: StoreSQL, conditions: [StoreSQL], anchor: PageAnchor<Cursor>, limit: Int, values: (Cursor) -> [StoreValue]
    ) -> (sql: StoreSQL, reversed: Bool) {
        let forward = descending ? "DESC" : "ASC", backward = descending ? "ASC" : "DESC"
        let later = descending ? "<" : ">", earlier = descending ? ">" : "<"
        func order(_ direction: String) -> String { key.map { "\($0) \(direction), \(tie) \(direction)" } ?? "\(tie) \(direction)" }
        func beyond(_ op: String, _ cursor: Cursor) -> StoreSQL {
            let v = values(cursor)
            guard let key else { return "\(sql: tie) \(sql: op) \(v[0])" }
            return "(\(sql: key), \(sql: tie)) \(sql: op) (\(v[0]), \(v[1]))"
        }
        var conditions = conditions
        let (direction, reversed): (String, Bool)
        switch anchor {
        case .first: (direction, reversed) = (forward, false)
        case .last: (direction, reversed) = (backward, true)
        case .after(let cursor): (conditions, direction, reversed) = (conditions + [beyond(later, cursor)], forward, false)
        case .from(let cursor): (conditions, direction, reversed) = (conditions + [beyond(later + "=", cursor)], forward, false)
        case .before(let cursor): (conditions, direction, reversed) = (conditions + [beyond(earlier, cursor)], backward, true)
        }
        let filter: StoreSQL = StoreSQL.joined(conditions, separator: " AND ").map { " WHERE \($0)" } ?? ""
        return ("\(select)\(filter) ORDER BY \(sql: order(direction)) LIMIT \(Int64(max(0, limit)))", reversed)
    }
}

/// The console's lists of unfinished transactions, audit lines and restore prompts, one page at a time, and
/// the filters their counts use: both backends' SQL, written once.
public enum ListProcedures {
    // MARK: The payment queue

    /// The queue's filter: unfinished transactions, by state, player, environment, product (part of its id)
    /// and text (part of the transaction's, the player's or the product's id), case ignored.
    public static func queueConditions(_ query: QueueQuery) -> [StoreSQL] {
        let filter = queueFilter(query)
        return filter.indexed + filter.scanned
    }

    /// The queue's filter split as `count` takes it: what the indexes answer (unfinished, state, player), and
    /// the tests they do not.
    static func queueFilter(_ query: QueueQuery) -> (indexed: [StoreSQL], scanned: [StoreSQL]) {
        var indexed: [StoreSQL] = ["finished = 0"], scanned: [StoreSQL] = []
        if let state = query.state { indexed.append("state = \(state)") }
        if let userId = query.userId { indexed.append("user_id = \(userId)") }
        if let environment = query.environment { scanned.append("environment = \(environment)") }
        if let product = query.product {
            scanned.append("product_id\(.likeIgnoringCase)\(StoreSQL.likePattern(containing: product)) ESCAPE '\\'")
        }
        if let text = query.text {
            let pattern = StoreSQL.likePattern(containing: text)
            scanned.append(
                """
                id\(.likeIgnoringCase)\(pattern) ESCAPE '\\' OR user_id\(.likeIgnoringCase)\(pattern) ESCAPE '\\'
                  OR product_id\(.likeIgnoringCase)\(pattern) ESCAPE '\\'
                """)
        }
        return (indexed, scanned)
    }

    /// How many transactions the queue's list holds (`count`).
    public static func queueCount(_ db: some StoreSQLTransaction, _ query: QueueQuery) throws -> ListCount {
        let filter = queueFilter(query)
        return try count(db, from: "store_transaction", indexed: filter.indexed, scanned: filter.scanned)
    }

    /// One page of the queue, newest first by purchase date (then id) unless asked otherwise.
    public static func queuePage(_ db: some StoreSQLTransaction, _ query: QueueQuery, anchor: PageAnchor<QueueCursor>, limit: Int)
        throws -> [StoreTransaction]
    {
        let (sql, reversed) = StoreKeyset(key: "purchase_date", tie: "id", descending: !query.oldestFirst).page(
            select: "SELECT * FROM store_transaction", conditions: queueConditions(query), anchor: anchor, limit: limit
        ) { [.integer($0.purchaseDate.millis), .text($0.id)] }
        let rows = try db.rows(sql).map { try $0.transaction() }
        return reversed ? rows.reversed() : rows
    }

    public static func queueCursor(_ db: some StoreSQLTransaction, id: String) throws -> QueueCursor? {
        try db.row("SELECT * FROM store_transaction WHERE id = \(id)").map {
            let row = try $0.transaction()
            return QueueCursor(purchaseDate: row.purchaseDate, id: row.id)
        }
    }

    // MARK: The audit log

    /// The audit log's filter: an action exactly or as a family (`restore` matches `restore.confirm`), an
    /// actor exactly, text anywhere in the actor, action, subject or detail, case ignored.
    public static func auditConditions(_ query: AuditQuery) -> [StoreSQL] {
        let filter = auditFilter(query)
        return filter.indexed + filter.scanned
    }

    /// The audit log's filter split as `count` takes it: action and actor on their indexes, the text a test.
    static func auditFilter(_ query: AuditQuery) -> (indexed: [StoreSQL], scanned: [StoreSQL]) {
        var indexed: [StoreSQL] = [], scanned: [StoreSQL] = []
        if let action = query.action { indexed.append("action >= \(action) AND action < \(action + "/")") }
        if let actor = query.actor { indexed.append("actor = \(actor)") }
        if let text = query.text, !text.isEmpty {
            scanned.append("\(.findText)(lower(actor || ' ' || action || ' ' || subject || ' ' || detail), lower(\(text))) > 0")
        }
        return (indexed, scanned)
    }

    /// How many lines the audit log's list holds (`count`).
    public static func auditCount(_ db: some StoreSQLTransaction, _ query: AuditQuery) throws -> ListCount {
        let filter = auditFilter(query)
        return try count(db, from: "audit_log", indexed: filter.indexed, scanned: filter.scanned)
    }

    /// One page of audit lines, newest first unless asked otherwise: by `id` alone, the store-wide sequence of
    /// audit lines, which cannot tie or go back, whatever instant each line was stamped at.
    public static func auditPage(_ db: some StoreSQLTransaction, _ query: AuditQuery, anchor: KeysetAnchor, limit: Int) throws
        -> [AuditEntry]
    {
        let (sql, reversed) = StoreKeyset(key: nil, tie: "id", descending: !query.oldestFirst).page(
            select: "SELECT * FROM audit_log", conditions: auditConditions(query), anchor: anchor, limit: limit
        ) { [.integer($0.id)] }
        let rows = try db.rows(sql).map { try $0.auditEntry() }
        return reversed ? rows.reversed() : rows
    }

    public static func auditCursor(_ db: some StoreSQLTransaction, id: Int64) throws -> KeysetCursor? {
        try db.row("SELECT * FROM audit_log WHERE id = \(id)").map {
            let entry = try $0.auditEntry()
            return KeysetCursor(time: entry.at, id: entry.id ?? 0)
        }
    }

    // MARK: The restore desk

    /// The prompts and their transactions, as the desk's list reads them (`r`, `t`).
    public static let restoreJoin = "restore_request r JOIN store_transaction t ON t.id = r.transaction_id"

    /// The desk's filter: a status, the environment the purchase was made in, text (as typed) in the
    /// transaction id, the player's id or the product id.
    public static func restoreConditions(_ query: RestoreQuery) -> [StoreSQL] {
        var conditions: [StoreSQL] = []
        if let status = query.status { conditions.append("r.status = \(status)") }
        if !query.text.isEmpty { conditions.append(restoreText(query.text)) }
        if let environment = query.environment { conditions.append("t.environment = \(environment)") }
        return conditions
    }

    /// How many prompts the desk's list holds (`count`): the status on its index, the purchase's environment
    /// by the transaction's primary key, the text a test.
    public static func restoreCount(_ db: some StoreSQLTransaction, _ query: RestoreQuery) throws -> ListCount {
        var indexed: [StoreSQL] = query.status.map { ["r.status = \($0)"] } ?? []
        if let environment = query.environment {
            indexed.append("(SELECT environment FROM store_transaction WHERE id = r.transaction_id) = \(environment)")
        }
        let scanned = query.text.isEmpty ? [] : [restoreText(query.text)]
        return try count(db, from: "restore_request", as: "r", indexed: indexed, scanned: scanned)
    }

    public static func restoreText(_ text: String) -> StoreSQL {
        "\(.findText)(r.transaction_id || ' ' || r.user_id || ' ' || r.product_id, \(text)) > 0"
    }

    /// The statement of one page of the desk's list: each order a keyset over its index (`(created_at, id)`,
    /// `(user_id, id)`, the transaction id, each led by the status when the query has one), either way.
    public static func restoreStatement(_ query: RestoreQuery, anchor: PageAnchor<RestoreCursor>, limit: Int) -> (sql: StoreSQL, reversed: Bool) {
        let keyset: StoreKeyset, values: (RestoreCursor) -> [StoreValue]
        switch query.order {
        case .prompted: (keyset, values) = (StoreKeyset(key: "r.created_at", tie: "r.id", descending: query.descending), { [.integer($0.createdAt.millis), .integer($0.id)] })
        case .player: (keyset, values) = (StoreKeyset(key: "r.user_id", tie: "r.id", descending: query.descending), { [.text($0.userId), .integer($0.id)] })
        case .transaction: (keyset, values) = (StoreKeyset(key: nil, tie: "r.transaction_id", descending: query.descending), { [.text($0.transactionId)] })
        }
        return keyset.page(
            select: "SELECT r.*, t.app_id AS sd_app_id, t.environment AS sd_environment FROM \(sql: restoreJoin)",
            conditions: restoreConditions(query), anchor: anchor, limit: limit, values: values)
    }

    public static func restorePage(_ db: some StoreSQLTransaction, _ query: RestoreQuery, anchor: PageAnchor<RestoreCursor>, limit: Int)
        throws -> [RestoreRow]
    {
        let (sql, reversed) = restoreStatement(query, anchor: anchor, limit: limit)
        let rows = try db.rows(sql).map { row in
            RestoreRow(
                request: try row.restoreRequest(), appId: try row.text("sd_app_id"),
                environment: StoreEnvironment(rawValue: try row.text("sd_environment")) ?? .production)
        }
        return reversed ? rows.reversed() : rows
    }

    public static func restoreCursor(_ db: some StoreSQLTransaction, id: Int64) throws -> RestoreCursor? {
        try db.row("SELECT * FROM restore_request WHERE id = \(id)").map { RestoreRow(request: try $0.restoreRequest(), appId: "").cursor }
    }

    // MARK: Counts

    /// The most rows an indexed count goes to.
    public static let countBound = 100_000
    /// The most rows a test no index answers is tried on: about 10 ms of LIKE over three columns on SQLite.
    /// A count is one slice of deferred work, and a key that arrives meanwhile waits for it (50,000 made
    /// slices of 27 ms, past the Users filter scan's own 12 ms budget).
    public static let scanBound = 20_000

    /// How many rows a list holds, never at the cost of reading a big table whole: the count a pager's
    /// `count()` gives its list title ("12 of 20,120"). Conditions an index answers (`indexed`) are counted
    /// up to `bound` matches (a COUNT over an index range, its work bounded by the bound). Tests no index
    /// answers (`scanned`: a text filter) are tried on at most `scanBound` rows of what the indexed
    /// conditions select: exact when they select fewer, else "at least" what the rows tried held.
    public static func count(
        _ db: some StoreSQLTransaction, from table: String, as alias: String? = nil, indexed: [StoreSQL], scanned: [StoreSQL] = [],
        bound: Int = countBound, scanBound: Int = scanBound
    ) throws -> ListCount {
        func all(_ parts: [StoreSQL]) -> StoreSQL? { StoreSQL.joined(parts.map { "(\($0))" }, separator: " AND ") }
        func number(_ sql: StoreSQL) throws -> Int { Int(try db.row(sql)?.int("n") ?? 0) }
        let source = table + (alias.map { " " + $0 } ?? "")
        let filter: StoreSQL = all(indexed).map { " WHERE \($0)" } ?? ""
        guard let test = all(scanned) else {
            return .bounded(try number("SELECT count(*) AS n FROM (SELECT 1 FROM \(sql: source)\(filter) LIMIT \(Int64(bound))) bounded"), bound: bound)
        }
        let candidates = try number("SELECT count(*) AS n FROM (SELECT 1 FROM \(sql: source)\(filter) LIMIT \(Int64(scanBound))) bounded")
        let n = try number(
            "SELECT count(*) AS n FROM (SELECT * FROM \(sql: source)\(filter) LIMIT \(Int64(scanBound))) \(sql: alias ?? table) WHERE \(test)")
        return candidates < scanBound ? .exact(n) : .atLeast(n)
    }
}
