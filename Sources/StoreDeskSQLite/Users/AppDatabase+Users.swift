import Foundation
import GRDB
import StoreDeskCore
import StoreDeskStoreAPI

extension AppDatabase {
    public func user(id: String) throws -> User? {
        try reader.read { db in try PlayerProcedures.user(procedures(db), id: id) }
    }

    public func profile(userId: String, recent: Int = 10) throws -> UserProfile {
        try reader.read { db in try PlayerProcedures.profile(procedures(db), userId: userId, recent: recent) }
    }

    /// Users matching `text` in id, name, friendly name or the last four digits of the phone, in list
    /// order, at most `limit`.
    public func searchUsers(_ text: String, limit: Int) throws -> [User] {
        try reader.read { db in try UserSearch(text: text).page(db, from: .first, limit: limit).map(\.user) }
    }
}

extension UserSearch {
    /// One page of matches. `below` limits a table scan to rowids under it (a slice of the table).
    public func page(_ db: Database, from anchor: Anchor, limit: Int, below: Int64? = nil) throws -> [UserRow] {
        var bound = ""
        var boundArgs: StatementArguments = []
        var descending = false
        switch anchor {
        case .first: break
        case .last: descending = true
        case .after(let rowid): bound = "rowid > ?"; boundArgs = [rowid]
        case .from(let rowid): bound = "rowid >= ?"; boundArgs = [rowid]
        case .before(let rowid): bound = "rowid < ?"; boundArgs = [rowid]; descending = true
        }
        let order = descending ? "DESC" : "ASC"
        var sql: String
        var arguments: StatementArguments = []
        if text.isEmpty {
            sql = "SELECT rowid AS sd_rowid FROM user" + (bound.isEmpty ? "" : " WHERE " + bound)
            arguments += boundArgs
        } else if usesFullTextIndex {
            sql = "SELECT rowid AS sd_rowid FROM user_search WHERE user_search MATCH ?" + (bound.isEmpty ? "" : " AND " + bound)
            arguments += [ftsPhrase]
            arguments += boundArgs
            if isPhoneSuffix {
                sql = "SELECT sd_rowid FROM (" + sql + " UNION SELECT rowid FROM user WHERE substr(phone, -4) = ?"
                    + (bound.isEmpty ? "" : " AND " + bound) + ")"
                arguments += [text]
                arguments += boundArgs
            }
        } else {
            sql = "SELECT rowid AS sd_rowid FROM user WHERE (id LIKE ?1 ESCAPE '\\' OR name LIKE ?1 ESCAPE '\\' OR friendly_name LIKE ?1 ESCAPE '\\')"
            arguments += [likePattern]
            if !bound.isEmpty {
                sql += " AND " + bound.replacingOccurrences(of: "?", with: "?2")
                arguments += boundArgs
            }
            if let below {
                sql += " AND rowid < ?3"
                if bound.isEmpty { arguments += [DatabaseValue.null] }
                arguments += [below]
            }
        }
        sql = "SELECT u.rowid AS sd_rowid, u.* FROM (" + sql + " ORDER BY sd_rowid \(order) LIMIT \(max(0, limit))) m JOIN user u ON u.rowid = m.sd_rowid ORDER BY u.rowid"
        return try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
            UserRow(sequence: try row.decode(forColumn: "sd_rowid"), user: try User(row: row))
        }
    }
}

extension AppDatabase {
    /// The user's place in the list (its rowid), for jumping to it.
    public func userRowid(id: String) throws -> Int64? {
        try reader.read { try Int64.fetchOne($0, sql: "SELECT rowid FROM user WHERE id = ?", arguments: [id]) }
    }

    public func apps() throws -> [App] {
        try reader.read { try App.fetchAll($0, sql: "SELECT * FROM app ORDER BY id") }
    }

    /// A support member saw a user's phone number in the clear: the audit line that says so. Refused for
    /// any other role.
    public func recordPhoneReveal(userId: String, by staff: StaffMember, at now: Instant, surface: String, reason: String) throws {
        try recordAudit(try AuditEntry.phoneReveal(userId: userId, by: staff, at: now, surface: surface, reason: reason))
    }

    /// Writes one audit line in its own transaction.
    public func recordAudit(_ entry: AuditEntry) throws {
        try write { db in try Self.insert(entry, db) }
    }

    /// An audit line in the caller's transaction, stamped on the store's clock.
    static func insert(_ entry: AuditEntry, _ db: Database) throws {
        var entry = entry
        entry.at = try StoreMeta.stamp(entry.at, in: db)
        try entry.insert(db)
    }
}

extension AppDatabase {
    /// The largest rowid in the user list, for slicing a scan.
    public func lastUserSequence() throws -> Int64 {
        try reader.read { try Int64.fetchOne($0, sql: "SELECT MAX(rowid) FROM user") ?? 0 }
    }
}

extension UserSearch {
    /// One page of the list in its order (`effectiveOrder`, `effectiveDescending`), every page one seek: the
    /// order players came into the store (a filter's matches always) through `page(_:from:limit:)`
    /// (backwards by swapping the anchors); a column's order as a keyset on (its column, rowid) over that
    /// column's index.
    func orderedPage(_ db: Database, from anchor: PageAnchor<UserCursor>, limit: Int) throws -> [UserRow] {
        guard let key = effectiveOrder.keySQL else {
            guard effectiveDescending else {
                let rowid: PageAnchor<Int64> =
                    switch anchor {
                    case .first: .first
                    case .last: .last
                    case .after(let c): .after(c.sequence)
                    case .from(let c): .from(c.sequence)
                    case .before(let c): .before(c.sequence)
                    }
                return try page(db, from: rowid, limit: limit)
            }
            // Newest first: the same pages read from the other end.
            let reversed: PageAnchor<Int64> =
                switch anchor {
                case .first: .last
                case .last: .first
                case .after(let c): .before(c.sequence)
                case .from(let c): .before(c.sequence + 1)
                case .before(let c): .after(c.sequence)
                }
            return try page(db, from: reversed, limit: limit).reversed()
        }
        let (sql, reversed) = StoreKeyset(key: key, tie: "rowid", descending: effectiveDescending).page(
            select: "SELECT rowid AS sd_rowid, * FROM user", conditions: [], anchor: anchor, limit: limit
        ) { [order == .created ? .integer($0.created) : .text($0.key), .integer($0.sequence)] }
        let (text, values) = sql.rendered(.sqlite)
        let rows = try Row.fetchAll(db, sql: text, arguments: SQLiteTransaction.arguments(values))
            .map { row in UserRow(sequence: try row.decode(forColumn: "sd_rowid"), user: try User(row: row)) }
        return reversed ? rows.reversed() : rows
    }
}

/// A filter's text in SQLite's own syntaxes, which stay on this side of the seam.
extension UserSearch {
    /// A LIKE pattern holding the text anywhere, its `\`, `%` and `_` escaped (`ESCAPE '\'`).
    var likePattern: String { StoreSQL.likePattern(containing: text) }

    /// An FTS5 string literal: the whole text as one phrase.
    var ftsPhrase: String { "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
}
