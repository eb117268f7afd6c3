import StoreDeskCore

/// Each rule of `storedesk check` as SQL, written once for both backends: a query whose every row is a
/// finding `(subject, message)`. What the two dialects say differently is said here too, in one place: a
/// millisecond column as a date (`iso`), whether a text is a whole number and that number (`whole`,
/// `integer`), a text quoted for a message (`quote`), and the catalogue a table's keys are read from.
extension StoreInvariant {
    /// This rule's query in `dialect`.
    public func sql(_ dialect: StoreSQL.Dialect) -> String {
        InvariantSQL(dialect: dialect).sql(self)
    }
}

/// The rules' SQL in one dialect.
struct InvariantSQL {
    let dialect: StoreSQL.Dialect

    func sql(_ invariant: StoreInvariant) -> String {
        switch invariant {
        case .storeClockInvalid:
            return """
                SELECT 'clock', 'store_meta clock ' || \(quote("value")) || ' \(StoreCheckRules.clockProblem)'
                FROM store_meta WHERE key = 'clock'
                  AND CASE WHEN \(whole("value")) THEN \(integer("value")) NOT BETWEEN 0 AND \(Instant.supported.upperBound.millis) ELSE 1 = 1 END
                """
        case .schemaKeyMissing:
            return schemaKeyMissing
        case .userCountDrift:
            return """
                SELECT 'user_count', 'store_meta says ' || m.value || ' users but the table holds ' || (SELECT COUNT(*) FROM "user")
                FROM store_meta m WHERE m.key = 'user_count'
                  AND CASE WHEN \(whole("m.value")) THEN \(integer("m.value")) ELSE 0 END != (SELECT COUNT(*) FROM "user")
                """
        case .orderGrantedTwice:
            return """
                SELECT order_id, 'order ' || order_id || ' was granted ' || COUNT(*) || ' times'
                FROM item_grant GROUP BY order_id HAVING COUNT(*) > 1
                """
        case .grantWithoutOrder:
            return """
                SELECT CAST(g.id AS TEXT), 'grant ' || g.id || ' points at order ' || g.order_id || ', which does not exist'
                FROM item_grant g LEFT JOIN payment_order o ON o.order_id = g.order_id WHERE o.order_id IS NULL
                """
        case .orderPendingWithGrant:
            return """
                SELECT o.order_id, 'order ' || o.order_id || ' (transaction ' || o.transaction_id
                  || ') is pending but holds grant ' || g.id
                FROM payment_order o JOIN item_grant g ON g.order_id = o.order_id WHERE o.status = 'pending'
                """
        case .orderWithoutPayment:
            return """
                SELECT o.order_id, 'order ' || o.order_id || ' is for transaction ' || o.transaction_id || ', which is '
                  || t.state || ', not paid'
                FROM payment_order o JOIN store_transaction t ON t.id = o.transaction_id
                WHERE t.state NOT IN ('purchased', 'restored')
                """
        case .finishedPurchaseNotDelivered:
            return """
                SELECT t.id, 'transaction ' || t.id || ' (user ' || t.user_id || ', ' || t.product_id
                  || ') is purchased and finished but has no grant and no open restore request'
                FROM store_transaction t
                WHERE t.state = 'purchased' AND t.finished = 1
                  AND NOT EXISTS (SELECT 1 FROM payment_order o JOIN item_grant g ON g.order_id = o.order_id
                                  WHERE o.transaction_id = t.id)
                  AND NOT EXISTS (SELECT 1 FROM restore_request r WHERE r.transaction_id = t.id AND r.status = 'open')
                """
        case .acceptedCallbackGrants:
            return """
                SELECT c.order_id, 'order ' || c.order_id || ' has an accepted callback but '
                  || (SELECT COUNT(*) FROM item_grant g WHERE g.order_id = c.order_id) || ' grants'
                FROM server_callback c WHERE c.verdict = 'accepted'
                  AND (SELECT COUNT(*) FROM item_grant g WHERE g.order_id = c.order_id) != 1
                """
        case .orderAcceptedTwice:
            return """
                SELECT order_id, 'order ' || order_id || ' has ' || COUNT(*) || ' accepted callbacks'
                FROM server_callback WHERE verdict = 'accepted' GROUP BY order_id HAVING COUNT(*) > 1
                """
        case .grantWithoutAcceptedCallback:
            return """
                SELECT g.order_id, 'simulated order ' || g.order_id || ' was granted without an accepted callback'
                FROM item_grant g JOIN payment_order o ON o.order_id = g.order_id
                WHERE EXISTS (SELECT 1 FROM transaction_event e WHERE e.transaction_id = o.transaction_id)
                  AND NOT EXISTS (SELECT 1 FROM server_callback c WHERE c.order_id = g.order_id AND c.verdict = 'accepted')
                """
        case .droppedOrderGranted:
            return """
                SELECT e.transaction_id, 'transaction ' || e.transaction_id
                  || ' was dropped by a client crash but has an order or a grant without a confirmed restore'
                FROM transaction_event e
                WHERE e.kind = 'client_crashed'
                  AND EXISTS (SELECT 1 FROM payment_order o WHERE o.transaction_id = e.transaction_id)
                  AND NOT EXISTS (SELECT 1 FROM restore_request r WHERE r.transaction_id = e.transaction_id AND r.status = 'confirmed')
                """
        case .droppedOrderLost:
            return """
                SELECT e.transaction_id, 'transaction ' || e.transaction_id
                  || ' was dropped by a client crash but is no longer purchased and unfinished, and no restore was confirmed'
                FROM transaction_event e JOIN store_transaction t ON t.id = e.transaction_id
                WHERE e.kind = 'client_crashed' AND NOT (t.state = 'purchased' AND t.finished = 0)
                  AND NOT EXISTS (SELECT 1 FROM restore_request r WHERE r.transaction_id = t.id AND r.status = 'confirmed')
                """
        case .transactionRestoredTwice:
            return """
                SELECT transaction_id, 'transaction ' || transaction_id || ' has ' || COUNT(*) || ' confirmed restores'
                FROM restore_request WHERE status = 'confirmed' GROUP BY transaction_id HAVING COUNT(*) > 1
                UNION ALL
                SELECT o.transaction_id, 'transaction ' || o.transaction_id || ' was granted ' || COUNT(*) || ' times by restores'
                FROM item_grant g JOIN payment_order o ON o.order_id = g.order_id
                WHERE g.source = 'restore' GROUP BY o.transaction_id HAVING COUNT(*) > 1
                """
        case .confirmedRestoreGrants:
            return """
                SELECT r.transaction_id, 'the confirmed restore of transaction ' || r.transaction_id || ' has '
                  || (SELECT COUNT(*) FROM payment_order o JOIN item_grant g ON g.order_id = o.order_id
                      WHERE o.transaction_id = r.transaction_id) || ' grants, not 1'
                FROM restore_request r WHERE r.status = 'confirmed'
                  AND (SELECT COUNT(*) FROM payment_order o JOIN item_grant g ON g.order_id = o.order_id
                       WHERE o.transaction_id = r.transaction_id) != 1
                """
        case .servedSuccessWithoutGrant:
            return """
                SELECT c.order_id, 'the game server answered success to order ' || c.order_id || ' of ' || c.app_id
                  || ' but holds no grant for it'
                FROM game_server_callback c
                WHERE NOT EXISTS (SELECT 1 FROM game_server_grant g WHERE g.app_id = c.app_id AND g.order_id = c.order_id)
                UNION ALL
                SELECT g.order_id, 'the game server granted order ' || g.order_id || ' of ' || g.app_id
                  || ' from a callback it did not record as granting'
                FROM game_server_grant g JOIN game_server_callback c ON c.id = g.callback_id
                WHERE c.outcome != 'granted' OR c.order_id != g.order_id
                """
        case .eventWithoutTransaction:
            return """
                SELECT DISTINCT e.transaction_id, 'events for transaction ' || e.transaction_id || ', which does not exist'
                FROM transaction_event e
                WHERE e.kind NOT IN ('request_refused', 'purchase_refused')
                  AND NOT EXISTS (SELECT 1 FROM store_transaction t WHERE t.id = e.transaction_id)
                """
        case .subscriptionEntitledAfterRevocation:
            return """
                SELECT original_transaction_id, 'subscription ' || original_transaction_id || ' (user ' || user_id
                  || ') is ' || state || ' but was revoked on ' || \(iso("revocation_date"))
                FROM subscription WHERE state IN ('active', 'grace_period') AND revocation_date IS NOT NULL
                """
        case .subscriptionEntitledAfterExpiry:
            return """
                SELECT s.original_transaction_id, 'subscription ' || s.original_transaction_id || ' (user ' || s.user_id
                  || ') is ' || s.state || ' at the store clock ' || \(iso("c.now")) || ' but '
                  || CASE WHEN s.state = 'active' THEN 'its period ended ' || \(iso("s.expires_date"))
                     ELSE 'its grace period ended ' || \(iso("COALESCE(s.grace_period_expires_date, s.expires_date)")) END
                FROM subscription s JOIN (SELECT \(integer("value")) AS now FROM store_meta WHERE key = 'clock' AND \(whole("value"))) c ON 1 = 1
                WHERE (s.state = 'active' AND s.expires_date <= c.now)
                   OR (s.state = 'grace_period' AND COALESCE(s.grace_period_expires_date, s.expires_date) <= c.now)
                """
        case .subscriptionDatesOutOfOrder:
            return """
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
                """
        case .subscriptionEventWithoutSubscription:
            return """
                SELECT DISTINCT e.original_transaction_id, 'notifications for subscription ' || e.original_transaction_id
                  || ', which has no subscription row'
                FROM subscription_event e
                WHERE NOT EXISTS (SELECT 1 FROM subscription s WHERE s.original_transaction_id = e.original_transaction_id)
                  AND NOT (e.source = '\(SubscriptionEvent.Origin.support)' AND EXISTS (SELECT 1 FROM store_transaction t JOIN product p ON p.id = t.product_id
                    WHERE t.id = e.original_transaction_id AND p.type <> 'auto_renewable'))
                """
        case .stampAfterClock:
            return """
                WITH c(now) AS (
                  SELECT MAX(\(integer("value"))) FROM store_meta WHERE key IN ('clock', 'stamped_through') AND \(whole("value")))
                SELECT s.col, s.col || ': ' || COUNT(*) || CASE WHEN COUNT(*) = 1 THEN ' row is' ELSE ' rows are' END
                  || ' stamped after the store''s clock ' || \(iso("c.now")) || ', the latest ' || \(iso("MAX(s.stamp)"))
                FROM (\(StoreCheckRules.stampedColumns.map { #"SELECT '\#($0.table).\#($0.column)' AS col, "\#($0.column)" AS stamp FROM "\#($0.table)", c WHERE "\#($0.column)" > c.now"# }
                    .joined(separator: " UNION ALL "))) s, c
                GROUP BY s.col, c.now ORDER BY s.col
                """
        }
    }

    /// Every table that must have a unique key on its id column and lost it (rebuilt by hand without
    /// `UNIQUE`): a store whose table lost one fails every write that references it.
    var schemaKeyMissing: String {
        let found = """
            SELECT k.tbl, 'table ' || k.tbl || ' has no unique key on ' || k.col
              || ': its rows can no longer be told apart (the schema was changed outside StoreDesk)'
            """
        let keys = StoreCheckRules.keyColumns
        switch dialect {
        case .sqlite:
            return found + "\n" + """
                FROM (\(keys.map { "SELECT '\($0.table)' AS tbl, '\($0.column)' AS col" }.joined(separator: " UNION ALL "))) k
                WHERE EXISTS (SELECT 1 FROM sqlite_master m WHERE m.type = 'table' AND m.name = k.tbl)
                  AND NOT EXISTS (
                    SELECT 1 FROM pragma_index_list(k.tbl) l
                    WHERE l."unique" = 1 AND (SELECT group_concat(i.name) FROM pragma_index_info(l.name) i) = k.col)
                  AND NOT EXISTS (SELECT 1 FROM pragma_table_info(k.tbl) c WHERE c.name = k.col AND c.pk = 1 AND c.type = 'INTEGER')
                """
        case .postgres:
            return found + "\n" + """
                FROM (VALUES \(keys.map { "('\($0.table)', '\($0.column)')" }.joined(separator: ", "))) k(tbl, col)
                WHERE to_regclass(quote_ident(k.tbl)) IS NOT NULL
                  AND NOT EXISTS (
                    SELECT 1 FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
                    WHERE i.indrelid = to_regclass(quote_ident(k.tbl)) AND i.indisunique AND i.indnkeyatts = 1
                      AND i.indpred IS NULL AND a.attname = k.col)
                """
        }
    }

    /// SQL for a millisecond column as `2026-11-20T08:00:00Z`; a value that cannot be written as a date
    /// (past year 9999, or not a number) is shown as it is, so no message is ever empty.
    func iso(_ column: String) -> String {
        switch dialect {
        case .sqlite:
            "COALESCE(strftime('%Y-%m-%dT%H:%M:%SZ', \(column) / 1000, 'unixepoch'), quote(\(column)) || ' ms')"
        case .postgres:
            """
            CASE WHEN (\(column)) BETWEEN -62167219200000 AND 253402300799999
              THEN to_char(to_timestamp((\(column)) / 1000) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
              ELSE coalesce((\(column))::text, 'NULL') || ' ms' END
            """
        }
    }

    /// Whether a text column holds a whole number of milliseconds, as the store writes them.
    func whole(_ column: String) -> String {
        switch dialect {
        case .sqlite: "CAST(CAST(\(column) AS INTEGER) AS TEXT) = CAST(\(column) AS TEXT)"
        case .postgres: "\(column) ~ '^(0|-?[1-9][0-9]{0,17})$'"
        }
    }

    /// A text column's whole number (where `whole` holds).
    func integer(_ column: String) -> String {
        switch dialect {
        case .sqlite: "CAST(\(column) AS INTEGER)"
        case .postgres: "\(column)::bigint"
        }
    }

    /// A text quoted as an SQL literal, for a message.
    func quote(_ column: String) -> String {
        switch dialect {
        case .sqlite: "quote(\(column))"
        case .postgres: "quote_literal(\(column))"
        }
    }
}
