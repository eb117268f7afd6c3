import StoreDeskCore

/// The little a write or read written once for both backends needs of the store's transaction: statements
/// (`StoreSQL`, rendered in the backend's dialect) and the few writes each backend does its own way (the
/// payment rows' writer, the time line's stamp, the restore desk's block of order numbers). Each backend
/// gives one over its own transaction (GRDB's `Database`, a PostgreSQL session's); the procedures that
/// take it (`RestoreDeskProcedures`, …) hold the rules' order of reads and writes, once.
public protocol StoreSQLTransaction {
    var dialect: StoreSQL.Dialect { get }
    /// The store's name, for errors.
    var store: String { get }
    /// The rows a statement returns (a `SELECT`, or a write with `RETURNING`).
    func rows(_ sql: StoreSQL) throws -> [any StoreColumns]
    /// Runs a statement that returns no rows; how many rows it changed.
    @discardableResult
    func execute(_ sql: StoreSQL) throws -> Int

    /// The instant a write asked for at `now` is stamped at: never before the store's clock or its latest
    /// stamp (the time line runs forward), and the time line reaches it.
    func stamp(_ now: Instant) throws -> Instant
    /// The store's instant at wall clock `wall`: its clock when it keeps one, else `wall` (never before its
    /// latest stamp). Moves nothing.
    func now(wall: Instant) throws -> Instant
    /// A payment step's rows and events (the transaction, order, callback, grant and events it carries).
    func write(_ change: PaymentChange) throws
    func insert(_ event: PaymentEvent) throws
    func insert(_ entry: AuditEntry) throws
    /// Notifications taken in as an import takes them, by the backend's importer (owners found, the rows
    /// folded again), stamped at `now`, each line's fate in the report.
    func importNotifications(_ lines: SubscriptionEventLines, source: String, at now: Instant) throws -> NotificationImport.Report
    /// Keeps what the store knew of a chain without notifications before a write moves its row (its past,
    /// as baseline rows), once.
    func recordBaseline(chain: String, at now: Instant) throws

    /// Whether the payment run `run` is gone (its process died, or it ended): its work may be taken over.
    func runIsGone(_ run: Int64, now: Instant) throws -> Bool
    /// The restore desk's order numbers, with room for `count` more: its newest block, or a new one.
    func restoreDeskNumbers(needing count: Int, now: Instant) throws -> OrderNumbers
    /// Keeps how many of the block's numbers are issued.
    func save(_ numbers: OrderNumbers) throws
    /// Makes the writes that name the same key wait for one another until their transactions end, across
    /// processes and machines (PostgreSQL's transaction-level advisory lock; SQLite's `BEGIN IMMEDIATE`
    /// already runs one write at a time).
    func serialize(_ key: SerialKey) throws
    /// Takes a lock that the key's other holders hold shared, alone, if no one holds it now; false (and
    /// nothing taken) when someone does. SQLite's writer is alone already: always true.
    func tryHoldAlone(_ key: SerialKey) throws -> Bool
}

/// What writes that must not run side by side have in common.
public enum SerialKey: Sendable, Hashable {
    /// Restore Purchases for one Apple ID: the second reads what the first wrote.
    case restorePurchases(appleId: String)
    /// The notification log: every writer holds it shared from before it takes an id, so its holder alone
    /// knows every id up to the log's end is final.
    case eventLog
    /// The one-click login simulator: one a store, its steps one after the other.
    case oneTap
}

extension StoreSQLTransaction {
    /// The first row a statement returns, if any.
    public func row(_ sql: StoreSQL) throws -> (any StoreColumns)? { try rows(sql).first }

    /// Whether a statement returns a row.
    public func exists(_ sql: StoreSQL) throws -> Bool { try !rows(sql).isEmpty }

    /// The first column of each row, as text.
    public func texts(_ sql: StoreSQL, column: String) throws -> [String] { try rows(sql).map { try $0.text(column) } }
}
