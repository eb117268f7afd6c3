import Foundation
import GRDB
import StoreDeskStoreAPI
import StoreDeskCore

extension AppDatabase {
    /// The benchmark's baseline: the rows of `changes` written with the raw prepared statements of
    /// `PaymentRowWriter`, `batch` changes per transaction, as `simulate` commits them (tagged with
    /// `run`, without its heartbeat).
    public func insertRaw(_ changes: [PaymentChange], run: PaymentRun, batch: Int = 64) throws {
        var index = 0
        while index < changes.count {
            let slice = changes[index..<min(changes.count, index + batch)]
            index += batch
            try write { db in
                let rows = try PaymentRowWriter(db, run: run.id)
                for change in slice { try rows.write(change) }
            }
        }
    }
}

/// Cached prepared statements for the payment queue's rows, arguments bound by hand (no record
/// encoding), so the hot path costs what SQLite costs. A transaction or order that exists is updated in
/// place (its state, finished flag, status), never deleted and re-inserted: the update runs first, and
/// only a row it did not find is inserted. Most steps change a row the queue already holds, and an
/// update binds the few columns that change where an upsert binds and builds the whole row.
/// A transaction it inserts belongs to `run` (nil: to no run, as the restore desk's finished ones).
struct PaymentRowWriter {
    let db: Database
    let run: Int64?
    let transaction: BulkInsert
    let transactionUpdate: BulkInsert
    let order: BulkInsert
    let orderUpdate: BulkInsert
    let callback: BulkInsert
    let grant: BulkInsert
    let event: BulkInsert

    init(_ db: Database, run: Int64? = nil) throws {
        self.db = db
        self.run = run
        transaction = try BulkInsert(
            db,
            cachedSQL: """
                INSERT INTO store_transaction (id, original_transaction_id, user_id, app_id, product_id,
                  quantity, state, failure_reason, environment, sid, role_id, app_order_id, ext, purchase_date,
                  expires_date, revocation_date, revocation_reason, finished, run_id)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
        transactionUpdate = try BulkInsert(
            db,
            cachedSQL: """
                UPDATE store_transaction SET state = ?, failure_reason = ?, expires_date = ?, revocation_date = ?,
                  revocation_reason = ?, finished = ? WHERE id = ?
                """)
        order = try BulkInsert(
            db,
            cachedSQL: """
                INSERT INTO payment_order (order_id, transaction_id, app_id, user_id, product_id, payment,
                  sub_payment, amount_cents, sid, role_id, app_order_id, ext, created_at, status)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
        orderUpdate = try BulkInsert(db, cachedSQL: "UPDATE payment_order SET status = ? WHERE order_id = ?")
        callback = try BulkInsert(
            db,
            cachedSQL: """
                INSERT INTO server_callback (order_id, attempt, body, sign_expected, sign_received, verdict, reason,
                  reply, received_at, url, http_status, latency_us) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
        grant = try BulkInsert(
            db,
            cachedSQL: """
                INSERT INTO item_grant (order_id, user_id, sid, role_id, product_id, quantity, kind, currency_amount,
                  source, granted_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
        event = try BulkInsert(db, cachedSQL: "INSERT INTO transaction_event (transaction_id, at, kind, detail) VALUES (?, ?, ?, ?)")
    }

    func write(_ change: PaymentChange) throws {
        if let t = change.transaction, try transactionUpdate.run({ row in
            row.text(t.state.rawValue); row.text(t.failureReason?.rawValue); row.int(t.expiresDate?.millis)
            row.int(t.revocationDate?.millis); row.text(t.revocationReason); row.bool(t.finished); row.text(t.id)
        }) == 0 {
            try transaction.insert { row in
                row.text(t.id); row.text(t.originalTransactionId); row.text(t.userId); row.text(t.appId)
                row.text(t.productId); row.int(t.quantity); row.text(t.state.rawValue); row.text(t.failureReason?.rawValue)
                row.text(t.environment.rawValue); row.text(t.sid); row.text(t.roleId); row.text(t.appOrderId); row.text(t.ext)
                row.int(t.purchaseDate.millis); row.int(t.expiresDate?.millis); row.int(t.revocationDate?.millis)
                row.text(t.revocationReason); row.bool(t.finished); row.int(run)
            }
        }
        if let o = change.order, try orderUpdate.run({ row in row.text(o.status.rawValue); row.text(o.id) }) == 0 {
            try order.insert { row in
                row.text(o.id); row.text(o.transactionId); row.text(o.appId); row.text(o.userId); row.text(o.productId)
                row.text(o.payment); row.text(o.subPayment); row.int(o.amountCents); row.text(o.sid); row.text(o.roleId)
                row.text(o.appOrderId); row.text(o.ext); row.int(o.createdAt.millis); row.text(o.status.rawValue)
            }
        }
        if let c = change.callback {
            try callback.insert { row in
                row.text(c.orderId); row.int(c.attempt); row.text(c.body); row.text(c.signExpected); row.text(c.signReceived)
                row.text(c.verdict); row.text(c.reason); row.text(c.reply); row.int(c.receivedAt.millis)
                row.text(c.url); row.int(c.httpStatus.map(Int64.init)); row.int(c.latencyMicros.map(Int64.init))
            }
        }
        if let g = change.grant {
            try grant.insert { row in
                row.text(g.orderId); row.text(g.userId); row.text(g.sid); row.text(g.roleId); row.text(g.productId)
                row.int(g.quantity); row.text(g.kind.rawValue); row.int(g.currencyAmount); row.text(g.source.rawValue)
                row.int(g.grantedAt.millis)
            }
        }
        for e in change.events {
            try event.insert { row in
                row.text(e.transactionId); row.int(e.at.millis); row.text(e.kind.rawValue); row.text(e.detail)
            }
        }
        if let login = change.login { _ = try RestoreDeskProcedures.openPrompts(SQLiteTransaction(db: db, store: db.description), login) }
    }
}

extension AppDatabase {
    /// The baseline of `bench import`: SQLite itself inserting a JSON Lines file's lines as rows in a new
    /// file at `path`, their fields taken by json_extract, in one transaction. Returns the milliseconds
    /// from reading the file to the commit.
    public static func jsonExtractInsert(linesOf file: String, into path: String) throws -> Double {
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(sql: """
                CREATE TABLE notification (uuid TEXT PRIMARY KEY, original_transaction_id TEXT, type TEXT, subtype TEXT,
                  signed_date INTEGER, product_id TEXT, payload TEXT)
                """)
        }
        let start = DispatchTime.now()
        try queue.write { db in
            let insert = try db.makeStatement(sql: """
                INSERT INTO notification VALUES (json_extract(?1, '$.notificationUUID'),
                  json_extract(?1, '$.data.transactionInfo.originalTransactionId'), json_extract(?1, '$.notificationType'),
                  json_extract(?1, '$.subtype'), json_extract(?1, '$.signedDate'),
                  json_extract(?1, '$.data.transactionInfo.productId'), ?1)
                """)
            let text = try String(contentsOfFile: file, encoding: .utf8)
            for line in text.split(separator: "\n") { try insert.execute(arguments: [String(line)]) }
        }
        return Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1_000_000
    }
}
