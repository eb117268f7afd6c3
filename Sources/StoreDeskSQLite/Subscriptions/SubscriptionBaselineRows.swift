import GRDB
import StoreDeskCore

/// `SubscriptionBaseline` on SQLite: before a chain that has a row takes its first notification (from an
/// import, `serve`, a support refund or an extension), what the store knew of it goes into the log, in
/// the same transaction, so the chain is folded from its past and not from that notification alone.
enum SubscriptionBaselineRows {
    /// Writes the chain's baseline when it has a row and no notification but (at most) `except`'s; returns
    /// the events written (none when the chain has notifications already, or no row).
    @discardableResult
    static func record(_ db: Database, chain: String, except uuid: String? = nil, at now: Instant) throws -> [SubscriptionEvent] {
        let others = try Int.fetchOne(
            db, sql: "SELECT 1 FROM subscription_event WHERE original_transaction_id = ? AND notification_uuid IS NOT ? LIMIT 1",
            arguments: [chain, uuid])
        guard others == nil,
            let row = try Subscription.fetchOne(db, sql: "SELECT * FROM subscription WHERE original_transaction_id = ?", arguments: [chain]),
            let app = try App.fetchOne(db, sql: "SELECT * FROM app WHERE id = ?", arguments: [row.appId])
        else { return [] }
        let transactions = try StoreTransaction.fetchAll(
            db, sql: "SELECT * FROM store_transaction WHERE original_transaction_id = ?", arguments: [chain])
        let ids = Set(transactions.map(\.productId) + [row.productId])
        let products = try Product.fetchAll(
            db, sql: "SELECT * FROM product WHERE id IN (\(Array(repeating: "?", count: ids.count).joined(separator: ", ")))",
            arguments: StatementArguments(Array(ids)))
        let events = SubscriptionBaseline.events(
            row: row, transactions: transactions, products: Dictionary(products.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a }),
            app: app, at: now)
        for event in events {
            try db.execute(
                sql: """
                    INSERT OR IGNORE INTO subscription_event (notification_uuid, original_transaction_id, notification_type, subtype, signed_date,
                      transaction_id, product_id, provenance, payload, source, imported_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, 'simulated', ?, ?, ?)
                    """,
                arguments: [
                    event.notificationUUID, chain, event.notificationType.rawValue, event.subtype?.rawValue, event.signedDate,
                    event.transaction?.transactionId, event.transaction?.productId, try event.jsonLine(), SubscriptionBaseline.source, now,
                ])
        }
        return events
    }
}
