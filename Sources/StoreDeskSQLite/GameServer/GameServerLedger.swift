import Foundation
import GRDB
import StoreDeskCore
import StoreDeskStoreAPI

/// The books of the game server that `storedesk serve` plays, on SQLite: `CallbackGroupCommit` (every
/// backend's writer thread and group commit) with a commit of one SQLite write transaction, which decides
/// each genuine callback with `GrantRule` (so two processes, or two requests, never grant one order twice)
/// and stamps its rows with `StoreMeta.stamp`; the WAL is copied into the file off the writer's thread.
///
///     let ledger = try GameServerLedger.open(database: store)
///     let decision = try await ledger.record(received)   // committed when this returns
///     ledger.close()                                     // after the server stopped taking requests
public enum GameServerLedger {
    /// Callbacks one commit takes at most.
    public static let batchLimit = CallbackGroupCommit.batchLimit

    /// Starts the ledger, its clock at the store's instant now. Throws when the store's clock is not a
    /// date (`StoreMeta.clock`).
    public static func open(database: AppDatabase) throws -> CallbackGroupCommit {
        let checkpointer = database.walCheckpointer()
        return CallbackGroupCommit(
            start: try database.now(wall: Instant(Date())).instant, threadName: "storedesk-ledger",
            commit: { batch, clock in
                try database.write { db in
                    // One stamp a commit, on the store's time line: another process may have moved the
                    // store's clock past this one's, and then the clock catches up, never back.
                    let stamp = try StoreMeta.stamp(clock.now, in: db)
                    clock.catchUp(to: stamp)
                    let books = try GameServerBooks(db)
                    return try batch.map { try books.decide($0, at: stamp) }
                }
            },
            committed: { checkpointer?.committed() }, stopped: { checkpointer?.stop() })
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
        let decision = try GameServerEntry.decide(received, at: instant) { orderId in
            try Bool.fetchOne(granted, arguments: [appId, orderId]) ?? false
        }
        guard let entry = GameServerEntry(received, decision, at: instant) else { return decision }
        try callback.execute(arguments: [
            entry.appId, entry.orderId, entry.outcome, entry.body, entry.warnings, entry.reply, entry.peer, entry.receivedAt.millis,
        ])
        if let g = entry.grant {
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
        try reader.read { db in try AppProcedures.appsWithProducts(procedures(db)) }
    }
}
