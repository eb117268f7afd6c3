import GRDB
import StoreDeskCore
import StoreDeskStoreAPI

/// The restore desk's reads and writes on SQLite. The rules' reads and writes are written once for both
/// backends (`RestoreDeskProcedures`, over `SQLiteTransaction`); every write runs in one `BEGIN IMMEDIATE`
/// transaction: the write lock is taken before the prompt is read, so of two processes confirming one
/// prompt the second waits, then sees it confirmed and is refused. `restore_once` (one prompt per
/// transaction) and `order_on_transaction` / `grant_on_order` make a second delivery impossible even so.
extension AppDatabase {
    /// The store's side of the procedures written once, inside the caller's transaction.
    func procedures(_ db: Database) -> SQLiteTransaction { SQLiteTransaction(db: db, store: path) }

    /// A player logged in: every dropped order of their Apple IDs' players gets a prompt (once), and
    /// the open prompts come back grouped per player.
    public func recordLogin(userId: String, at now: Instant) throws -> RestoreLogin {
        try writeImmediate { db in try RestoreDeskProcedures.recordLogin(procedures(db), userId: userId, at: now) }
    }

    /// Prompts oldest first, `status` nil for all, from after `cursor` (keyset: created_at, id).
    public func restorePrompts(status: RestoreStatus?, environment: StoreEnvironment?, limit: Int, after cursor: RestoreCursor?) throws
        -> [RestorePrompt]
    {
        try reader.read { db in try RestoreDeskProcedures.prompts(procedures(db), status: status, environment: environment, limit: limit, after: cursor) }
    }

    /// One page of the desk's list in the query's order: its status (nil for all), its text found in the
    /// transaction id, the player's id or the product id.
    public func restoreRows(_ query: RestoreQuery, anchor: PageAnchor<RestoreCursor>, limit: Int) throws -> [RestoreRow] {
        try reader.read { db in try ListProcedures.restorePage(procedures(db), query, anchor: anchor, limit: limit) }
    }

    /// The prompt for one transaction, whatever its status.
    public func restorePrompt(transactionId: String) throws -> RestorePrompt? {
        try reader.read { db in try RestoreDeskProcedures.prompt(procedures(db), transactionId: transactionId) }
    }

    /// How many prompts have each status.
    public func restoreCounts() throws -> [RestoreStatus: Int] { try reader.read { try RestoreDeskProcedures.counts(procedures($0)) } }

    /// How many prompts of each status are of Sandbox purchases.
    public func sandboxRestoreCounts() throws -> [RestoreStatus: Int] {
        try reader.read { try RestoreDeskProcedures.counts(procedures($0), environment: .sandbox) }
    }

    /// Support confirms a prompt onto `target`: the order, the signed callback, the grant, the finished
    /// transaction, the events, the audit line and the confirmed prompt, in one transaction.
    /// Throws `RestoreRefusal` (nothing written) when the rules refuse.
    @discardableResult
    public func confirmRestore(transactionId: String, onto target: RestoreAccount, by staff: StaffMember, at now: Instant)
        throws -> RestorePrompt
    {
        try writeImmediate { db in
            try RestoreDeskProcedures.confirm(procedures(db), transactionId: transactionId, onto: target, by: staff, at: now)
        }
    }

    /// Support declines a prompt with a reason; audited. The transaction stays unfinished.
    @discardableResult
    public func declineRestore(transactionId: String, reason: String, by staff: StaffMember, at now: Instant) throws
        -> RestorePrompt
    {
        try writeImmediate { db in
            try RestoreDeskProcedures.decline(procedures(db), transactionId: transactionId, reason: reason, by: staff, at: now)
        }
    }

    /// Restore Purchases for one role: its Apple ID's past non-consumables and subscriptions in its app
    /// come back as `restored` and unlock without a new charge, as the app's ownership rule allows.
    public func restorePurchases(for target: RestoreAccount, appId: String? = nil, by staff: StaffMember, at now: Instant)
        throws -> RestorePurchases.Plan
    {
        try writeImmediate { db in
            try RestoreDeskProcedures.restorePurchases(procedures(db), for: target, appId: appId, by: staff, at: now)
        }
    }

    /// Audit lines newest first, one page (`ListProcedures.auditPage`).
    public func auditEntries(
        action: String? = nil, actor: String? = nil, text: String? = nil, oldestFirst: Bool = false, anchor: KeysetAnchor = .first,
        limit: Int
    ) throws -> [AuditEntry] {
        let query = AuditQuery(action: action, actor: actor, text: text, oldestFirst: oldestFirst)
        return try reader.read { db in try ListProcedures.auditPage(procedures(db), query, anchor: anchor, limit: limit) }
    }

    /// A write in one `BEGIN IMMEDIATE` transaction, refused up front on a read-only store.
    func writeImmediate<T>(_ body: (Database) throws -> T) throws -> T {
        guard !isReadOnly else { throw RestoreRefusal.readOnly }
        do {
            return try writeWithoutTransaction { db in try Self.immediate(db, body) }
        } catch let error as DatabaseError {
            throw StoreError(error, path: path)
        }
    }

    /// `writeImmediate`, awaited: GRDB's async access runs it on the writer's queue, and the caller's
    /// thread (the cooperative pool's, in `serve`) goes on meanwhile. A task cancelled before the write
    /// begins, or during it, writes nothing (GRDB interrupts it and the transaction rolls back).
    func writeImmediate<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        guard !isReadOnly else { throw RestoreRefusal.readOnly }
        do {
            return try await writeWithoutTransaction { db in try Self.immediate(db, body) }
        } catch let error as DatabaseError {
            throw StoreError(error, path: path)
        }
    }

    private static func immediate<T>(_ db: Database, _ body: (Database) throws -> T) throws -> T {
        try db.execute(sql: "BEGIN IMMEDIATE")
        do {
            let value = try body(db)
            try db.execute(sql: "COMMIT")
            return value
        } catch {
            if db.isInsideTransaction { try? db.execute(sql: "ROLLBACK") }
            throw error
        }
    }
}
