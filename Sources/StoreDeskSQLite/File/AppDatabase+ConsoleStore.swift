import GRDB
import StoreDeskCore
import StoreDeskStoreAPI

/// `AppDatabase` is the console's store: the named reads and writes of `ConsoleStore` are its own
/// methods; the lists are pagers over its keyset queries.
extension AppDatabase: ConsoleStore {
    public func commitWatcher() throws -> any CommitWatcher { try DataVersionWatcher(path: path) }

    public func storeError(for error: any Error) -> StoreError? { StoreError(failure: error, path: path) }

    public func users(matching search: UserSearch) -> any ListPager<UserRow> { UserPager(database: self, search: search) }

    public func users(matching search: UserSearch, scanning rows: Range<Int64>, limit: Int) throws -> [UserRow] {
        try reader.read { try search.page($0, from: .after(rows.lowerBound - 1), limit: limit, below: rows.upperBound) }
    }

    public func queue(_ query: QueueQuery) -> any ListPager<StoreTransaction> { QueuePager(database: self, query: query) }

    public func restores(_ query: RestoreQuery) -> any ListPager<RestoreRow> { RestorePager(database: self, query: query) }

    public func audit(_ query: AuditQuery) -> any ListPager<AuditEntry> { AuditPager(database: self, query: query) }

    public func subscriptions(_ search: SubscriptionSearch) -> any ListPager<SubscriptionListRow> {
        SubscriptionPager(database: self, search: search)
    }
}

extension DataVersionWatcher: CommitWatcher {}

/// The user list in its order (by rowid, a filter's matches always), filtered by a `UserSearch`.
struct UserPager: ListPager {
    let database: AppDatabase
    let search: UserSearch

    func cursor(of row: UserRow) -> UserCursor { search.cursor(of: row) }

    func page(_ anchor: PageAnchor<UserCursor>, limit: Int) throws -> [UserRow] {
        try database.reader.read { try search.orderedPage($0, from: anchor, limit: limit) }
    }

    func cursor(id: String) throws -> UserCursor? {
        try database.reader.read { db in
            try GRDB.Row.fetchOne(db, sql: "SELECT rowid AS sd_rowid, * FROM user WHERE id = ?", arguments: [id]).map { row in
                cursor(of: UserRow(sequence: try row.decode(forColumn: "sd_rowid"), user: try User(row: row)))
            }
        }
    }

    func count() throws -> ListCount? { try database.reader.read { try search.count(database.procedures($0)) } }

    func rowsBefore(_ row: UserRow) throws -> Int? {
        try database.reader.read { try search.rowsBefore($0, row: row) }
    }
}

/// The payment queue, newest first by purchase date, then id.
struct QueuePager: ListPager {
    let database: AppDatabase
    let query: QueueQuery

    func cursor(of row: StoreTransaction) -> QueueCursor { QueueCursor(purchaseDate: row.purchaseDate, id: row.id) }

    func page(_ anchor: PageAnchor<QueueCursor>, limit: Int) throws -> [StoreTransaction] {
        try database.reader.read { db in try ListProcedures.queuePage(database.procedures(db), query, anchor: anchor, limit: limit) }
    }

    func cursor(id: String) throws -> QueueCursor? {
        try database.reader.read { db in try ListProcedures.queueCursor(database.procedures(db), id: id) }
    }

    func count() throws -> ListCount? {
        try database.reader.read { db in try ListProcedures.queueCount(database.procedures(db), query) }
    }
}

/// The restore desk's prompts in the query's order.
struct RestorePager: ListPager {
    let database: AppDatabase
    let query: RestoreQuery

    func cursor(of row: RestoreRow) -> RestoreCursor { row.cursor }

    func page(_ anchor: PageAnchor<RestoreCursor>, limit: Int) throws -> [RestoreRow] {
        try database.restoreRows(query, anchor: anchor, limit: limit)
    }

    func cursor(id: Int64?) throws -> RestoreCursor? {
        guard let id else { return nil }
        return try database.reader.read { db in try ListProcedures.restoreCursor(database.procedures(db), id: id) }
    }

    func count() throws -> ListCount? {
        try database.reader.read { db in try ListProcedures.restoreCount(database.procedures(db), query) }
    }
}

/// The audit log, newest first.
struct AuditPager: ListPager {
    let database: AppDatabase
    let query: AuditQuery

    func cursor(of row: AuditEntry) -> KeysetCursor { KeysetCursor(time: row.at, id: row.id ?? 0) }

    func page(_ anchor: KeysetAnchor, limit: Int) throws -> [AuditEntry] {
        try database.reader.read { db in try ListProcedures.auditPage(database.procedures(db), query, anchor: anchor, limit: limit) }
    }

    func cursor(id: Int64?) throws -> KeysetCursor? {
        guard let id else { return nil }
        return try database.reader.read { db in try ListProcedures.auditCursor(database.procedures(db), id: id) }
    }

    func count() throws -> ListCount? {
        try database.reader.read { db in try ListProcedures.auditCount(database.procedures(db), query) }
    }
}

/// The subscriptions grouped by their state at the search's instant.
struct SubscriptionPager: ListPager {
    let database: AppDatabase
    let search: SubscriptionSearch

    func cursor(of row: SubscriptionListRow) -> SubscriptionSearch.Cursor { search.cursor(of: row) }

    func page(_ anchor: SubscriptionSearch.Anchor, limit: Int) throws -> [SubscriptionListRow] {
        try database.subscriptions(search, from: anchor, limit: limit)
    }

    func cursor(id: String) throws -> SubscriptionSearch.Cursor? {
        try database.reader.read { try Subscription.fetchOne($0, matching: "original_transaction_id", id) }
            .map { search.cursor(of: SubscriptionListRow(subscription: $0, userName: "")) }
    }
}
