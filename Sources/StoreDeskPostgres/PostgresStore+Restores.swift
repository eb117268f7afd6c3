import Foundation
import PostgresNIO
import StoreDeskCore
import StoreDeskStoreAPI

/// The restore desk on PostgreSQL. Core's `RestoreRules` decide; the reads and writes they take are written
/// once for both backends (`RestoreDeskProcedures`, over `PostgresTransaction`). A confirm or decline first
/// locks the prompt's row (`FOR UPDATE`), so of two consoles on two machines confirming one prompt the
/// second waits, then reads it confirmed and is refused; `restore_once`, `order_on_transaction` and
/// `grant_on_order` make a second delivery impossible even so.
extension PostgresStore: RestoreStore {
    public func restores(_ query: RestoreQuery) -> any ListPager<RestoreRow> { PostgresRestorePager(store: self, query: query) }

    public func restoreCounts() throws -> [RestoreStatus: Int] { try readOne { try RestoreDeskProcedures.counts($0) } }

    public func sandboxRestoreCounts() throws -> [RestoreStatus: Int] {
        try readOne { try RestoreDeskProcedures.counts($0, environment: .sandbox) }
    }

    public func restorePrompt(transactionId: String) throws -> RestorePrompt? {
        try session.transaction(readOnly: true) { db in try RestoreDeskProcedures.prompt(procedures(db), transactionId: transactionId) }
    }

    @discardableResult
    public func confirmRestore(transactionId: String, onto target: RestoreAccount, by staff: StaffMember, at now: Instant) throws
        -> RestorePrompt
    {
        guard !isReadOnly else { throw RestoreRefusal.readOnly }
        return try write { db in
            try RestoreDeskProcedures.confirm(procedures(db), transactionId: transactionId, onto: target, by: staff, at: now)
        }
    }

    @discardableResult
    public func declineRestore(transactionId: String, reason: String, by staff: StaffMember, at now: Instant) throws -> RestorePrompt {
        guard !isReadOnly else { throw RestoreRefusal.readOnly }
        return try write { db in
            try RestoreDeskProcedures.decline(procedures(db), transactionId: transactionId, reason: reason, by: staff, at: now)
        }
    }

    public func recordLogin(userId: String, at now: Instant) throws -> RestoreLogin {
        guard !isReadOnly else { throw RestoreRefusal.readOnly }
        return try write { db in try RestoreDeskProcedures.recordLogin(procedures(db), userId: userId, at: now) }
    }

    // MARK: The desk's SQL

    /// The restore desk's order numbers, with room for `count` more: its newest block, or a new one.
    func restoreDeskNumbers(_ db: PostgresSession.Transaction, needing count: Int, now: Instant) throws -> OrderNumbers {
        if let row = try db.rows("SELECT id, orders_issued FROM payment_run WHERE kind = 'restores' ORDER BY id DESC LIMIT 1 FOR UPDATE").first {
            let (run, issued) = try row.decode((Int64, Int64).self)
            if let numbers = OrderNumbers(run: run, issued: issued), OrderNumbers.blockSize - 1 - numbers.issued >= Int64(count) {
                return numbers
            }
        }
        let pid = Int64(ProcessInfo.processInfo.processIdentifier)
        let id = try db.rows(
            """
            INSERT INTO payment_run (kind, pid, started_at, heartbeat_at, ended_at)
            VALUES ('restores', \(pid), \(now.millis), \(now.millis), \(now.millis)) RETURNING id
            """
        ).first?.decode(Int64.self)
        guard let id, let numbers = OrderNumbers(run: id) else {
            throw StoreError.database(path: name, message: "every payment run number has been used")
        }
        return numbers
    }

    /// The rows of one payment step: a transaction or order updated in place when it exists, else
    /// inserted; its callback, grant and events appended.
    func write(_ change: PaymentChange, run: Int64? = nil, _ db: PostgresSession.Transaction) throws {
        try write([change], run: run, db)
    }

    /// The rows of many payment steps, a statement a table (many rows each): transactions and orders
    /// upserted (the latest state of each, once), then callbacks, grants and events appended in order,
    /// then the prompts a login opens.
    func write(_ changes: [PaymentChange], run: Int64? = nil, _ db: PostgresSession.Transaction) throws {
        let transactions = Self.latest(changes.compactMap(\.transaction), key: \.id)
        try insert(
            transactions.map { t -> [StoreValue] in
                [
                    .text(t.id), .text(t.originalTransactionId), .text(t.userId), .text(t.appId), .text(t.productId),
                    .integer(Int64(t.quantity)), .text(t.state.rawValue), Self.value(t.failureReason?.rawValue), .text(t.environment.rawValue),
                    .text(t.sid), .text(t.roleId), .text(t.appOrderId), .text(t.ext), .integer(t.purchaseDate.millis),
                    Self.value(t.expiresDate?.millis), Self.value(t.revocationDate?.millis), Self.value(t.revocationReason),
                    .integer(t.finished ? 1 : 0), Self.value(run),
                ]
            }, into: "store_transaction",
            columns: [
                "id", "original_transaction_id", "user_id", "app_id", "product_id", "quantity", "state", "failure_reason", "environment",
                "sid", "role_id", "app_order_id", "ext", "purchase_date", "expires_date", "revocation_date", "revocation_reason",
                "finished", "run_id",
            ],
            onConflict: """
                (id) DO UPDATE SET state = excluded.state, failure_reason = excluded.failure_reason,
                  expires_date = excluded.expires_date, revocation_date = excluded.revocation_date,
                  revocation_reason = excluded.revocation_reason, finished = excluded.finished
                """, db)
        try insert(
            Self.latest(changes.compactMap(\.order), key: \.id).map { o -> [StoreValue] in
                [
                    .text(o.id), .text(o.transactionId), .text(o.appId), .text(o.userId), .text(o.productId), .text(o.payment),
                    Self.value(o.subPayment), .integer(Int64(o.amountCents)), .text(o.sid), .text(o.roleId), .text(o.appOrderId), .text(o.ext),
                    .integer(o.createdAt.millis), .text(o.status.rawValue),
                ]
            }, into: "payment_order",
            columns: [
                "order_id", "transaction_id", "app_id", "user_id", "product_id", "payment", "sub_payment", "amount_cents", "sid", "role_id",
                "app_order_id", "ext", "created_at", "status",
            ],
            onConflict: "(order_id) DO UPDATE SET status = excluded.status", db)
        try insert(
            changes.compactMap(\.callback).map { c -> [StoreValue] in
                [
                    .text(c.orderId), .integer(Int64(c.attempt)), .text(c.body), .text(c.signExpected), .text(c.signReceived), .text(c.verdict),
                    .text(c.reason), .text(c.reply), .integer(c.receivedAt.millis), Self.value(c.url), Self.value(c.httpStatus.map(Int64.init)),
                    Self.value(c.latencyMicros.map(Int64.init)),
                ]
            }, into: "server_callback",
            columns: [
                "order_id", "attempt", "body", "sign_expected", "sign_received", "verdict", "reason", "reply", "received_at", "url",
                "http_status", "latency_us",
            ], db)
        try insert(
            changes.compactMap(\.grant).map { g -> [StoreValue] in
                [
                    .text(g.orderId), .text(g.userId), .text(g.sid), .text(g.roleId), .text(g.productId), .integer(Int64(g.quantity)),
                    .text(g.kind.rawValue), .integer(Int64(g.currencyAmount)), .text(g.source.rawValue), .integer(g.grantedAt.millis),
                ]
            }, into: "item_grant",
            columns: ["order_id", "user_id", "sid", "role_id", "product_id", "quantity", "kind", "currency_amount", "source", "granted_at"], db)
        try insert(changes.flatMap(\.events), db)
        for login in changes.compactMap(\.login) { _ = try RestoreDeskProcedures.openPrompts(procedures(db), login) }
    }

    func insert(_ event: PaymentEvent, _ db: PostgresSession.Transaction) throws { try insert([event], db) }

    func insert(_ events: [PaymentEvent], _ db: PostgresSession.Transaction) throws {
        try insert(
            events.map { [.text($0.transactionId), .integer($0.at.millis), .text($0.kind.rawValue), .text($0.detail)] },
            into: "transaction_event", columns: ["transaction_id", "at", "kind", "detail"], db)
    }

    /// Each key's last value, in the order of their first appearance (a row upserted once a statement).
    static func latest<T>(_ values: [T], key: (T) -> String) -> [T] {
        var order: [String] = [], last: [String: T] = [:]
        for value in values {
            let k = key(value)
            if last.updateValue(value, forKey: k) == nil { order.append(k) }
        }
        return order.map { last[$0]! }
    }

    static func value(_ text: String?) -> StoreValue { text.map { .text($0) } ?? .null }
    static func value(_ number: Int64?) -> StoreValue { number.map { .integer($0) } ?? .null }
}

/// The desk's list on PostgreSQL: each order a keyset over its index, either way; never OFFSET.
struct PostgresRestorePager: ListPager {
    let store: PostgresStore
    let query: RestoreQuery

    func cursor(of row: RestoreRow) -> RestoreCursor { row.cursor }

    func page(_ anchor: PageAnchor<RestoreCursor>, limit: Int) throws -> [RestoreRow] {
        try store.readOne { try ListProcedures.restorePage($0, query, anchor: anchor, limit: limit) }
    }

    func cursor(id: Int64?) throws -> RestoreCursor? {
        guard let id else { return nil }
        return try store.readOne { try ListProcedures.restoreCursor($0, id: id) }
    }

    func count() throws -> ListCount? { try store.readOne { try ListProcedures.restoreCount($0, query) } }
}
