import PostgresNIO
import StoreDeskCore
import StoreDeskStoreAPI

/// `SubscriptionBaseline` on PostgreSQL, as `SubscriptionBaselineRows` on SQLite: before a chain that
/// has a row takes its first notification, what the store knew of it goes into the log in the same
/// transaction, so the chain is folded from its past and not from that notification alone.
extension PostgresStore {
    /// Writes the chain's baseline when it has a row and no notification but (at most) `except`'s.
    func recordBaseline(_ db: PostgresSession.Transaction, chain: String, except uuid: String? = nil, at now: Instant) throws {
        let others = try db.rows(
            "SELECT 1 FROM subscription_event WHERE original_transaction_id = \(chain) AND notification_uuid IS DISTINCT FROM \(uuid) LIMIT 1")
        guard others.isEmpty,
            let row = try db.rows("SELECT * FROM subscription WHERE original_transaction_id = \(chain)").first.map({ try cells($0).subscription() }),
            let app = try db.rows("SELECT * FROM app WHERE id = \(row.appId)").first.map({ try cells($0).app() })
        else { return }
        let transactions = try db.rows("SELECT * FROM store_transaction WHERE original_transaction_id = \(chain)").map { try cells($0).transaction() }
        let products = try productsById(Array(Set(transactions.map(\.productId) + [row.productId])), db)
        let events = SubscriptionBaseline.events(row: row, transactions: transactions, products: products, app: app, at: now)
        guard !events.isEmpty else { return }
        try holdEventLog(db)
        for event in events {
            let payload = try event.jsonLine()
            try db.run(
                """
                INSERT INTO subscription_event (notification_uuid, original_transaction_id, notification_type, subtype, signed_date,
                  transaction_id, product_id, provenance, payload, source, imported_at)
                VALUES (\(event.notificationUUID), \(chain), \(event.notificationType.rawValue), \(event.subtype?.rawValue),
                  \(event.signedDate.millis), \(event.transaction?.transactionId), \(event.transaction?.productId), 'simulated', \(payload),
                  \(SubscriptionBaseline.source), \(now.millis))
                ON CONFLICT (notification_uuid) DO NOTHING
                """)
        }
    }
}
