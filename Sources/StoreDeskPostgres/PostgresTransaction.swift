import PostgresNIO
import StoreDeskCore
import StoreDeskStoreAPI

/// The PostgreSQL store's side of the procedures written once for both backends (`StoreSQLTransaction`):
/// statements rendered with `$n` placeholders and run in the caller's transaction, and the writes this
/// store does its own way (its payment rows' upserts, its time line, its restore desk's blocks).
struct PostgresTransaction: StoreSQLTransaction {
    let owner: PostgresStore
    let db: PostgresSession.Transaction

    var dialect: StoreSQL.Dialect { .postgres }
    var store: String { owner.name }

    func query(_ sql: StoreSQL) -> PostgresQuery {
        let (text, values) = sql.rendered(.postgres)
        var builder = SQLBuilder()
        for value in values { _ = builder.bind(value) }
        return PostgresQuery(unsafeSQL: text, binds: builder.binds)
    }

    func rows(_ sql: StoreSQL) throws -> [any StoreColumns] { try db.rows(query(sql)).map { owner.cells($0) } }
    @discardableResult
    func execute(_ sql: StoreSQL) throws -> Int { try db.run(query(sql)) }

    func stamp(_ now: Instant) throws -> Instant { try owner.stamp(now, in: db) }
    func now(wall: Instant) throws -> Instant { try owner.storeNow(db, wall: wall).instant }
    func write(_ change: PaymentChange) throws { try owner.write(change, db) }
    func insert(_ event: PaymentEvent) throws { try owner.insert(event, db) }
    func insert(_ entry: AuditEntry) throws { try owner.insert(entry, db) }

    func importNotifications(_ lines: SubscriptionEventLines, source: String, at now: Instant) throws -> NotificationImport.Report {
        try PostgresNotificationImporter(store: owner, db: db, source: source, wallClock: now, stampAt: now).run(lines)
    }

    func recordBaseline(chain: String, at now: Instant) throws { try owner.recordBaseline(db, chain: chain, at: now) }

    func runIsGone(_ run: Int64, now: Instant) throws -> Bool { try owner.isGone(db, run: run) }

    func restoreDeskNumbers(needing count: Int, now: Instant) throws -> OrderNumbers {
        try owner.restoreDeskNumbers(db, needing: count, now: now)
    }

    func save(_ numbers: OrderNumbers) throws {
        try db.run("UPDATE payment_run SET orders_issued = \(numbers.issued) WHERE id = \(numbers.run)")
    }

    func serialize(_ key: SerialKey) throws {
        switch key {
        case .restorePurchases(let appleId): try db.run("SELECT pg_advisory_xact_lock(74152028, hashtext(\(appleId)))")
        case .eventLog: try owner.holdEventLog(db)
        case .oneTap: try db.run("SELECT pg_advisory_xact_lock(74152027)")
        }
    }

    func tryHoldAlone(_ key: SerialKey) throws -> Bool {
        switch key {
        case .restorePurchases(let appleId):
            try db.rows("SELECT pg_try_advisory_xact_lock(74152028, hashtext(\(appleId)))").first?.decode(Bool.self) == true
        case .eventLog:
            try db.rows("SELECT pg_try_advisory_xact_lock(\(PostgresStore.eventLogLock))").first?.decode(Bool.self) == true
        case .oneTap:
            try db.rows("SELECT pg_try_advisory_xact_lock(74152027)").first?.decode(Bool.self) == true
        }
    }
}

extension PostgresStore {
    /// This store's side of the procedures written once, inside the caller's transaction.
    func procedures(_ db: PostgresSession.Transaction) -> PostgresTransaction { PostgresTransaction(owner: self, db: db) }

    /// A read of one statement written once for both backends, without a transaction of its own.
    func readOne<T>(_ body: (PostgresTransaction) throws -> T) throws -> T { try session.autocommit { try body(procedures($0)) } }
}
