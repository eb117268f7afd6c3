import PostgresNIO
import StoreDeskCore
import StoreDeskStoreAPI

extension PostgresStore: AuditStore {
    public func audit(_ query: AuditQuery) -> any ListPager<AuditEntry> { PostgresAuditPager(store: self, query: query) }

    public func recordAudit(_ entry: AuditEntry) throws {
        try write { db in try stamped(entry, db) }
    }

    /// An audit line in the caller's transaction, stamped on the store's clock.
    func stamped(_ entry: AuditEntry, _ db: PostgresSession.Transaction) throws {
        var entry = entry
        entry.at = try stamp(entry.at, in: db)
        try insert(entry, db)
    }
}

/// The audit log on PostgreSQL: by its sequence, newest first unless asked otherwise.
struct PostgresAuditPager: ListPager {
    let store: PostgresStore
    let query: AuditQuery

    func cursor(of row: AuditEntry) -> KeysetCursor { KeysetCursor(time: row.at, id: row.id ?? 0) }

    func page(_ anchor: KeysetAnchor, limit: Int) throws -> [AuditEntry] {
        var sql = SQLBuilder("SELECT * FROM audit_log WHERE true")
        filter(&sql)
        let keyset = PostgresKeyset(key: nil, tie: "id", descending: !query.oldestFirst)
        let (order, reversed) = keyset.clause(anchor, into: &sql, joiner: "AND") { cursor, sql in [sql.bind(cursor.id)] }
        sql.append(" ORDER BY \(order) LIMIT \(sql.bind(Int64(max(0, limit))))")
        let rows = try store.session.rows(sql.query).map { try store.cells($0).auditEntry() }
        return reversed ? rows.reversed() : rows
    }

    func cursor(id: Int64?) throws -> KeysetCursor? {
        guard let id else { return nil }
        return try store.session.rows("SELECT * FROM audit_log WHERE id = \(id)").first.map { cursor(of: try store.cells($0).auditEntry()) }
    }

    func count() throws -> ListCount? {
        var sql = SQLBuilder("SELECT count(*) FROM (SELECT 1 FROM audit_log WHERE true")
        filter(&sql)
        sql.append(" LIMIT \(Self.countBound)) bounded")
        let count = try store.session.rows(sql.query).first?.decode(Int64.self) ?? 0
        return .bounded(Int(count), bound: Self.countBound)
    }

    static let countBound = 100_000

    /// The query's conditions: an action or its family, an actor, text anywhere (ignoring case).
    private func filter(_ sql: inout SQLBuilder) {
        if let action = query.action {
            sql.append(" AND action >= \(sql.bind(action)) AND action < \(sql.bind(action + "/"))")
        }
        if let actor = query.actor { sql.append(" AND actor = \(sql.bind(actor))") }
        if let text = query.text, !text.isEmpty {
            sql.append(" AND strpos(lower(actor || ' ' || action || ' ' || subject || ' ' || detail), lower(\(sql.bind(text)))) > 0")
        }
    }
}
