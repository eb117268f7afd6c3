import GRDB
import StoreDeskCore

/// How many rows a list holds, never at the cost of reading a big table whole: the count a pager's
/// `count()` gives its list title ("12 of 20,120").
///
/// Conditions an index answers are counted up to `bound` matches (a COUNT over an index range, its work
/// bounded by the bound). A condition no index answers (a text filter matched with LIKE or `instr`) is
/// tested on at most `scanBound` rows of what the indexed conditions select: exact when they select fewer,
/// else "at least" what the rows tested held.
enum ListCounting {
    static let bound = 100_000
    /// About 10 ms of LIKE over three columns: the count is one slice of deferred work, and a key that
    /// arrives meanwhile waits for it (50,000 made slices of 27 ms, past the filter scan's own 12 ms budget).
    static let scanBound = 20_000

    static func count(
        _ db: Database, from table: String, alias: String? = nil, indexed: [(String, StatementArguments)],
        scanned: [(String, StatementArguments)] = [], bound: Int = bound, scanBound: Int = scanBound
    ) throws -> ListCount {
        func clause(_ parts: [(String, StatementArguments)]) -> (String, StatementArguments) {
            var arguments: StatementArguments = []
            for part in parts { arguments += part.1 }
            return (parts.isEmpty ? "" : " WHERE " + parts.map { "(" + $0.0 + ")" }.joined(separator: " AND "), arguments)
        }
        let source = table + (alias.map { " " + $0 } ?? "")
        let (filter, arguments) = clause(indexed)
        guard !scanned.isEmpty else {
            let n = try Int.fetchOne(
                db, sql: "SELECT COUNT(*) FROM (SELECT 1 FROM \(source)\(filter) LIMIT \(bound))", arguments: arguments) ?? 0
            return .bounded(n, bound: bound)
        }
        let candidates = try Int.fetchOne(
            db, sql: "SELECT COUNT(*) FROM (SELECT 1 FROM \(source)\(filter) LIMIT \(scanBound))", arguments: arguments) ?? 0
        let (test, testArguments) = clause(scanned)
        var all = arguments
        all += testArguments
        let n = try Int.fetchOne(
            db, sql: "SELECT COUNT(*) FROM (SELECT * FROM \(source)\(filter) LIMIT \(scanBound)) \(alias ?? table)\(test)",
            arguments: all) ?? 0
        return candidates < scanBound ? .exact(n) : .atLeast(n)
    }
}

extension UserSearch {
    /// How many users match: the counter the triggers keep when unfiltered, the full-text index's matches
    /// (bounded), or a bounded scan for short text.
    func count(_ db: Database) throws -> ListCount {
        if text.isEmpty { return .exact(try StoreMeta.get(.userCount, in: db).flatMap { Int($0) } ?? 0) }
        if usesFullTextIndex {
            var sql = "SELECT rowid FROM user_search WHERE user_search MATCH ?"
            var arguments: StatementArguments = [ftsPhrase]
            if isPhoneSuffix {
                sql += " UNION SELECT rowid FROM user WHERE substr(phone, -4) = ?"
                arguments += [text]
            }
            let bound = ListCounting.bound
            let n = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM (\(sql) LIMIT \(bound))", arguments: arguments) ?? 0
            return .bounded(n, bound: bound)
        }
        return try ListCounting.count(
            db, from: "user", indexed: [],
            scanned: [("id LIKE ? ESCAPE '\\' OR name LIKE ? ESCAPE '\\' OR friendly_name LIKE ? ESCAPE '\\'", [likePattern, likePattern, likePattern])])
    }

    /// How many users come before `row` in the unfiltered list, in its order: in the order players came
    /// into the store, its rowid less one while the rowids run without gaps (a seeded store, no user
    /// deleted), else a COUNT over the rowid range; in a column's order, a COUNT over that column's index up
    /// to `ListCounting.bound` (nil past it). Newest first, the users after it. Nil for a filter's list.
    func rowsBefore(_ db: Database, row: UserRow) throws -> Int? {
        guard text.isEmpty else { return nil }
        guard let key = order.keySQL else {
            let rowid = row.sequence
            let count = try StoreMeta.get(.userCount, in: db).flatMap { Int($0) } ?? 0
            let last = try Int64.fetchOne(db, sql: "SELECT MAX(rowid) FROM user") ?? 0
            if last == Int64(count) { return Int(effectiveDescending ? Int64(count) - rowid : rowid - 1) }
            return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM user WHERE rowid \(effectiveDescending ? ">" : "<") ?", arguments: [rowid])
        }
        let cursor = cursor(of: row)
        let value: any DatabaseValueConvertible = order == .created ? cursor.created : cursor.key
        let bound = ListCounting.bound
        let n = try Int.fetchOne(
            db,
            sql: """
                SELECT COUNT(*) FROM (SELECT 1 FROM user WHERE (\(key), rowid) \(descending ? ">" : "<") (?, ?) LIMIT \(bound + 1))
                """,
            arguments: [value, row.sequence]) ?? 0
        return n > bound ? nil : n
    }
}
