import Foundation
import GRDB
import StoreDeskCore

/// The books of the game server that `storedesk serve` plays: it decides each genuine callback with
/// `GrantRule` inside a write transaction (so two processes, or two requests, never grant one order
/// twice) and commits before the caller replies.
///
/// Requests arrive concurrently; one writer thread takes every callback waiting and commits them in one
/// SQLite transaction (a group commit), then answers them all. Under load a commit carries hundreds of
/// callbacks; alone, a callback waits for nothing but its own commit. A refused callback writes nothing.
///
/// Its rows are stamped on the store's one time line, not the wall clock: the ledger's clock starts at the
/// store's instant (`AppDatabase.now(wall:)`) and runs on by the monotonic clock, and each commit stamps
/// its callbacks and grants with `StoreMeta.stamp` (never before the store's clock or latest stamp, which
/// it moves up), so a store whose clock is days behind or ahead of the wall clock gets them on its own line.
///
///     let ledger = try GameServerLedger(database: store)
///     let decision = try await ledger.record(received)   // committed when this returns
///     decision.reply                                     // "success"
///     ledger.close()                                     // after the server stopped taking requests
public final class GameServerLedger: @unchecked Sendable {
    /// Callbacks one commit takes at most.
    public static let batchLimit = 512

    private struct Waiting {
        var callback: ReceivedCallback
        var then: @Sendable (Result<GrantDecision, any Error>) -> Void
    }

    private let database: AppDatabase
    /// The store's time line as this server runs it.
    private let clock: StoreTimeLineClock
    /// Copies the WAL into the file off this writer's thread (nil for an in-memory store).
    private let checkpointer: WALCheckpointer?
    private let condition = NSCondition()
    private var waiting: [Waiting] = []
    private var closed = false
    private var stopped = false

    /// Starts the writer thread, its clock at the store's instant now. Throws when the store's clock is
    /// not a date (`StoreMeta.clock`).
    public init(database: AppDatabase) throws {
        self.database = database
        clock = StoreTimeLineClock(start: try database.now(wall: Instant(Date())).instant)
        checkpointer = (database.writer as? DatabasePool).flatMap { WALCheckpointer(pool: $0) }
        let thread = Thread { [self] in run() }
        thread.name = "storedesk-ledger"
        thread.start()
    }

    /// The instant on the store's time line now: the store's instant when the ledger started plus the
    /// time since (monotonic), caught up to any later stamp a commit took. For a callback's `receivedAt`.
    public var now: Instant { clock.now }

    /// Decides and commits one callback; returns once the commit is durable (or throws, with nothing stored).
    public func record(_ callback: ReceivedCallback) async throws -> GrantDecision {
        try await withCheckedThrowingContinuation { continuation in
            submit(callback) { continuation.resume(with: $0) }
        }
    }

    /// Decides and commits one callback, then calls `then` on the writer thread with the decision (the
    /// commit is durable by then) or the error (nothing stored). For a caller that must not wait: a
    /// server's event loop answers from `then` without a task of its own.
    public func submit(_ callback: ReceivedCallback, then: @escaping @Sendable (Result<GrantDecision, any Error>) -> Void) {
        condition.lock()
        guard !closed else {
            condition.unlock()
            then(.failure(StoreError.invalidArgument("the game server is stopping")))
            return
        }
        waiting.append(Waiting(callback: callback, then: then))
        condition.signal()
        condition.unlock()
    }

    /// Commits what is waiting, then stops the writer thread (and the first call, the checkpointer).
    /// Returns once it has.
    public func close() {
        condition.lock()
        let first = !closed
        closed = true
        condition.broadcast()
        while !stopped { condition.wait() }
        condition.unlock()
        if first { checkpointer?.stop() }
    }

    private func run() {
        // The batch is taken by swapping arrays, not copied: a callback carries its app, catalogue and
        // parsed fields, and copying each (a retain of every field, then a release) showed in its profile.
        var batch: [Waiting] = []
        while true {
            batch.removeAll(keepingCapacity: true)
            condition.lock()
            while waiting.isEmpty && !closed { condition.wait() }
            if waiting.isEmpty && closed {
                stopped = true
                condition.broadcast()
                condition.unlock()
                return
            }
            if waiting.count <= Self.batchLimit {
                swap(&batch, &waiting)
            } else {
                batch.append(contentsOf: waiting.prefix(Self.batchLimit))
                waiting.removeFirst(Self.batchLimit)
            }
            condition.unlock()
            do {
                let clock = self.clock
                let decisions = try database.writer.write { db in
                    // One stamp a commit, on the store's time line: another process may have moved the
                    // store's clock past this one's, and then the clock catches up, never back.
                    let stamp = try StoreMeta.stamp(clock.now, in: db)
                    clock.catchUp(to: stamp)
                    let books = try GameServerBooks(db)
                    return try batch.map { try books.decide($0.callback, at: stamp) }
                }
                for (item, decision) in zip(batch, decisions) { item.then(.success(decision)) }
                checkpointer?.committed()
            } catch {
                for item in batch { item.then(.failure(error)) }
            }
        }
    }
}

/// A store's time line as a long-running process keeps it: an anchor (the store's instant when it started)
/// plus the monotonic time since, so the wall clock going back or jumping changes nothing; moved up to a
/// later stamp (another process moved the store's clock on), never back. Shared between threads.
final class StoreTimeLineClock: @unchecked Sendable {
    private let lock = NSLock()
    private var anchor: Instant
    private var anchorUptime: UInt64

    init(start: Instant) {
        anchor = start
        anchorUptime = DispatchTime.now().uptimeNanoseconds
    }

    var now: Instant {
        let uptime = DispatchTime.now().uptimeNanoseconds
        lock.lock()
        defer { lock.unlock() }
        let elapsed = Int64(clamping: (uptime &- anchorUptime) / 1_000_000)
        return anchor.adding(Instant.Duration(millis: elapsed))
    }

    /// Moves the clock up to `instant` if it is behind it; never back.
    func catchUp(to instant: Instant) {
        let uptime = DispatchTime.now().uptimeNanoseconds
        lock.lock()
        defer { lock.unlock() }
        let elapsed = Int64(clamping: (uptime &- anchorUptime) / 1_000_000)
        guard instant > anchor.adding(Instant.Duration(millis: elapsed)) else { return }
        anchor = instant
        anchorUptime = uptime
    }
}

/// The game server's rows, written with cached statements inside the caller's transaction.
struct GameServerBooks {
    let db: Database
    let granted: Statement
    let callback: Statement
    let grant: Statement

    init(_ db: Database) throws {
        self.db = db
        granted = try db.cachedStatement(sql: "SELECT 1 FROM game_server_grant WHERE app_id = ? AND order_id = ?")
        callback = try db.cachedStatement(
            sql: """
                INSERT INTO game_server_callback (app_id, order_id, outcome, body, warnings, reply, peer, received_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """)
        grant = try db.cachedStatement(
            sql: """
                INSERT INTO game_server_grant (app_id, order_id, user_id, sid, role_id, product_id, kind, currency_amount,
                  callback_id, granted_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
    }

    /// `GrantRule`'s decision on one verified callback at `instant` (the commit's stamp), its rows written
    /// when it grants or repeats.
    func decide(_ received: ReceivedCallback, at instant: Instant) throws -> GrantDecision {
        let appId = received.app.id
        var lookupError: (any Error)?
        let decision = GrantRule.decide(
            verification: received.verification, app: received.app, products: received.products,
            alreadyGranted: { orderId in
                do {
                    return try Bool.fetchOne(granted, arguments: [appId, orderId]) ?? false
                } catch {
                    lookupError = error
                    return true
                }
            }, at: instant)
        if let lookupError { throw lookupError }
        let outcome: String
        switch decision.outcome {
        case .reject: return decision
        case .grant: outcome = "granted"
        case .duplicate: outcome = "duplicate"
        }
        let orderId = received.verification.fields.text("order_id") ?? ""
        let warnings = received.verification.warnings.map(\.message).joined(separator: "; ")
        try callback.execute(arguments: [
            appId, orderId, outcome, received.body, warnings, decision.reply, received.peer, instant.millis,
        ])
        if let g = decision.grant {
            try grant.execute(arguments: [
                appId, g.orderId, g.userId, g.sid, g.roleId, g.productId, g.kind.rawValue, g.currencyAmount,
                db.lastInsertedRowID, g.grantedAt.millis,
            ])
        }
        return decision
    }
}

extension GameServerGrant: FetchableRecord {}

extension AppDatabase {
    /// The grants of the game server `storedesk serve` plays, oldest first.
    public func gameServerGrants() throws -> [GameServerGrant] {
        try reader.read { db in
            try GameServerGrant.fetchAll(db, sql: "SELECT * FROM game_server_grant ORDER BY granted_at, order_id")
        }
    }

    /// How many callbacks the game server answered success: granted, and repeats.
    public func gameServerCallbackCounts() throws -> (granted: Int, duplicate: Int) {
        try reader.read { db in
            let rows = try Row.fetchAll(db, sql: "SELECT outcome, COUNT(*) AS n FROM game_server_callback GROUP BY outcome")
            var granted = 0, duplicate = 0
            for row in rows {
                let n: Int = row["n"]
                if row["outcome"] == "granted" { granted = n } else { duplicate = n }
            }
            return (granted, duplicate)
        }
    }

    /// Every app with its products, for a game server that looks apps up by `client_id`.
    public func appsWithProducts() throws -> [(app: App, products: [Product])] {
        try reader.read { db in
            let apps = try App.fetchAll(db, sql: "SELECT * FROM app ORDER BY id")
            let products = try Product.fetchAll(db, sql: "SELECT * FROM product ORDER BY app_id, id")
            let byApp = Dictionary(grouping: products, by: \.appId)
            return apps.map { ($0, byApp[$0.id] ?? []) }
        }
    }
}
