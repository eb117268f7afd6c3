import Foundation
import GRDB
import StoreDeskCore

extension AppDatabase {
    /// Starts a payment run: a new `payment_run` row (its number is the run's block of order ids), its
    /// kernel lock taken before the row is committed (so nobody ever sees the row without its lock),
    /// and, with `takingOver`, the work in flight of every run whose owner is gone, moved to this run.
    ///
    /// All of it is one `BEGIN IMMEDIATE` transaction: of two processes starting at the same moment,
    /// the second waits for the first's commit and then sees its run alive, so each piece of orphaned
    /// work is taken over exactly once.
    public func startRun(_ kind: PaymentRun.Kind, takingOver: Bool, audit: RunAudit?) throws -> PaymentRunStart {
        guard !isReadOnly else { throw StoreError.readOnlyFile(path: path) }
        // Heartbeats and leases are wall-clock matters between processes, whatever clock a simulation runs on.
        let clock: @Sendable () -> Instant = { Instant(Date()) }
        let now = clock()
        do {
            return try write { db in
                try db.execute(
                    sql: "INSERT INTO payment_run (kind, pid, started_at, heartbeat_at) VALUES (?, ?, ?, ?)",
                    arguments: [kind.rawValue, ProcessInfo.processInfo.processIdentifier, now.millis, now.millis])
                let id = db.lastInsertedRowID
                guard id <= OrderNumbers.maxRun else {
                    throw StoreError.database(path: path, message: "every payment run number has been used (\(id))")
                }
                let lock = try RunLock.take(run: id, store: path)
                if lock != nil {
                    try db.execute(sql: "UPDATE payment_run SET host = ? WHERE id = ?", arguments: [RunLock.host, id])
                }
                let run = PaymentRun(id: id, kind: kind, hold: lock, clock: clock)
                var start = PaymentRunStart(run: run, inFlight: [], tookOverFrom: [])
                if takingOver {
                    let (inFlight, from) = try PaymentRuns.takeOver(db, for: id, store: path, now: now)
                    start = PaymentRunStart(run: run, inFlight: inFlight, tookOverFrom: from)
                }
                for entry in audit?.started(start) ?? [] { try Self.insert(entry, db) }
                return start
            }
        } catch let error as DatabaseError {
            throw StoreError(error, path: path)
        }
    }

    /// Ends a run that stops cleanly: what it leaves in flight is free for the next run at once. The
    /// lock goes only after the end is committed.
    public func endRun(_ run: PaymentRun, audit: RunAudit?) throws {
        do {
            try write { db in
                let now = run.clock().millis
                try db.execute(
                    sql: "UPDATE payment_run SET ended_at = ?, heartbeat_at = ? WHERE id = ? AND ended_at IS NULL",
                    arguments: [now, now, run.id])
                if let audit { try Self.insert(audit.stopped(run), db) }
            }
            run.hold?.release()
        } catch let error as DatabaseError {
            throw StoreError(error, path: path)
        }
    }

    /// Says the run is alive (for an idle run; every commit of its steps does too). Throws when another
    /// process took its work over.
    public func heartbeat(_ run: PaymentRun) throws {
        do {
            try write { db in try PaymentRuns.beat(db, run, path: path) }
        } catch let error as DatabaseError {
            throw StoreError(error, path: path)
        }
    }
}

/// The SQL behind payment runs: liveness, takeover, the heartbeat that fences a run's commits, and the
/// restore desk's block of order numbers.
enum PaymentRuns {
    /// Renews the run's heartbeat inside the caller's transaction, and refuses to let it write once it
    /// ended or another run took its work over.
    static func beat(_ db: Database, _ run: PaymentRun, path: String) throws {
        let statement = try db.cachedStatement(sql: "UPDATE payment_run SET heartbeat_at = ? WHERE id = ? AND ended_at IS NULL")
        try statement.execute(arguments: [run.clock().millis, run.id])
        guard db.changesCount == 1 else {
            let by = try Int64.fetchOne(db, sql: "SELECT taken_over_by FROM payment_run WHERE id = ?", arguments: [run.id])
            throw StoreError.runEnded(path: path, run: run.id, takenOverBy: by)
        }
    }

    static func row(_ db: Database, _ id: Int64) throws -> PaymentRunRow? {
        try Row.fetchOne(db, sql: "SELECT id, host, heartbeat_at, ended_at FROM payment_run WHERE id = ?", arguments: [id]).map {
            PaymentRunRow(
                id: try $0.column("id"), host: try $0.column("host"), heartbeatAt: Instant(millis: try $0.column("heartbeat_at")),
                endedAt: (try $0.column("ended_at") as Int64?).map(Instant.init(millis:)))
        }
    }

    /// Whether run `id`'s owner is gone (a run with no row has no owner).
    static func isGone(_ db: Database, _ id: Int64, store path: String, now: Instant) throws -> Bool {
        try row(db, id)?.isGone(store: path, now: now) ?? true
    }

    /// Moves the resumable work of every gone run (and of no run: written before runs existed) to run
    /// `me`, marks those runs ended and taken over, and returns the work with its orders and callbacks.
    /// Dropped orders (the client crashed) and transactions with a restore prompt stay where they are:
    /// they wait for the restore desk.
    static func takeOver(_ db: Database, for me: Int64, store path: String, now: Instant) throws -> (
        [PaymentSimulation.InFlight], [Int64]
    ) {
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT t.*, t.run_id AS sd_run FROM store_transaction t
                WHERE t.finished = 0 AND (t.run_id IS NULL OR t.run_id != ?)
                  AND EXISTS (SELECT 1 FROM transaction_event e WHERE e.transaction_id = t.id)
                  AND NOT EXISTS (SELECT 1 FROM transaction_event e WHERE e.transaction_id = t.id AND e.kind = 'client_crashed')
                  AND NOT EXISTS (SELECT 1 FROM restore_request r WHERE r.transaction_id = t.id)
                ORDER BY t.purchase_date, t.id
                """, arguments: [me])
        var gone: [Int64: Bool] = [:]
        var claimed: [StoreTransaction] = []
        for row in rows {
            if let owner: Int64 = try row.column("sd_run") {
                if gone[owner] == nil { gone[owner] = try isGone(db, owner, store: path, now: now) }
                guard gone[owner] == true else { continue }
            }
            claimed.append(try StoreTransaction(row: row))
        }
        let claim = try db.cachedStatement(sql: "UPDATE store_transaction SET run_id = ? WHERE id = ?")
        for transaction in claimed { try claim.execute(arguments: [me, transaction.id]) }
        let from = gone.filter(\.value).keys.sorted()
        for run in from {
            try db.execute(
                sql: "UPDATE payment_run SET ended_at = COALESCE(ended_at, ?), taken_over_by = ? WHERE id = ? AND taken_over_by IS NULL",
                arguments: [now.millis, me, run])
        }
        let work = try claimed.map { t in
            let order = try PaymentOrder.fetchOne(db, sql: "SELECT * FROM payment_order WHERE transaction_id = ?", arguments: [t.id])
            let callbacks = try order.map {
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM server_callback WHERE order_id = ?", arguments: [$0.id]) ?? 0
            } ?? 0
            let granted = try order.map {
                try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM item_grant WHERE order_id = ?)", arguments: [$0.id]) ?? false
            } ?? false
            return PaymentSimulation.InFlight(transaction: t, order: order, callbacks: callbacks, granted: granted)
        }
        return (work, from)
    }

    /// The restore desk's order numbers, with room for at least `count` more: its newest block, or a
    /// new one when that is full. Save what the caller used with `save`.
    static func restoreDesk(_ db: Database, needing count: Int, now: Instant, path: String) throws -> OrderNumbers {
        if let row = try Row.fetchOne(db, sql: "SELECT id, orders_issued FROM payment_run WHERE kind = 'restores' ORDER BY id DESC LIMIT 1"),
            let numbers = OrderNumbers(run: try row.column("id"), issued: try row.column("orders_issued")),
            OrderNumbers.blockSize - 1 - numbers.issued >= Int64(count)
        {
            return numbers
        }
        try db.execute(
            sql: """
                INSERT INTO payment_run (kind, pid, started_at, heartbeat_at, ended_at) VALUES ('restores', ?, ?, ?, ?)
                """, arguments: [ProcessInfo.processInfo.processIdentifier, now.millis, now.millis, now.millis])
        guard let numbers = OrderNumbers(run: db.lastInsertedRowID) else {
            throw StoreError.database(path: path, message: "every payment run number has been used")
        }
        return numbers
    }

    /// Keeps how many numbers the restore desk's block has handed out.
    static func save(_ numbers: OrderNumbers, _ db: Database) throws {
        try db.execute(sql: "UPDATE payment_run SET orders_issued = ? WHERE id = ?", arguments: [numbers.issued, numbers.run])
    }
}
