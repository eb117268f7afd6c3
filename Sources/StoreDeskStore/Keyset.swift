import GRDB
import StoreDeskCore

/// Where a row stands in a list ordered by a time, then an id: the cursor of keyset paging.
public struct KeysetCursor: Sendable, Hashable {
    public var time: Instant
    public var id: Int64

    public init(time: Instant, id: Int64) {
        self.time = time
        self.id = id
    }
}

/// Which page of such a list to fetch, in the list's own order. No OFFSET: every page is one seek.
public enum KeysetAnchor: Sendable, Hashable {
    case first
    case last
    /// The rows after this one.
    case after(KeysetCursor)
    /// This row and those after it (a refresh that keeps its place).
    case from(KeysetCursor)
    /// The rows before this one (the page still comes back in list order).
    case before(KeysetCursor)
}

/// The SQL of keyset paging over `(time, id)` columns, ascending or descending.
struct Keyset {
    var time: String
    var id: String
    /// The list runs newest first.
    var descending: Bool

    /// The condition (if any) with its arguments, the ORDER BY, and whether the fetched rows must be
    /// reversed to come back in list order.
    func clause(_ anchor: KeysetAnchor) -> (condition: String?, arguments: StatementArguments, order: String, reversed: Bool) {
        let forward = descending ? "DESC" : "ASC", backward = descending ? "ASC" : "DESC"
        let later = descending ? "<" : ">", earlier = descending ? ">" : "<"
        func order(_ direction: String) -> String { "\(time) \(direction), \(id) \(direction)" }
        func beyond(_ op: String, _ cursor: KeysetCursor) -> (String, StatementArguments) {
            ("(\(time), \(id)) \(op) (?, ?)", [cursor.time.millis, cursor.id])
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

    /// One page of `select` (everything up to WHERE) filtered by `conditions` and the anchor.
    func page<Record: FetchableRecord>(
        _ db: Database, select: String, conditions: [(String, StatementArguments)], anchor: KeysetAnchor, limit: Int
    ) throws -> [Record] {
        let (condition, keyArguments, order, reversed) = clause(anchor)
        var parts = conditions
        if let condition { parts.append((condition, keyArguments)) }
        var arguments: StatementArguments = []
        for part in parts { arguments += part.1 }
        arguments += [limit]
        let filter = parts.isEmpty ? "" : " WHERE " + parts.map { "(" + $0.0 + ")" }.joined(separator: " AND ")
        let rows = try Record.fetchAll(db, sql: select + filter + " ORDER BY \(order) LIMIT ?", arguments: arguments)
        return reversed ? rows.reversed() : rows
    }
}
