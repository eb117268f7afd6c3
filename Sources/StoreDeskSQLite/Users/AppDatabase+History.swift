import GRDB
import StoreDeskCore
import StoreDeskStoreAPI

extension AppDatabase: HistoryStore {
    /// A player's whole story, newest first: one read per kind of row, each seeking on an index on the
    /// player's rows (`transaction_on_user`, then the transaction's events, order, callbacks and audit
    /// lines; `grant_on_user`; `subscription_on_user` then the chain's notifications; `restore_on_user`;
    /// `audit_on_subject_sequence`), each cut at the keyset `(at, kind, id)` of `before` and at `limit`,
    /// merged in memory and cut again at `limit`.
    public func history(userId: String, kinds: Set<HistoryKind>, before: HistoryCursor?, limit: Int) throws -> [HistoryEntry] {
        guard limit > 0 else { return [] }
        return try reader.read { db in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM user WHERE id = ?", arguments: [userId]) != nil else {
                throw StoreError.unknownUser(id: userId)
            }
            var entries: [HistoryEntry] = []
            for read in Self.historyReads where kinds.isEmpty || kinds.contains(read.kind) {
                let (sql, arguments) = Self.historyPage(read, userId: userId, before: before, limit: limit)
                for row in try Row.fetchAll(db, sql: sql, arguments: arguments) {
                    entries.append(
                        HistoryEntry(
                            at: Instant(millis: row["at"]), kind: read.kind, id: row["id"],
                            transactionId: row["transaction_id"], originalTransactionId: row["original_transaction_id"],
                            orderId: row["order_id"], appOrderId: row["app_order_id"], detail: row["detail"] ?? "",
                            trust: (row["trust"] as String?).flatMap(HistoryTrust.init(rawValue:))))
                }
            }
            return Array(entries.sorted(by: HistoryEntry.newerFirst).prefix(limit))
        }
    }

    /// One read of a history: its kind and a SELECT naming the columns `at`, `id`, `transaction_id`,
    /// `original_transaction_id`, `order_id`, `app_order_id`, `detail`, `trust`, filtered by `:user`.
    struct HistoryRead {
        var kind: HistoryKind
        var sql: String
    }

    /// The page of one read after `before`, newest first, with its arguments.
    static func historyPage(_ read: HistoryRead, userId: String, before: HistoryCursor?, limit: Int) -> (String, StatementArguments) {
        var arguments: [String: (any DatabaseValueConvertible)?] = ["user": userId, "limit": limit]
        var condition = ""
        switch HistoryBound(before, kind: read.kind) {
        case .none: break
        case .atOrBefore(let at):
            condition = "WHERE at <= :at"
            arguments["at"] = at.millis
        case .before(let at):
            condition = "WHERE at < :at"
            arguments["at"] = at.millis
        case .beforeId(let at, let id):
            condition = "WHERE (at < :at OR (at = :at AND id < :id))"
            (arguments["at"], arguments["id"]) = (at.millis, id)
        }
        let sql = "SELECT * FROM (\(read.sql)) \(condition) ORDER BY at DESC, id DESC LIMIT :limit"
        return (sql, StatementArguments(arguments))
    }

    static let historyReads: [HistoryRead] = [
        HistoryRead(
            kind: .transaction,
            sql: """
                SELECT t.purchase_date AS at, t.id AS id, t.id AS transaction_id, t.original_transaction_id,
                  o.order_id, t.app_order_id,
                  t.product_id || ' x' || t.quantity || ' ' || t.state || coalesce(' (' || t.failure_reason || ')', '')
                    || CASE WHEN t.finished THEN '' ELSE ', unfinished' END
                    || coalesce(', revoked ' || t.revocation_reason, '') || ', ' || t.environment AS detail,
                  NULL AS trust
                FROM store_transaction t LEFT JOIN payment_order o ON o.transaction_id = t.id
                WHERE t.user_id = :user
                """),
        HistoryRead(
            kind: .state,
            sql: """
                SELECT e.at, printf('%020d', e.id) AS id, t.id AS transaction_id, t.original_transaction_id,
                  o.order_id, t.app_order_id, e.kind || ': ' || e.detail AS detail, NULL AS trust
                FROM store_transaction t JOIN transaction_event e ON e.transaction_id = t.id
                  LEFT JOIN payment_order o ON o.transaction_id = t.id
                WHERE t.user_id = :user
                """),
        HistoryRead(
            kind: .callback,
            sql: """
                SELECT c.received_at AS at, printf('%020d', c.id) AS id, t.id AS transaction_id, t.original_transaction_id,
                  c.order_id, t.app_order_id,
                  'attempt ' || c.attempt || ' ' || c.verdict || CASE WHEN c.reason = '' THEN '' ELSE ' (' || c.reason || ')' END
                    || ', reply ' || c.reply AS detail,
                  NULL AS trust
                FROM store_transaction t JOIN payment_order o ON o.transaction_id = t.id
                  JOIN server_callback c ON c.order_id = o.order_id
                WHERE t.user_id = :user
                """),
        HistoryRead(
            kind: .grant,
            sql: """
                SELECT g.granted_at AS at, printf('%020d', g.id) AS id, o.transaction_id, t.original_transaction_id,
                  g.order_id, o.app_order_id,
                  'granted ' || CASE g.kind WHEN 'currency' THEN g.currency_amount || ' currency'
                    ELSE g.quantity || ' x ' || g.product_id END
                    || ' on ' || g.sid || '/' || g.role_id || ' (' || g.source || ')' AS detail,
                  NULL AS trust
                FROM item_grant g LEFT JOIN payment_order o ON o.order_id = g.order_id
                  LEFT JOIN store_transaction t ON t.id = o.transaction_id
                WHERE g.user_id = :user
                """),
        HistoryRead(
            kind: .notification,
            sql: """
                SELECT e.signed_date AS at, printf('%020d', e.id) AS id, e.transaction_id, e.original_transaction_id,
                  NULL AS order_id, NULL AS app_order_id,
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
        // Audit lines name a player as `user ID` (a phone reveal; stores before 2026-12 wrote the bare id) or a
        // transaction by `transaction ID` (restores).
        auditRead(ids: "NULL AS transaction_id, NULL AS original_transaction_id, NULL AS app_order_id, NULL AS order_id",
                  from: "audit_log a WHERE a.subject IN ('user ' || :user, :user)"),
        auditRead(ids: "t.id AS transaction_id, t.original_transaction_id, t.app_order_id, o.order_id",
                  from: """
                      store_transaction t JOIN audit_log a ON a.subject = 'transaction ' || t.id
                        LEFT JOIN payment_order o ON o.transaction_id = t.id
                      WHERE t.user_id = :user
                      """),
    ]

    /// A restore prompt's two moments: its opening (`a`) and its decision (`b`), by `restore_on_user`.
    static func restoreRead(at: String, key: String, condition: String, detail: String) -> HistoryRead {
        HistoryRead(
            kind: .restore,
            sql: """
                SELECT \(at) AS at, printf('%020d', r.id) || '\(key)' AS id, r.transaction_id, t.original_transaction_id,
                  NULL AS order_id, t.app_order_id, \(detail) AS detail, NULL AS trust
                FROM restore_request r JOIN store_transaction t ON t.id = r.transaction_id
                WHERE r.user_id = :user \(condition)
                """)
    }

    /// Audit lines by `audit_on_subject_sequence`, with the ids `ids` selects from `from`.
    static func auditRead(ids: String, from: String) -> HistoryRead {
        HistoryRead(
            kind: .audit,
            sql: """
                SELECT a.at, printf('%020d', a.id) AS id, \(ids),
                  a.action || ' by ' || a.actor || ' (' || a.role || '): ' || a.detail AS detail, NULL AS trust
                FROM \(from)
                """)
    }
}
