import GRDB
import StoreDeskCore
import StoreDeskStoreAPI

/// `storedesk check`: SQLite's own integrity check plus the domain's invariants. Later features add
/// their invariants to `invariants`.
public enum StoreCheck {
    public typealias Violation = StoreCheckViolation

    /// One named rule: a query whose every row is a violation `(subject, message)`.
    struct Invariant {
        var invariant: StoreInvariant
        var sql: String
        var kind: String { invariant.rawValue }

        init(kind invariant: StoreInvariant, sql: String) {
            self.invariant = invariant
            self.sql = sql
        }
    }

    static let invariants: [Invariant] = [
        Invariant(
            kind: .storeClockInvalid,
            sql: """
                SELECT 'clock', 'store_meta clock ' || quote(value) || ' \(StoreMeta.clockProblem)'
                FROM store_meta WHERE key = 'clock'
                  AND (CAST(CAST(value AS INTEGER) AS TEXT) IS NOT CAST(value AS TEXT)
                       OR CAST(value AS INTEGER) NOT BETWEEN 0 AND \(Instant.supported.upperBound.millis))
                """),
        Invariant(
            kind: .schemaKeyMissing,
            sql: """
                SELECT k.tbl, 'table ' || k.tbl || ' has no unique key on ' || k.col
                  || ': its rows can no longer be told apart (the schema was changed outside StoreDesk)'
                FROM (\(keyColumns.map { "SELECT '\($0.table)' AS tbl, '\($0.column)' AS col" }.joined(separator: " UNION ALL "))) k
                WHERE EXISTS (SELECT 1 FROM sqlite_master m WHERE m.type = 'table' AND m.name = k.tbl)
                  AND NOT EXISTS (
                    SELECT 1 FROM pragma_index_list(k.tbl) l
                    WHERE l."unique" = 1 AND (SELECT group_concat(i.name) FROM pragma_index_info(l.name) i) = k.col)
                  AND NOT EXISTS (SELECT 1 FROM pragma_table_info(k.tbl) c WHERE c.name = k.col AND c.pk = 1 AND c.type = 'INTEGER')
                """),
        Invariant(
            kind: .userCountDrift,
            sql: """
                SELECT 'user_count', 'store_meta says ' || m.value || ' users but the table holds ' || (SELECT COUNT(*) FROM user)
                FROM store_meta m WHERE m.key = 'user_count' AND CAST(m.value AS INTEGER) != (SELECT COUNT(*) FROM user)
                """),
        Invariant(
            kind: .orderGrantedTwice,
            sql: """
                SELECT order_id, 'order ' || order_id || ' was granted ' || COUNT(*) || ' times'
                FROM item_grant GROUP BY order_id HAVING COUNT(*) > 1
                """),
        Invariant(
            kind: .grantWithoutOrder,
            sql: """
                SELECT CAST(g.id AS TEXT), 'grant ' || g.id || ' points at order ' || g.order_id || ', which does not exist'
                FROM item_grant g LEFT JOIN payment_order o ON o.order_id = g.order_id WHERE o.order_id IS NULL
                """),
        Invariant(
            kind: .orderPendingWithGrant,
            sql: """
                SELECT o.order_id, 'order ' || o.order_id || ' (transaction ' || o.transaction_id
                  || ') is pending but holds grant ' || g.id
                FROM payment_order o JOIN item_grant g ON g.order_id = o.order_id WHERE o.status = 'pending'
                """),
        Invariant(
            kind: .orderWithoutPayment,
            sql: """
                SELECT o.order_id, 'order ' || o.order_id || ' is for transaction ' || o.transaction_id || ', which is '
                  || t.state || ', not paid'
                FROM payment_order o JOIN store_transaction t ON t.id = o.transaction_id
                WHERE t.state NOT IN ('purchased', 'restored')
                """),
        Invariant(
            kind: .finishedPurchaseNotDelivered,
            sql: """
                SELECT t.id, 'transaction ' || t.id || ' (user ' || t.user_id || ', ' || t.product_id
                  || ') is purchased and finished but has no grant and no open restore request'
                FROM store_transaction t
                WHERE t.state = 'purchased' AND t.finished = 1
                  AND NOT EXISTS (SELECT 1 FROM payment_order o JOIN item_grant g ON g.order_id = o.order_id
                                  WHERE o.transaction_id = t.id)
                  AND NOT EXISTS (SELECT 1 FROM restore_request r WHERE r.transaction_id = t.id AND r.status = 'open')
                """),
        Invariant(
            kind: .acceptedCallbackGrants,
            sql: """
                SELECT c.order_id, 'order ' || c.order_id || ' has an accepted callback but '
                  || (SELECT COUNT(*) FROM item_grant g WHERE g.order_id = c.order_id) || ' grants'
                FROM server_callback c WHERE c.verdict = 'accepted'
                  AND (SELECT COUNT(*) FROM item_grant g WHERE g.order_id = c.order_id) != 1
                """),
        Invariant(
            kind: .orderAcceptedTwice,
            sql: """
                SELECT order_id, 'order ' || order_id || ' has ' || COUNT(*) || ' accepted callbacks'
                FROM server_callback WHERE verdict = 'accepted' GROUP BY order_id HAVING COUNT(*) > 1
                """),
        Invariant(
            kind: .grantWithoutAcceptedCallback,
            sql: """
                SELECT g.order_id, 'simulated order ' || g.order_id || ' was granted without an accepted callback'
                FROM item_grant g JOIN payment_order o ON o.order_id = g.order_id
                WHERE EXISTS (SELECT 1 FROM transaction_event e WHERE e.transaction_id = o.transaction_id)
                  AND NOT EXISTS (SELECT 1 FROM server_callback c WHERE c.order_id = g.order_id AND c.verdict = 'accepted')
                """),
        Invariant(
            kind: .droppedOrderGranted,
            sql: """
                SELECT e.transaction_id, 'transaction ' || e.transaction_id
                  || ' was dropped by a client crash but has an order or a grant without a confirmed restore'
                FROM transaction_event e
                WHERE e.kind = 'client_crashed'
                  AND EXISTS (SELECT 1 FROM payment_order o WHERE o.transaction_id = e.transaction_id)
                  AND NOT EXISTS (SELECT 1 FROM restore_request r WHERE r.transaction_id = e.transaction_id AND r.status = 'confirmed')
                """),
        Invariant(
            kind: .droppedOrderLost,
            sql: """
                SELECT e.transaction_id, 'transaction ' || e.transaction_id
                  || ' was dropped by a client crash but is no longer purchased and unfinished, and no restore was confirmed'
                FROM transaction_event e JOIN store_transaction t ON t.id = e.transaction_id
                WHERE e.kind = 'client_crashed' AND NOT (t.state = 'purchased' AND t.finished = 0)
                  AND NOT EXISTS (SELECT 1 FROM restore_request r WHERE r.transaction_id = t.id AND r.status = 'confirmed')
                """),
        Invariant(
            kind: .transactionRestoredTwice,
            sql: """
                SELECT transaction_id, 'transaction ' || transaction_id || ' has ' || COUNT(*) || ' confirmed restores'
                FROM restore_request WHERE status = 'confirmed' GROUP BY transaction_id HAVING COUNT(*) > 1
                UNION ALL
                SELECT o.transaction_id, 'transaction ' || o.transaction_id || ' was granted ' || COUNT(*) || ' times by restores'
                FROM item_grant g JOIN payment_order o ON o.order_id = g.order_id
                WHERE g.source = 'restore' GROUP BY o.transaction_id HAVING COUNT(*) > 1
                """),
        Invariant(
            kind: .confirmedRestoreGrants,
            sql: """
                SELECT r.transaction_id, 'the confirmed restore of transaction ' || r.transaction_id || ' has '
                  || (SELECT COUNT(*) FROM payment_order o JOIN item_grant g ON g.order_id = o.order_id
                      WHERE o.transaction_id = r.transaction_id) || ' grants, not 1'
                FROM restore_request r WHERE r.status = 'confirmed'
                  AND (SELECT COUNT(*) FROM payment_order o JOIN item_grant g ON g.order_id = o.order_id
                       WHERE o.transaction_id = r.transaction_id) != 1
                """),
        Invariant(
            kind: .servedSuccessWithoutGrant,
            sql: """
                SELECT c.order_id, 'the game server answered success to order ' || c.order_id || ' of ' || c.app_id
                  || ' but holds no grant for it'
                FROM game_server_callback c
                WHERE NOT EXISTS (SELECT 1 FROM game_server_grant g WHERE g.app_id = c.app_id AND g.order_id = c.order_id)
                UNION ALL
                SELECT g.order_id, 'the game server granted order ' || g.order_id || ' of ' || g.app_id
                  || ' from a callback it did not record as granting'
                FROM game_server_grant g JOIN game_server_callback c ON c.id = g.callback_id
                WHERE c.outcome != 'granted' OR c.order_id != g.order_id
                """),
        Invariant(
            kind: .eventWithoutTransaction,
            sql: """
                SELECT DISTINCT e.transaction_id, 'events for transaction ' || e.transaction_id || ', which does not exist'
                FROM transaction_event e
                WHERE e.kind NOT IN ('request_refused', 'purchase_refused')
                  AND NOT EXISTS (SELECT 1 FROM store_transaction t WHERE t.id = e.transaction_id)
                """),
    ] + subscriptionInvariants + [stampAfterClock]

    /// The keys rows are found and referenced by: a store whose table lost one (rebuilt by hand without
    /// `UNIQUE`) fails every write that references it with "foreign key mismatch".
    static var keyColumns: [(table: String, column: String)] { StoreCheckRules.keyColumns }

    /// A subscription row must not give access it no longer gives, and its dates must follow each other.
    /// "Now" is the store's clock (demo and seeded stores keep one); a store without one skips the
    /// expiry rule, since its rows were computed at the wall clock of their import.
    static let subscriptionInvariants: [Invariant] = [
        Invariant(
            kind: .subscriptionEntitledAfterRevocation,
            sql: """
                SELECT original_transaction_id, 'subscription ' || original_transaction_id || ' (user ' || user_id
                  || ') is ' || state || ' but was revoked on ' || \(iso("revocation_date"))
                FROM subscription WHERE state IN ('active', 'grace_period') AND revocation_date IS NOT NULL
                """),
        Invariant(
            kind: .subscriptionEntitledAfterExpiry,
            sql: """
                SELECT s.original_transaction_id, 'subscription ' || s.original_transaction_id || ' (user ' || s.user_id
                  || ') is ' || s.state || ' at the store clock ' || \(iso("c.now")) || ' but '
                  || CASE WHEN s.state = 'active' THEN 'its period ended ' || \(iso("s.expires_date"))
                     ELSE 'its grace period ended ' || \(iso("COALESCE(s.grace_period_expires_date, s.expires_date)")) END
                FROM subscription s JOIN (SELECT CAST(value AS INTEGER) AS now FROM store_meta WHERE key = 'clock') c
                WHERE (s.state = 'active' AND s.expires_date <= c.now)
                   OR (s.state = 'grace_period' AND COALESCE(s.grace_period_expires_date, s.expires_date) <= c.now)
                """),
        Invariant(
            kind: .subscriptionDatesOutOfOrder,
            sql: """
                SELECT original_transaction_id, 'subscription ' || original_transaction_id || ': ' || CASE
                  WHEN original_purchase_date > purchase_date THEN 'first bought ' || \(iso("original_purchase_date"))
                    || ', after its current period began ' || \(iso("purchase_date"))
                  WHEN expires_date <= purchase_date THEN 'expires ' || \(iso("expires_date"))
                    || ', not after its current period began ' || \(iso("purchase_date"))
                  WHEN grace_period_expires_date <= expires_date THEN 'its grace period ends '
                    || \(iso("grace_period_expires_date")) || ', not after the period it extends ' || \(iso("expires_date"))
                  WHEN revocation_date < purchase_date THEN 'revoked ' || \(iso("revocation_date"))
                    || ', before its current period began ' || \(iso("purchase_date"))
                  ELSE 'revoked without a revocation date' END
                FROM subscription
                WHERE original_purchase_date > purchase_date OR expires_date <= purchase_date
                   OR grace_period_expires_date <= expires_date OR revocation_date < purchase_date
                   OR (state = 'revoked' AND revocation_date IS NULL)
                """),
        Invariant(
            kind: .subscriptionEventWithoutSubscription,
            sql: """
                SELECT DISTINCT e.original_transaction_id, 'notifications for subscription ' || e.original_transaction_id
                  || ', which has no subscription row'
                FROM subscription_event e
                WHERE NOT EXISTS (SELECT 1 FROM subscription s WHERE s.original_transaction_id = e.original_transaction_id)
                  AND NOT (e.source = '\(SubscriptionEvent.Origin.support)' AND EXISTS (SELECT 1 FROM store_transaction t JOIN product p ON p.id = t.product_id
                    WHERE t.id = e.original_transaction_id AND p.type <> 'auto_renewable'))
                """),
    ]

    /// The columns a write stamps with the store's clock, which `StoreMeta.stamp` keeps at or before it.
    static var stampedColumns: [(table: String, column: String)] { StoreCheckRules.stampedColumns }

    /// A row stamped after the store's clock (or, in a store without one, after the latest stamp it
    /// remembers): one finding a column, with how many and the latest. Such a row says the time line ran
    /// back: a later write would be stamped before it.
    static let stampAfterClock = Invariant(
        kind: .stampAfterClock,
        sql: """
            WITH c(now) AS (
              SELECT MAX(CAST(value AS INTEGER)) FROM store_meta
              WHERE key IN ('clock', 'stamped_through') AND CAST(CAST(value AS INTEGER) AS TEXT) = CAST(value AS TEXT))
            SELECT s.col, s.col || ': ' || COUNT(*) || CASE WHEN COUNT(*) = 1 THEN ' row is' ELSE ' rows are' END
              || ' stamped after the store''s clock ' || \(iso("c.now")) || ', the latest ' || \(iso("MAX(s.stamp)"))
            FROM (\(stampedColumns.map { "SELECT '\($0.table).\($0.column)' AS col, \($0.column) AS stamp FROM \($0.table), c WHERE \($0.column) > c.now" }
                .joined(separator: " UNION ALL "))) s, c
            GROUP BY s.col ORDER BY s.col
            """)

    /// SQL for a millisecond column as `2026-11-20T08:00:00Z`; a value SQLite cannot write as a date (past
    /// year 9999, or not a number) is shown as it is, so no message is ever empty.
    static func iso(_ column: String) -> String {
        "COALESCE(strftime('%Y-%m-%dT%H:%M:%SZ', \(column) / 1000, 'unixepoch'), quote(\(column)) || ' ms')"
    }

    public static func run(_ db: Database) throws -> [Violation] {
        var violations: [Violation] = []
        for row in try String.fetchAll(db, sql: "PRAGMA integrity_check") where row != "ok" {
            violations.append(Violation(kind: "integrity", subject: "", message: row))
        }
        let foreignKeys: [Row]
        do {
            foreignKeys = try Row.fetchAll(db, sql: "PRAGMA foreign_key_check")
        } catch let error as DatabaseError where error.resultCode == .SQLITE_ERROR {
            // "foreign key mismatch": a referenced table lost the key its references need (`schema_key_missing`).
            foreignKeys = []
            violations.append(
                Violation(
                    kind: "schema", subject: "foreign_key",
                    message: "cannot check foreign keys: \(error.message ?? "SQLite error \(error.resultCode.rawValue)")"))
        }
        for row in foreignKeys {
            let table: String = try row.decode(atIndex: 0)
            let rowid: Int64? = try row.decode(atIndex: 1)
            let parent: String = try row.decode(atIndex: 2)
            violations.append(
                Violation(
                    kind: "foreign_key", subject: table,
                    message: "\(table) row \(rowid.map(String.init) ?? "?") points at a missing \(parent)"))
        }
        // What every other read needs first: the schema's tables and columns, the values the records decode.
        violations += try decodingViolations(db)
        for invariant in invariants {
            do {
                for row in try Row.fetchAll(db, sql: invariant.sql) {
                    let subject: String = try row.decode(String?.self, atIndex: 0) ?? ""
                    let message: String = try row.decode(String?.self, atIndex: 1) ?? ""
                    violations.append(
                        Violation(
                            kind: invariant.kind, subject: subject,
                            message: message.isEmpty ? "\(invariant.kind) on \(subject.isEmpty ? "the store" : subject)" : message))
                }
            } catch let error as DatabaseError where error.resultCode != .SQLITE_CORRUPT && error.resultCode != .SQLITE_NOTADB {
                // A table or column the rule reads is gone (a schema edited by hand): that is the finding,
                // and the other rules still run.
                violations.append(
                    StoreCheckRules.cannotCheck(invariant.kind, because: error.message ?? "SQLite error \(error.resultCode.rawValue)"))
            }
        }
        return violations
    }
}

extension AppDatabase {
    public func check() throws -> [StoreCheck.Violation] {
        do {
            return try reader.read { try StoreCheck.run($0) }
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CORRUPT || error.resultCode == .SQLITE_NOTADB {
            // Damage bad enough that SQLite stops reading is itself the finding.
            return [StoreCheck.Violation(kind: "integrity", subject: "", message: error.message ?? "the database disk image is malformed")]
        }
    }
}
