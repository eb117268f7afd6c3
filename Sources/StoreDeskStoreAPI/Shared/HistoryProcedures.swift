import StoreDeskCore

/// A player's whole story, newest first, written once for both backends: one read per kind of row, each
/// seeking on an index on the player's rows (`transaction_on_user`, then the transaction's events, order,
/// callbacks and audit lines; `grant_on_user`; `subscription_on_user` then the chain's notifications;
/// `restore_on_user`; `audit_on_subject_sequence`), each cut at the keyset `(at, kind, id)` of `before`
/// (`HistoryBound`) and at `limit`, merged in memory and cut again at `limit`. Ids compare byte by byte,
/// integer ids zero-padded to twenty digits.
public enum HistoryProcedures {
    public static func history(
        _ db: some StoreSQLTransaction, userId: String, kinds: Set<HistoryKind>, before: HistoryCursor?, limit: Int
    ) throws -> [HistoryEntry] {
        guard limit > 0 else { return [] }
        guard try db.exists(#"SELECT 1 FROM "user" WHERE id = \#(userId)"#) else { throw StoreError.unknownUser(id: userId) }
        var entries: [HistoryEntry] = []
        for page in pages(userId: userId, before: before, limit: limit, dialect: db.dialect) where kinds.isEmpty || kinds.contains(page.kind) {
            for row in try db.rows(page.sql) {
                entries.append(
                    HistoryEntry(
                        at: try row.instant("at"), kind: page.kind, id: try row.text("id"), transactionId: try row.optionalText("transaction_id"),
                        originalTransactionId: try row.optionalText("original_transaction_id"), orderId: try row.optionalText("order_id"),
                        appOrderId: try row.optionalText("app_order_id"), detail: try row.optionalText("detail") ?? "",
                        trust: try row.optionalText("trust").flatMap(HistoryTrust.init(rawValue:))))
            }
        }
        return Array(entries.sorted(by: HistoryEntry.newerFirst).prefix(limit))
    }

    /// The page of each read after `before`, newest first.
    public static func pages(userId: String, before: HistoryCursor?, limit: Int, dialect: StoreSQL.Dialect) -> [(kind: HistoryKind, sql: StoreSQL)] {
        reads(userId: userId, dialect: dialect).map { read in
            let bound: StoreSQL
            switch HistoryBound(before, kind: read.kind) {
            case .none: bound = ""
            case .atOrBefore(let at): bound = " WHERE at <= \(at)"
            case .before(let at): bound = " WHERE at < \(at)"
            case .beforeId(let at, let id): bound = " WHERE (at < \(at) OR (at = \(at) AND id\(.byteOrder) < \(id)))"
            }
            return (read.kind, "SELECT * FROM (\(read.sql)) h\(bound) ORDER BY at DESC, id\(.byteOrder) DESC LIMIT \(limit)")
        }
    }

    /// One read of a history: its kind and a SELECT naming the columns `at`, `id`, `transaction_id`,
    /// `original_transaction_id`, `order_id`, `app_order_id`, `detail`, `trust`, of the player's rows.
    struct Read {
        var kind: HistoryKind
        var sql: StoreSQL
    }

    static func reads(userId user: String, dialect: StoreSQL.Dialect) -> [Read] {
        // An integer id as text that sorts as the number does.
        func padded(_ column: String) -> String {
            dialect == .sqlite ? "printf('%020d', \(column))" : "lpad(CAST(\(column) AS TEXT), 20, '0')"
        }
        let none = "CAST(NULL AS TEXT)"
        // A restore prompt's two moments: its opening (`a`) and its decision (`b`), by `restore_on_user`.
        func restore(at: String, key: String, condition: String, detail: String) -> Read {
            Read(
                kind: .restore,
                sql: """
                    SELECT \(sql: at) AS at, \(sql: padded("r.id")) || '\(sql: key)' AS id, r.transaction_id, t.original_transaction_id,
                      \(sql: none) AS order_id, t.app_order_id, \(sql: detail) AS detail, \(sql: none) AS trust
                    FROM restore_request r JOIN store_transaction t ON t.id = r.transaction_id
                    WHERE r.user_id = \(user) \(sql: condition)
                    """)
        }
        // Audit lines by `audit_on_subject_sequence`, with the ids `ids` selects from `from`.
        func audit(ids: String, from: StoreSQL) -> Read {
            Read(
                kind: .audit,
                sql: """
                    SELECT a.at, \(sql: padded("a.id")) AS id, \(sql: ids),
                      a.action || ' by ' || a.actor || ' (' || a.role || '): ' || a.detail AS detail, \(sql: none) AS trust
                    FROM \(from)
                    """)
        }
        return [
            Read(
                kind: .transaction,
                sql: """
                    SELECT t.purchase_date AS at, t.id AS id, t.id AS transaction_id, t.original_transaction_id,
                      o.order_id, t.app_order_id,
                      t.product_id || ' x' || t.quantity || ' ' || t.state || coalesce(' (' || t.failure_reason || ')', '')
                        || CASE WHEN t.finished <> 0 THEN '' ELSE ', unfinished' END
                        || coalesce(', revoked ' || t.revocation_reason, '') || ', ' || t.environment AS detail,
                      \(sql: none) AS trust
                    FROM store_transaction t LEFT JOIN payment_order o ON o.transaction_id = t.id
                    WHERE t.user_id = \(user)
                    """),
            Read(
                kind: .state,
                sql: """
                    SELECT e.at, \(sql: padded("e.id")) AS id, t.id AS transaction_id, t.original_transaction_id,
                      o.order_id, t.app_order_id, e.kind || ': ' || e.detail AS detail, \(sql: none) AS trust
                    FROM store_transaction t JOIN transaction_event e ON e.transaction_id = t.id
                      LEFT JOIN payment_order o ON o.transaction_id = t.id
                    WHERE t.user_id = \(user)
                    """),
            Read(
                kind: .callback,
                sql: """
                    SELECT c.received_at AS at, \(sql: padded("c.id")) AS id, t.id AS transaction_id, t.original_transaction_id,
                      c.order_id, t.app_order_id,
                      'attempt ' || c.attempt || ' ' || c.verdict || CASE WHEN c.reason = '' THEN '' ELSE ' (' || c.reason || ')' END
                        || ', reply ' || c.reply AS detail,
                      \(sql: none) AS trust
                    FROM store_transaction t JOIN payment_order o ON o.transaction_id = t.id
                      JOIN server_callback c ON c.order_id = o.order_id
                    WHERE t.user_id = \(user)
                    """),
            Read(
                kind: .grant,
                sql: """
                    SELECT g.granted_at AS at, \(sql: padded("g.id")) AS id, o.transaction_id, t.original_transaction_id,
                      g.order_id, o.app_order_id,
                      'granted ' || CASE g.kind WHEN 'currency' THEN g.currency_amount || ' currency'
                        ELSE g.quantity || ' x ' || g.product_id END
                        || ' on ' || g.sid || '/' || g.role_id || ' (' || g.source || ')' AS detail,
                      \(sql: none) AS trust
                    FROM item_grant g LEFT JOIN payment_order o ON o.order_id = g.order_id
                      LEFT JOIN store_transaction t ON t.id = o.transaction_id
                    WHERE g.user_id = \(user)
                    """),
            Read(
                kind: .notification,
                sql: """
                    SELECT e.signed_date AS at, \(sql: padded("e.id")) AS id, e.transaction_id, e.original_transaction_id,
                      \(sql: none) AS order_id, \(sql: none) AS app_order_id,
                      e.notification_type || coalesce('/' || e.subtype, '') || coalesce(' ' || e.product_id, '')
                        || ', uuid ' || e.notification_uuid || ', ' || e.provenance AS detail,
                      \(sql: HistoryTrust.sql) AS trust
                    FROM subscription s JOIN subscription_event e ON e.original_transaction_id = s.original_transaction_id
                    WHERE s.user_id = \(user)
                    """),
            restore(
                at: "r.created_at", key: "a", condition: "",
                detail: "'prompt ' || r.id || ': restore ' || r.quantity || ' x ' || r.product_id || ' (' || r.status || ')'"),
            restore(
                at: "r.resolved_at", key: "b", condition: "AND r.resolved_at IS NOT NULL",
                detail: """
                    'prompt ' || r.id || ' ' || r.status || coalesce(' by ' || r.resolved_by, '') || coalesce(' (' || r.resolved_role || ')', '')
                      || coalesce(' onto ' || r.target_user_id || ' ' || r.target_sid || '/' || r.target_role_id, '')
                      || coalesce(': ' || r.reason, '')
                    """),
            // Audit lines name a player as `user ID` (a phone reveal; stores before 2026-12 wrote the bare id) or
            // a transaction by `transaction ID` (restores).
            audit(
                ids: "\(none) AS transaction_id, \(none) AS original_transaction_id, \(none) AS app_order_id, \(none) AS order_id",
                from: "audit_log a WHERE a.subject IN ('user ' || \(user), \(user))"),
            audit(
                ids: "t.id AS transaction_id, t.original_transaction_id, t.app_order_id, o.order_id",
                from: """
                    store_transaction t JOIN audit_log a ON a.subject = 'transaction ' || t.id
                      LEFT JOIN payment_order o ON o.transaction_id = t.id
                    WHERE t.user_id = \(user)
                    """),
        ]
    }
}
