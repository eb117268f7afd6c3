import GRDB
import StoreDeskCore

extension UserSearch {
    /// How many users match: the counter the triggers keep when unfiltered, the full-text index's matches
    /// (bounded), or a bounded scan for short text (`ListProcedures.count`).
    func count(_ transaction: SQLiteTransaction) throws -> ListCount {
        let db = transaction.db
        if text.isEmpty { return .exact(try StoreMeta.get(.userCount, in: db).flatMap { Int($0) } ?? 0) }
        if usesFullTextIndex {
            var sql = "SELECT rowid FROM user_search WHERE user_search MATCH ?"
            var arguments: StatementArguments = [ftsPhrase]
            if isPhoneSuffix {
                sql += " UNION SELECT rowid FROM user WHERE substr(phone, -4) = ?"
                arguments += [text]
            }
            let bound = ListProcedures.countBound
            let n = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM (\(sql) LIMIT \(bound))", arguments: arguments) ?? 0
            return .bounded(n, bound: bound)
        }
        return try ListProcedures.count(
            transaction, from: "user", indexed: [],
            scanned: ["id LIKE \(likePattern) ESCAPE '\\' OR name LIKE \(likePattern) ESCAPE '\\' OR friendly_name LIKE \(likePattern) ESCAPE '\\'"])
    }

    /// How many users come before `row` in the unfiltered list, in its order: in the order players came
    /// into the store, its rowid less one while the rowids run without gaps (a seeded store, no user
    /// deleted), else a COUNT over the rowid range; in a column's order, a COUNT over that column's index up
    /// to `ListProcedures.countBound` (nil past it). Newest first, the users after it. Nil for a filter's list.
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
        let bound = ListProcedures.countBound
        let n = try Int.fetchOne(
            db,
            sql: """
                SELECT COUNT(*) FROM (SELECT 1 FROM user WHERE (\(key), rowid) \(descending ? ">" : "<") (?, ?) LIMIT \(bound + 1))
                """,
            arguments: [value, row.sequence]) ?? 0
        return n > bound ? nil : n
    }
}
