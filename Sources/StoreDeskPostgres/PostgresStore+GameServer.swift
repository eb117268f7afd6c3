import Foundation
import PostgresNIO
import StoreDeskCore
import StoreDeskStoreAPI

/// The game server's books on PostgreSQL: `CallbackGroupCommit` (every backend's writer thread and group
/// commit) committing on a connection of its own, a batch in one transaction and its rows in a few
/// statements. An order is granted once across every process and machine: the grant's key is
/// `(app_id, order_id)`, inserted `ON CONFLICT DO NOTHING`; a grant another ledger committed meanwhile
/// (or is committing: the insert waits for it) makes this one's callback a repeat, answered "success"
/// and granting nothing, as `GrantRule` answers any repeat.
extension PostgresStore: GameServerStore {
    public func openCallbackLedger() throws -> any CallbackLedger {
        guard !isReadOnly else { throw StoreError.readOnlyFile(path: name) }
        let writer = try PostgresStore(address: address, session: PostgresSession(address: address), readOnly: false)
        let start = try now(wall: Instant(Date())).instant
        return CallbackGroupCommit(
            start: start, threadName: "storedesk-ledger",
            commit: { batch, clock in try writer.commitCallbacks(batch, clock: clock) },
            committed: { [weak self] in self?.observers.notify() }, stopped: { writer.close() })
    }

    public func gameServerGrants() throws -> [GameServerGrant] {
        try session.rows("SELECT * FROM game_server_grant ORDER BY granted_at, order_id").map { row in
            let cells = cells(row)
            return GameServerGrant(
                appId: try cells.text("app_id"), orderId: try cells.text("order_id"), userId: try cells.text("user_id"),
                sid: try cells.text("sid"), roleId: try cells.text("role_id"), productId: try cells.text("product_id"),
                kind: try cells.text("kind"), currencyAmount: Int(try cells.int("currency_amount")),
                grantedAt: try cells.instant("granted_at"))
        }
    }

    public func gameServerCallbackCounts() throws -> (granted: Int, duplicate: Int) {
        var granted = 0, duplicate = 0
        for row in try session.rows("SELECT outcome, count(*) FROM game_server_callback GROUP BY outcome") {
            let (outcome, count) = try row.decode((String, Int64).self)
            if outcome == "granted" { granted = Int(count) } else { duplicate = Int(count) }
        }
        return (granted, duplicate)
    }

    /// One group commit: stamped once on the store's time line, the batch's orders already granted read
    /// in one query, decided in order (a later callback of the batch sees an earlier one's grant), then
    /// the callbacks and grants written a statement each. A grant that lost its order to another ledger
    /// turns its callback into a repeat before the commit.
    func commitCallbacks(_ batch: [ReceivedCallback], clock: StoreTimeLineClock) throws -> [GrantDecision] {
        try write { db in
            let stamp = try stamp(clock.now, in: db)
            clock.catchUp(to: stamp)
            let apps = batch.map(\.app.id), orders = batch.map { $0.verification.fields.text("order_id") ?? "" }
            var granted = Set<OrderKey>()
            for row in try db.rows(
                """
                SELECT g.app_id, g.order_id FROM game_server_grant g
                JOIN unnest(\(apps)::text[], \(orders)::text[]) AS b(app_id, order_id) ON g.app_id = b.app_id AND g.order_id = b.order_id
                """)
            {
                let (app, order) = try row.decode((String, String).self)
                granted.insert(OrderKey(app: app, order: order))
            }
            var decisions: [GrantDecision] = []
            var entries: [(index: Int, entry: GameServerEntry)] = []
            for (index, received) in batch.enumerated() {
                let decision = try GameServerEntry.decide(received, at: stamp) { granted.contains(OrderKey(app: received.app.id, order: $0)) }
                decisions.append(decision)
                guard let entry = GameServerEntry(received, decision, at: stamp) else { continue }
                if let grant = entry.grant { granted.insert(OrderKey(app: entry.appId, order: grant.orderId)) }
                entries.append((index, entry))
            }
            guard !entries.isEmpty else { return decisions }
            // The callbacks' ids first, so each grant names its callback in the same statement.
            let ids = try db.rows(
                "SELECT nextval(pg_get_serial_sequence('game_server_callback', 'id')) FROM generate_series(1, \(Int64(entries.count)))"
            ).map { try $0.decode(Int64.self) }
            try insert(
                zip(ids, entries).map { id, item in
                    let e = item.entry
                    return [
                        .integer(id), .text(e.appId), .text(e.orderId), .text(e.outcome), .text(e.body), .text(e.warnings), .text(e.reply),
                        .text(e.peer), .integer(e.receivedAt.millis),
                    ]
                }, into: "game_server_callback",
                columns: ["id", "app_id", "order_id", "outcome", "body", "warnings", "reply", "peer", "received_at"], db)
            let grants: [(callback: Int64, index: Int, grant: Grant)] = zip(ids, entries).compactMap { id, item in
                item.entry.grant.map { (id, item.index, $0) }
            }
            guard !grants.isEmpty else { return decisions }
            var won = Set<OrderKey>()
            let columns = [
                "app_id", "order_id", "user_id", "sid", "role_id", "product_id", "kind", "currency_amount", "callback_id", "granted_at",
            ]
            for slice in grants.chunked(Self.batchRows(columns: columns.count)) {
                var sql = SQLBuilder("INSERT INTO game_server_grant (\(columns.joined(separator: ", "))) VALUES ")
                for (n, item) in slice.enumerated() {
                    let g = item.grant, appId = batch[item.index].app.id
                    let values: [StoreValue] = [
                        .text(appId), .text(g.orderId), .text(g.userId), .text(g.sid), .text(g.roleId), .text(g.productId),
                        .text(g.kind.rawValue), .integer(Int64(g.currencyAmount)), .integer(item.callback), .integer(g.grantedAt.millis),
                    ]
                    sql.append((n > 0 ? ", (" : "(") + values.map { sql.bind($0) }.joined(separator: ", ") + ")")
                }
                sql.append(" ON CONFLICT (app_id, order_id) DO NOTHING RETURNING app_id, order_id")
                for row in try db.rows(sql.query) {
                    let (app, order) = try row.decode((String, String).self)
                    won.insert(OrderKey(app: app, order: order))
                }
            }
            // Another ledger granted these orders first: their callbacks are repeats.
            for item in grants where !won.contains(OrderKey(app: batch[item.index].app.id, order: item.grant.orderId)) {
                let repeated = try GameServerEntry.decide(batch[item.index], at: stamp) { _ in true }
                decisions[item.index] = repeated
                try db.run(
                    "UPDATE game_server_callback SET outcome = 'duplicate', reply = \(repeated.reply) WHERE id = \(item.callback)")
            }
            return decisions
        }
    }

    private struct OrderKey: Hashable {
        var app: String
        var order: String
    }
}

extension Array {
    /// The array in consecutive slices of at most `size` elements.
    func chunked(_ size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: Swift.max(1, size)).map { self[$0..<Swift.min($0 + Swift.max(1, size), count)] }
    }
}
