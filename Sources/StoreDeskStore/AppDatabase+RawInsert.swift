import GRDB
import StoreDeskCore

extension AppDatabase {
    /// The benchmark's baseline: the rows of `changes` written with the raw prepared statements of
    /// `PaymentRowWriter`, `batch` changes per transaction, as `simulate` commits them.
    public func insertRaw(_ changes: [PaymentChange], batch: Int = 64) throws {
        var index = 0
        while index < changes.count {
            let slice = changes[index..<min(changes.count, index + batch)]
            index += batch
            try writer.write { db in
                let rows = try PaymentRowWriter(db)
                for change in slice { try rows.write(change) }
            }
        }
    }
}

/// Cached prepared statements for the payment queue's rows: one statement per table, arguments bound
/// by hand (no record encoding), so the hot path costs what SQLite costs. A transaction or order that
/// exists is updated in place (its state, finished flag, status), never deleted and re-inserted.
struct PaymentRowWriter {
    let db: Database
    let transaction: Statement
    let order: Statement
    let callback: Statement
    let grant: Statement
    let event: Statement

    init(_ db: Database) throws {
        self.db = db
        transaction = try db.cachedStatement(
            sql: """
                INSERT INTO store_transaction (id, original_transaction_id, user_id, app_id, product_id,
                  quantity, state, failure_reason, environment, sid, role_id, app_order_id, ext, purchase_date,
                  expires_date, revocation_date, revocation_reason, finished)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (id) DO UPDATE SET state = excluded.state, failure_reason = excluded.failure_reason,
                  expires_date = excluded.expires_date, revocation_date = excluded.revocation_date,
                  revocation_reason = excluded.revocation_reason, finished = excluded.finished
                """)
        order = try db.cachedStatement(
            sql: """
                INSERT INTO payment_order (order_id, transaction_id, app_id, user_id, product_id, payment,
                  sub_payment, amount_cents, sid, role_id, app_order_id, ext, created_at, status)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (order_id) DO UPDATE SET status = excluded.status
                """)
        callback = try db.cachedStatement(
            sql: """
                INSERT INTO server_callback (order_id, attempt, body, sign_expected, sign_received, verdict, reason,
                  reply, received_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
        grant = try db.cachedStatement(
            sql: """
                INSERT INTO item_grant (order_id, user_id, sid, role_id, product_id, quantity, kind, currency_amount,
                  source, granted_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
        event = try db.cachedStatement(
            sql: "INSERT INTO transaction_event (transaction_id, at, kind, detail) VALUES (?, ?, ?, ?)")
    }

    func write(_ change: PaymentChange) throws {
        if let t = change.transaction {
            try transaction.execute(arguments: [
                t.id, t.originalTransactionId, t.userId, t.appId, t.productId, t.quantity, t.state.rawValue,
                t.failureReason?.rawValue, t.environment.rawValue, t.sid, t.roleId, t.appOrderId, t.ext,
                t.purchaseDate.millis, t.expiresDate?.millis, t.revocationDate?.millis, t.revocationReason, t.finished,
            ])
        }
        if let o = change.order {
            try order.execute(arguments: [
                o.id, o.transactionId, o.appId, o.userId, o.productId, o.payment, o.subPayment, o.amountCents,
                o.sid, o.roleId, o.appOrderId, o.ext, o.createdAt.millis, o.status.rawValue,
            ])
        }
        if let c = change.callback {
            try callback.execute(arguments: [
                c.orderId, c.attempt, c.body, c.signExpected, c.signReceived, c.verdict, c.reason, c.reply,
                c.receivedAt.millis,
            ])
        }
        if let g = change.grant {
            try grant.execute(arguments: [
                g.orderId, g.userId, g.sid, g.roleId, g.productId, g.quantity, g.kind.rawValue, g.currencyAmount,
                g.source.rawValue, g.grantedAt.millis,
            ])
        }
        for e in change.events {
            try event.execute(arguments: [e.transactionId, e.at.millis, e.kind.rawValue, e.detail])
        }
        if let login = change.login { _ = try RestoreDesk.openPrompts(db, login) }
    }
}
