import GRDB
import StoreDeskCore

/// The SQL of keyset paging over `(time, id)` columns (`time` any column a list sorts by, `id` what breaks
/// its ties), or over `id` alone (a sequence: the audit log; a unique key), ascending or descending.
struct Keyset {
    /// Nil when the list runs by `id` alone; the cursor's values are then only its id.
    var time: String?
    var id: String
    /// The list runs newest first.
    var descending: Bool

    /// The condition (if any) with its arguments, the ORDER BY, and whether the fetched rows must be
    /// reversed to come back in list order.
    func clause<Cursor>(_ anchor: PageAnchor<Cursor>, _ values: (Cursor) -> StatementArguments)
        -> (condition: String?, arguments: StatementArguments, order: String, reversed: Bool)
    {
        let forward = descending ? "DESC" : "ASC", backward = descending ? "ASC" : "DESC"
        let later = descending ? "<" : ">", earlier = descending ? ">" : "<"
        func order(_ direction: String) -> String {
            guard let time else { return "\(id) \(direction)" }
            return "\(time) \(direction), \(id) \(direction)"
        }
        func beyond(_ op: String, _ cursor: Cursor) -> (String, StatementArguments) {
            guard let time else { return ("\(id) \(op) ?", values(cursor)) }
            return ("(\(time), \(id)) \(op) (?, ?)", values(cursor))
        }
        switch anchor {
        case .first: return (nil, [], order(forward), false)
        case .last: return (nil, [], order(backward), true)
        case .after(let cursor):
            let (condition, arguments) = beyond(later, cursor)
            return (condition, arguments, order(forward), false)
        case .from(let cursor):
            let (condition, arguments) = beyond(later + "=", cursor)
            return (condition, arguments, order(forward), false)
        case .before(let cursor):
            let (condition, arguments) = beyond(earlier, cursor)
            return (condition, arguments, order(backward), true)
        }
    }

    /// The statement of one page of `select` (everything up to WHERE) filtered by `conditions` and the
    /// anchor, and whether its rows come back reversed.
    func statement<Cursor>(
        select: String, conditions: [(String, StatementArguments)], anchor: PageAnchor<Cursor>, limit: Int,
        values: (Cursor) -> StatementArguments
    ) -> (sql: String, arguments: StatementArguments, reversed: Bool) {
        let (condition, keyArguments, order, reversed) = clause(anchor, values)
        var parts = conditions
        if let condition { parts.append((condition, keyArguments)) }
        var arguments: StatementArguments = []
        for part in parts { arguments += part.1 }
        arguments += [limit]
        let filter = parts.isEmpty ? "" : " WHERE " + parts.map { "(" + $0.0 + ")" }.joined(separator: " AND ")
        return (select + filter + " ORDER BY \(order) LIMIT ?", arguments, reversed)
    }

    /// One page of `select` (everything up to WHERE) filtered by `conditions` and the anchor.
    func page<Record: FetchableRecord, Cursor>(
        _ db: Database, select: String, conditions: [(String, StatementArguments)], anchor: PageAnchor<Cursor>, limit: Int,
        values: (Cursor) -> StatementArguments
    ) throws -> [Record] {
        let (sql, arguments, reversed) = statement(select: select, conditions: conditions, anchor: anchor, limit: limit, values: values)
        let rows = try Record.fetchAll(db, sql: sql, arguments: arguments)
        return reversed ? rows.reversed() : rows
    }
}

extension Keyset {
    /// One page of a list keyed by `KeysetCursor` (time, then a number).
    func page<Record: FetchableRecord>(
        _ db: Database, select: String, conditions: [(String, StatementArguments)], anchor: KeysetAnchor, limit: Int
    ) throws -> [Record] {
        try page(db, select: select, conditions: conditions, anchor: anchor, limit: limit) { cursor in
            time == nil ? [cursor.id] : [cursor.time.millis, cursor.id]
        }
    }
}
