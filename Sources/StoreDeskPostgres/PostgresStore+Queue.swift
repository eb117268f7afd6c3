import Foundation
import PostgresNIO
import StoreDeskCore
import StoreDeskStoreAPI

/// The payment queue and its runs on PostgreSQL. A run proves itself alive to every machine by a
/// session advisory lock (`(741520, run)`) held on its store's connection: a process that dies, or a
/// machine that goes away, drops its connection and so its lock, and the next run to start takes its work
/// over. Starting runs is serialised by a transaction lock, so of several runs starting at once on
/// several machines each piece of orphaned work is taken over exactly once; every commit of a run renews
/// its heartbeat and is refused once another run took it over (fencing).
extension PostgresStore: QueueStore {
    static let runLockClass: Int32 = 741_520

    public func queue(_ query: QueueQuery) -> any ListPager<StoreTransaction> { PostgresQueuePager(store: self, query: query) }

    public func sandboxQueueCount() throws -> Int {
        try session.transaction(readOnly: true) { db in try QueueProcedures.sandboxCount(procedures(db)) }
    }

    public func queueCounts() throws -> [TransactionState: Int] {
        try session.transaction(readOnly: true) { db in try QueueProcedures.counts(procedures(db)) }
    }

    public func eventTally(after eventId: Int64?) throws -> EventTally {
        try session.transaction(readOnly: true) { db in try QueueProcedures.eventTally(procedures(db), after: eventId) }
    }

    public func queueActivity(_ window: QueueActivity.Window) throws -> QueueActivity {
        try session.transaction(readOnly: true) { db in try QueueProcedures.activity(procedures(db), window) }
    }

    public func queueDetail(transactionId: String) throws -> QueueDetail? {
        try session.transaction(readOnly: true) { db in try QueueProcedures.detail(procedures(db), transactionId: transactionId) }
    }

    public func recentDeliveries(limit: Int) throws -> CallbackDeliveries {
        try session.transaction(readOnly: true) { db in try QueueProcedures.recentDeliveries(procedures(db), limit: limit) }
    }

    public func paymentCatalogue(userLimit: Int) throws -> PaymentCatalogue {
        try session.transaction(readOnly: true) { db in
            var testing: [String: StoreKitPurchaseTesting] = [:]
            for row in try db.rows("SELECT app_id, ask_to_buy, fail_transactions FROM catalogue WHERE ask_to_buy != 0 OR fail_transactions != 0") {
                let (app, ask, fail) = try row.decode((String, Int64, Int64).self)
                testing[app] = StoreKitPurchaseTesting(askToBuy: ask != 0, failTransactions: fail != 0)
            }
            return PaymentCatalogue(
                apps: try db.rows("SELECT * FROM app ORDER BY id").map { try cells($0).app() },
                products: try db.rows("SELECT * FROM product ORDER BY app_id, id").map { try cells($0).product() },
                accounts: try db.rows(
                    #"""
                    SELECT g.* FROM game_account g JOIN (SELECT id FROM "user" ORDER BY seq LIMIT \#(Int64(max(0, userLimit)))) u ON u.id = g.user_id
                    ORDER BY g.user_id COLLATE "C", g.app_id COLLATE "C", g.sid COLLATE "C", g.role_id COLLATE "C"
                    """#
                ).map { try cells($0).gameAccount() },
                storeKitTesting: testing)
        }
    }

    // MARK: Runs

    public func startRun(_ kind: PaymentRun.Kind, takingOver: Bool, audit: RunAudit?) throws -> PaymentRunStart {
        guard !isReadOnly else { throw StoreError.readOnlyFile(path: name) }
        let clock: @Sendable () -> Instant = { Instant(Date()) }
        let now = clock()
        return try write { db in
            try db.run("SELECT pg_advisory_xact_lock(74152028)")
            let pid = Int64(ProcessInfo.processInfo.processIdentifier)
            let host = ProcessInfo.processInfo.hostName
            guard let id = try db.rows(
                """
                INSERT INTO payment_run (kind, pid, host, started_at, heartbeat_at)
                VALUES (\(kind.rawValue), \(pid), \(host), \(now.millis), \(now.millis)) RETURNING id
                """
            ).first?.decode(Int64.self), id <= OrderNumbers.maxRun, id <= Int64(Int32.max) else {
                throw StoreError.database(path: name, message: "every payment run number has been used")
            }
            // A session lock: it outlives this transaction, and goes with the connection.
            try db.run("SELECT pg_advisory_lock(\(Self.runLockClass), \(Int32(id)))")
            let run = PaymentRun(id: id, kind: kind, hold: PostgresRunHold(store: self, run: id), clock: clock)
            var start = PaymentRunStart(run: run, inFlight: [], tookOverFrom: [])
            if takingOver {
                let (inFlight, from) = try takeOver(db, for: id, now: now)
                start = PaymentRunStart(run: run, inFlight: inFlight, tookOverFrom: from)
            }
            for entry in audit?.started(start) ?? [] { try stamped(entry, db) }
            return start
        }
    }

    public func endRun(_ run: PaymentRun, audit: RunAudit?) throws {
        let now = run.clock().millis
        try write { db in
            try db.run("UPDATE payment_run SET ended_at = \(now), heartbeat_at = \(now) WHERE id = \(run.id) AND ended_at IS NULL")
            if let audit { try stamped(audit.stopped(run), db) }
        }
        run.hold?.release()
    }

    public func heartbeat(_ run: PaymentRun) throws {
        try write { db in try beat(db, run) }
    }

    public func apply(_ changes: [PaymentChange], run: PaymentRun) throws {
        guard !changes.isEmpty else { return }
        try write { db in
            try beat(db, run)
            try write(changes, run: run.id, db)
            if let latest = changes.compactMap(\.latestStamp).max() { try advance(to: latest, db) }
        }
    }

    public func finishTransaction(id: String, at: Instant, by staff: StaffMember) throws -> Result<StoreTransaction, TransactionRefusal> {
        if let refusal = staff.refusal(.driveSimulation) { throw StoreError.invalidArgument(refusal) }
        return try write { db in try QueueProcedures.finish(procedures(db), id: id, at: at, by: staff) }
    }

    /// Renews the run's heartbeat in the caller's transaction; refuses once it ended or was taken over.
    func beat(_ db: PostgresSession.Transaction, _ run: PaymentRun) throws {
        let touched = try db.run(
            "UPDATE payment_run SET heartbeat_at = \(run.clock().millis) WHERE id = \(run.id) AND ended_at IS NULL")
        guard touched == 1 else {
            let by = try db.rows("SELECT taken_over_by FROM payment_run WHERE id = \(run.id)").first?.decode(Int64?.self)
            throw StoreError.runEnded(path: name, run: run.id, takenOverBy: by)
        }
    }

    /// Whether run `id`'s owner is gone: it ended, or no connection holds its lock.
    func isGone(_ db: PostgresSession.Transaction, run id: Int64) throws -> Bool {
        guard let row = try db.rows("SELECT ended_at FROM payment_run WHERE id = \(id)").first else { return true }
        if try row.decode(Int64?.self) != nil { return true }
        guard let objid = Int32(exactly: id) else { return true }
        let held = try db.rows(
            """
            SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND classid = \(Self.runLockClass)::oid
              AND objid = \(objid)::oid AND objsubid = 2 AND granted
              AND database = (SELECT oid FROM pg_database WHERE datname = current_database()))
            """
        ).first?.decode(Bool.self) ?? false
        return !held
    }

    /// Moves the resumable work of every gone run (and of no run) to run `me`, as the SQLite store does.
    func takeOver(_ db: PostgresSession.Transaction, for me: Int64, now: Instant) throws -> ([PaymentSimulation.InFlight], [Int64]) {
        let rows = try db.rows(
            """
            SELECT t.* FROM store_transaction t
            WHERE t.finished = 0 AND (t.run_id IS NULL OR t.run_id != \(me))
              AND EXISTS (SELECT 1 FROM transaction_event e WHERE e.transaction_id = t.id)
              AND NOT EXISTS (SELECT 1 FROM transaction_event e WHERE e.transaction_id = t.id AND e.kind = 'client_crashed')
              AND NOT EXISTS (SELECT 1 FROM restore_request r WHERE r.transaction_id = t.id)
            ORDER BY t.purchase_date, t.id
            """)
        var gone: [Int64: Bool] = [:]
        var claimed: [StoreTransaction] = []
        for row in rows {
            if let owner = try cells(row).optionalInt("run_id") {
                if gone[owner] == nil { gone[owner] = try isGone(db, run: owner) }
                guard gone[owner] == true else { continue }
            }
            claimed.append(try cells(row).transaction())
        }
        if !claimed.isEmpty {
            try db.run("UPDATE store_transaction SET run_id = \(me) WHERE id = ANY(\(claimed.map(\.id)))")
        }
        let from = gone.filter(\.value).keys.sorted()
        for run in from {
            try db.run(
                "UPDATE payment_run SET ended_at = coalesce(ended_at, \(now.millis)), taken_over_by = \(me) WHERE id = \(run) AND taken_over_by IS NULL")
        }
        let work = try claimed.map { t in
            let order = try db.rows("SELECT * FROM payment_order WHERE transaction_id = \(t.id)").first.map { try cells($0).paymentOrder() }
            let callbacks = try order.map {
                Int(try db.rows("SELECT count(*) FROM server_callback WHERE order_id = \($0.id)").first?.decode(Int64.self) ?? 0)
            } ?? 0
            let granted = try order.map { !(try db.rows("SELECT 1 FROM item_grant WHERE order_id = \($0.id)").isEmpty) } ?? false
            return PaymentSimulation.InFlight(transaction: t, order: order, callbacks: callbacks, granted: granted)
        }
        return (work, from)
    }
}

/// A run's advisory lock on its store's connection; released when the run ends cleanly.
final class PostgresRunHold: RunHold, @unchecked Sendable {
    private let store: PostgresStore
    private let run: Int64
    private let lock = NSLock()
    private var released = false

    init(store: PostgresStore, run: Int64) {
        self.store = store
        self.run = run
    }

    func release() {
        let first = lock.withLock {
            defer { released = true }
            return !released
        }
        guard first, let objid = Int32(exactly: run) else { return }
        _ = try? store.session.run("SELECT pg_advisory_unlock(\(PostgresStore.runLockClass), \(objid))")
    }
}

/// The unfinished transactions on PostgreSQL, newest first unless asked otherwise.
struct PostgresQueuePager: ListPager {
    let store: PostgresStore
    let query: QueueQuery

    func cursor(of row: StoreTransaction) -> QueueCursor { QueueCursor(purchaseDate: row.purchaseDate, id: row.id) }

    func page(_ anchor: PageAnchor<QueueCursor>, limit: Int) throws -> [StoreTransaction] {
        try store.readOne { try ListProcedures.queuePage($0, query, anchor: anchor, limit: limit) }
    }

    func cursor(id: String) throws -> QueueCursor? { try store.readOne { try ListProcedures.queueCursor($0, id: id) } }

    func count() throws -> ListCount? {
        try store.readOne { try ListProcedures.queueCount($0, query) }
    }
}
