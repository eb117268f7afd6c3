import PostgresNIO
import StoreDeskCore
import StoreDeskStoreAPI

/// A player's whole story on PostgreSQL: one read per kind of row, each on an index on the player's rows,
/// cut at the keyset `(at, kind, id)` of `before` (`HistoryBound`) and at `limit`, merged and cut again, as
/// the SQLite store does it. Ids compare byte by byte (`COLLATE "C"`), integer ids zero-padded to twenty
/// digits. The reads are this backend's own SQL (as the guide advises: per-backend SQL held together by
/// the contract suite), so they resemble the SQLite store's line for line.
extension PostgresStore: HistoryStore {
    public func history(userId: String, kinds: Set<HistoryKind>, before: HistoryCursor?, limit: Int) throws -> [HistoryEntry] {
        guard limit > 0 else { return [] }
        return try session.transaction(readOnly: true) { db in
            guard !(try db.rows(#"SELECT 1 FROM "user" WHERE id = \#(userId)"#).isEmpty) else { throw StoreError.unknownUser(id: userId) }
            var entries: [HistoryEntry] = []
            for read in Self.historyReads where kinds.isEmpty || kinds.contains(read.kind) {
                var sql = SQLBuilder()
                let user = sql.bind(userId)
                sql.append("SELECT * FROM (" + read.sql.replacingOccurrences(of: ":user", with: user) + ") h")
                switch HistoryBound(before, kind: read.kind) {
                case .none: break
                case .atOrBefore(let at): sql.append(" WHERE at <= \(sql.bind(at.millis))")
                case .before(let at): sql.append(" WHERE at < \(sql.bind(at.millis))")
                case .beforeId(let at, let id):
                    let mark = sql.bind(at.millis)
                    sql.append(" WHERE (at < \(mark) OR (at = \(mark) AND id COLLATE \"C\" < \(sql.bind(id))))")
                }
                sql.append(" ORDER BY at DESC, id COLLATE \"C\" DESC LIMIT \(sql.bind(Int64(limit)))")
                for row in try db.rows(sql.query) {
                    let cells = cells(row)
                    entries.append(
                        HistoryEntry(
                            at: try cells.instant("at"), kind: read.kind, id: try cells.text("id"),
                            transactionId: try cells.optionalText("transaction_id"),
                            originalTransactionId: try cells.optionalText("original_transaction_id"),
                            orderId: try cells.optionalText("order_id"), appOrderId: try cells.optionalText("app_order_id"),
                            detail: try cells.optionalText("detail") ?? "",
                            trust: try cells.optionalText("trust").flatMap(HistoryTrust.init(rawValue:))))
                }
            }
            return Array(entries.sorted(by: HistoryEntry.newerFirst).prefix(limit))
        }
    }

    /// One read of a history: its kind and a SELECT naming `at`, `id`, `transaction_id`,
    /// `original_transaction_id`, `order_id`, `app_order_id`, `detail`, `trust`, filtered by `:user`.
    struct HistoryRead {
        var kind: HistoryKind
        var sql: String
    }

    /// An integer id as text that sorts as the number does.
    static func padded(_ column: String) -> String { "lpad(\(column)::text, 20, '0')" }

    static let historyReads: [HistoryRead] = [
        HistoryRead(
            kind: .transaction,
            sql: """
                SELECT t.purchase_date AS at, t.id AS id, t.id AS transaction_id, t.original_transaction_id,
                  o.order_id, t.app_order_id,
                  t.product_id || ' x' || t.quantity || ' ' || t.state || coalesce(' (' || t.failure_reason || ')', '')
                    || CASE WHEN t.finished <> 0 THEN '' ELSE ', unfinished' END
                    || coalesce(', revoked ' || t.revocation_reason, '') || ', ' || t.environment AS detail,
                  NULL::text AS trust
                FROM store_transaction t LEFT JOIN payment_order o ON o.transaction_id = t.id
                WHERE t.user_id = :user
                """),
        HistoryRead(
            kind: .state,
            sql: """
                SELECT e.at, \(padded("e.id")) AS id, t.id AS transaction_id, t.original_transaction_id,
                  o.order_id, t.app_order_id, e.kind || ': ' || e.detail AS detail, NULL::text AS trust
                FROM store_transaction t JOIN transaction_event e ON e.transaction_id = t.id
                  LEFT JOIN payment_order o ON o.transaction_id = t.id
                WHERE t.user_id = :user
                """),
        HistoryRead(
            kind: .callback,
            sql: """
                SELECT c.received_at AS at, \(padded("c.id")) AS id, t.id AS transaction_id, t.original_transaction_id,
                  c.order_id, t.app_order_id,
                  'attempt ' || c.attempt || ' ' || c.verdict || CASE WHEN c.reason = '' THEN '' ELSE ' (' || c.reason || ')' END
                    || ', reply ' || c.reply AS detail,
                  NULL::text AS trust
                FROM store_transaction t JOIN payment_order o ON o.transaction_id = t.id
                  JOIN server_callback c ON c.order_id = o.order_id
                WHERE t.user_id = :user
                """),
        HistoryRead(
            kind: .grant,
            sql: """
                SELECT g.granted_at AS at, \(padded("g.id")) AS id, o.transaction_id, t.original_transaction_id,
                  g.order_id, o.app_order_id,
                  'granted ' || CASE g.kind WHEN 'currency' THEN g.currency_amount || ' currency'
                    ELSE g.quantity || ' x ' || g.product_id END
                    || ' on ' || g.sid || '/' || g.role_id || ' (' || g.source || ')' AS detail,
                  NULL::text AS trust
                FROM item_grant g LEFT JOIN payment_order o ON o.order_id = g.order_id
                  LEFT JOIN store_transaction t ON t.id = o.transaction_id
                WHERE g.user_id = :user
                """),
        HistoryRead(
            kind: .notification,
            sql: """
                SELECT e.signed_date AS at, \(padded("e.id")) AS id, e.transaction_id, e.original_transaction_id,
                  NULL::text AS order_id, NULL::text AS app_order_id,
                  e.notification_type || coalesce('/' || e.subtype, '') || coalesce(' ' || e.product_id, '')
                    || ', uuid ' || e.notification_uuid || ', ' || e.provenance AS detail,
                  \(HistoryTrust.sql) AS trust
                FROM subscription s JOIN subscription_event e ON e.original_transaction_id = s.original_transaction_id
                WHERE s.user_id = :user
                """),
        restoreRead(
            at: "r.created_at", key: "a", condition: "",
            detail: "'prompt ' || r.id || ': restore ' || r.quantity || ' x ' || r.product_id || ' (' || r.status || ')'"),
        restoreRead(
            at: "r.resolved_at", key: "b", condition: "AND r.resolved_at IS NOT NULL",
            detail: """
                'prompt ' || r.id || ' ' || r.status || coalesce(' by ' || r.resolved_by, '') || coalesce(' (' || r.resolved_role || ')', '')
                  || coalesce(' onto ' || r.target_user_id || ' ' || r.target_sid || '/' || r.target_role_id, '')
                  || coalesce(': ' || r.reason, '')
                """),
        auditRead(ids: "NULL::text AS transaction_id, NULL::text AS original_transaction_id, NULL::text AS app_order_id, NULL::text AS order_id",
                  from: "audit_log a WHERE a.subject IN ('user ' || :user, :user)"),
        auditRead(ids: "t.id AS transaction_id, t.original_transaction_id, t.app_order_id, o.order_id",
                  from: """
                      store_transaction t JOIN audit_log a ON a.subject = 'transaction ' || t.id
                        LEFT JOIN payment_order o ON o.transaction_id = t.id
                      WHERE t.user_id = :user
                      """),
    ]

    /// A restore prompt's two moments: its opening (`a`) and its decision (`b`).
    static func restoreRead(at: String, key: String, condition: String, detail: String) -> HistoryRead {
        HistoryRead(
            kind: .restore,
            sql: """
                SELECT \(at) AS at, \(padded("r.id")) || '\(key)' AS id, r.transaction_id, t.original_transaction_id,
                  NULL::text AS order_id, t.app_order_id, \(detail) AS detail, NULL::text AS trust
                FROM restore_request r JOIN store_transaction t ON t.id = r.transaction_id
                WHERE r.user_id = :user \(condition)
                """)
    }

    /// Audit lines about the player, with the ids `ids` selects from `from`.
    static func auditRead(ids: String, from: String) -> HistoryRead {
        HistoryRead(
            kind: .audit,
            sql: """
                SELECT a.at, \(padded("a.id")) AS id, \(ids),
                  a.action || ' by ' || a.actor || ' (' || a.role || '): ' || a.detail AS detail, NULL::text AS trust
                FROM \(from)
                """)
    }
}
