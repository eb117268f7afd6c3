import PostgresNIO
import StoreDeskCore
import StoreDeskStoreAPI

/// A statement built in pieces, its values bound as `$1, $2, …` (never spliced into the text).
struct SQLBuilder {
    var text = ""
    var binds = PostgresBindings()

    init(_ text: String = "") { self.text = text }

    /// Binds `value` and returns its placeholder.
    mutating func bind<Value: PostgresDynamicTypeEncodable>(_ value: Value) -> String {
        binds.append(value)
        return "$\(binds.count)"
    }

    mutating func append(_ more: String) { text += more }

    var query: PostgresQuery { PostgresQuery(unsafeSQL: text, binds: binds) }

    /// A statement written with `?` placeholders (the plans both backends share), numbered `$1, $2, …`.
    static func query(_ sql: String, _ arguments: [FindValue]) -> PostgresQuery {
        var builder = SQLBuilder()
        var values = arguments.makeIterator()
        for character in sql {
            if character == "?", let value = values.next() {
                switch value {
                case .text(let text): builder.append(builder.bind(text))
                case .integer(let number): builder.append(builder.bind(number))
                }
            } else {
                builder.append(String(character))
            }
        }
        return builder.query
    }
}

extension PostgresStore: UserStore {
    public func userCount() throws -> Int {
        let text = try session.rows("SELECT value FROM store_meta WHERE key = 'user_count'").first?.decode(String.self)
        return text.flatMap { Int($0) } ?? 0
    }

    public func users(matching search: UserSearch) -> any ListPager<UserRow> { PostgresUserPager(store: self, search: search) }

    public func users(matching search: UserSearch, scanning rows: Range<Int64>, limit: Int) throws -> [UserRow] {
        try userPage(search, from: .after(rows.lowerBound - 1), limit: limit, below: rows.upperBound)
    }

    public func lastUserSequence() throws -> Int64 {
        try session.rows(#"SELECT coalesce(max(seq), 0) FROM "user""#).first?.decode(Int64.self) ?? 0
    }

    public func profile(userId: String, recent: Int) throws -> UserProfile {
        try session.transaction(readOnly: true) { db in try PlayerProcedures.profile(procedures(db), userId: userId, recent: recent) }
    }

    public func recordPhoneReveal(userId: String, by staff: StaffMember, at now: Instant, surface: String, reason: String) throws {
        try recordAudit(try AuditEntry.phoneReveal(userId: userId, by: staff, at: now, surface: surface, reason: reason))
    }

    /// One page of a filter's matches in creation order; `below` bounds a scan's slice.
    func userPage(_ search: UserSearch, from anchor: PageAnchor<Int64>, limit: Int, below: Int64? = nil) throws -> [UserRow] {
        var conditions: [StoreSQL] = []
        if !search.text.isEmpty {
            let folded = StoreSQL.likePattern(containing: search.text.lowercased())
            let phone: StoreSQL = search.isPhoneSuffix ? " OR right(phone, 4) = \(search.text)" : ""
            conditions.append("lower(id) LIKE \(folded) OR lower(name) LIKE \(folded) OR lower(friendly_name) LIKE \(folded)\(phone)")
        }
        if let below { conditions.append("seq < \(below)") }
        return try readOne { db in
            let (sql, reversed) = StoreKeyset(key: nil, tie: "seq", descending: false).page(
                select: #"SELECT * FROM "user""#, conditions: conditions, anchor: anchor, limit: limit) { [.integer($0)] }
            let rows = try db.rows(sql).map { UserRow(sequence: try $0.int("seq"), user: try $0.user()) }
            return reversed ? rows.reversed() : rows
        }
    }

    /// One page in the list's order: the order players came into the store (`seq`, either way; a
    /// filter's matches always), or a keyset on (its order's column, seq) over that column's index.
    func orderedUserPage(_ search: UserSearch, from anchor: PageAnchor<UserCursor>, limit: Int) throws -> [UserRow] {
        guard let key = search.effectiveOrder.keySQL else {
            let rowid: PageAnchor<Int64>
            if search.effectiveDescending {
                switch anchor {
                case .first: rowid = .last
                case .last: rowid = .first
                case .after(let c): rowid = .before(c.sequence)
                case .from(let c): rowid = .before(c.sequence + 1)
                case .before(let c): rowid = .after(c.sequence)
                }
                return try userPage(search, from: rowid, limit: limit).reversed()
            }
            switch anchor {
            case .first: rowid = .first
            case .last: rowid = .last
            case .after(let c): rowid = .after(c.sequence)
            case .from(let c): rowid = .from(c.sequence)
            case .before(let c): rowid = .before(c.sequence)
            }
            return try userPage(search, from: rowid, limit: limit)
        }
        return try readOne { db in
            let (sql, reversed) = StoreKeyset(key: key, tie: "seq", descending: search.effectiveDescending).page(
                select: #"SELECT * FROM "user""#, conditions: [], anchor: anchor, limit: limit
            ) { [search.order == .created ? .integer($0.created) : .text($0.key), .integer($0.sequence)] }
            let rows = try db.rows(sql).map { UserRow(sequence: try $0.int("seq"), user: try $0.user()) }
            return reversed ? rows.reversed() : rows
        }
    }
}

/// The user list on PostgreSQL, by creation order (`seq`) or a keyset on id or name.
struct PostgresUserPager: ListPager {
    let store: PostgresStore
    let search: UserSearch

    func cursor(of row: UserRow) -> UserCursor { search.cursor(of: row) }

    func page(_ anchor: PageAnchor<UserCursor>, limit: Int) throws -> [UserRow] {
        try store.orderedUserPage(search, from: anchor, limit: limit)
    }

    func cursor(id: String) throws -> UserCursor? {
        guard let row = try store.session.rows(#"SELECT * FROM "user" WHERE id = \#(id)"#).first else { return nil }
        let cells = store.cells(row)
        return cursor(of: UserRow(sequence: try cells.int("seq"), user: try cells.user()))
    }

    func count() throws -> ListCount? {
        guard !search.text.isEmpty else { return .exact(try store.userCount()) }
        return nil
    }
}
