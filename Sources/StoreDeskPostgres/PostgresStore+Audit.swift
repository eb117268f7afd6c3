import PostgresNIO
import StoreDeskCore
import StoreDeskStoreAPI

extension PostgresStore: AuditLogStore {
    public func auditEntries(
        action: String?, actor: String?, text: String?, oldestFirst: Bool, anchor: KeysetAnchor, limit: Int
    ) throws -> [AuditEntry] {
        let query = AuditQuery(action: action, actor: actor, text: text, oldestFirst: oldestFirst)
        return try readOne { try ListProcedures.auditPage($0, query, anchor: anchor, limit: limit) }
    }
}

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
        try store.readOne { try ListProcedures.auditPage($0, query, anchor: anchor, limit: limit) }
    }

    func cursor(id: Int64?) throws -> KeysetCursor? {
        guard let id else { return nil }
        return try store.readOne { try ListProcedures.auditCursor($0, id: id) }
    }

    func count() throws -> ListCount? {
        try store.readOne { try ListProcedures.auditCount($0, query) }
    }
}
