import GRDB
import StoreDeskCore

/// Which part of the payment queue (the unfinished transactions) to list.
public struct QueueQuery: Sendable, Hashable {
    public var state: TransactionState?
    public var userId: String?
    /// A product id, or a part of one.
    public var product: String?
    /// Matched anywhere in the transaction id, user id or product id.
    public var text: String?

    public init(state: TransactionState? = nil, userId: String? = nil, product: String? = nil, text: String? = nil) {
        self.state = state
        self.userId = userId
        self.product = product
        self.text = text
    }

    var whereClause: (sql: String, arguments: StatementArguments) {
        var terms = ["finished = 0"]
        var arguments: StatementArguments = []
        if let state {
            terms.append("state = ?")
            arguments += [state.rawValue]
        }
        if let userId {
            terms.append("user_id = ?")
            arguments += [userId]
        }
        if let product {
            terms.append("product_id LIKE ? ESCAPE '\\'")
            arguments += ["%" + Self.escapedForLike(product) + "%"]
        }
        if let text {
            let pattern = "%" + Self.escapedForLike(text) + "%"
            terms.append("(id LIKE ? ESCAPE '\\' OR user_id LIKE ? ESCAPE '\\' OR product_id LIKE ? ESCAPE '\\')")
            arguments += [pattern, pattern, pattern]
        }
        return (terms.joined(separator: " AND "), arguments)
    }

    static func escapedForLike(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_")
    }
}

/// Everything the queue screen's detail pane shows about one transaction.
public struct QueueDetail: Sendable, Hashable {
    public var transaction: StoreTransaction
    public var events: [PaymentEvent]
    public var order: PaymentOrder?
    public var callbacks: [CallbackAttempt]
    public var grant: Grant?
}

/// What happened in the store since a given event: for the queue's counters and throughput.
public struct EventTally: Sendable, Hashable {
    /// The newest event id seen.
    public var lastEventId: Int64
    public var kinds: [PaymentEvent.Kind: Int]
}

extension AppDatabase {
    /// A window of the queue, newest first.
    public func queueWindow(_ query: QueueQuery, offset: Int, limit: Int) throws -> [StoreTransaction] {
        let (filter, arguments) = query.whereClause
        return try reader.read { db in
            try StoreTransaction.fetchAll(
                db,
                sql: "SELECT * FROM store_transaction WHERE \(filter) ORDER BY purchase_date DESC, id DESC LIMIT ? OFFSET ?",
                arguments: arguments + [limit, offset])
        }
    }

    /// How many transactions wait in the queue, per state (all of them, whatever the filter).
    public func queueCounts() throws -> [TransactionState: Int] {
        try reader.read { db in
            var counts: [TransactionState: Int] = [:]
            let rows = try Row.fetchAll(db, sql: "SELECT state, COUNT(*) AS n FROM store_transaction WHERE finished = 0 GROUP BY state")
            for row in rows {
                if let state = TransactionState(rawValue: try row.decode(String.self, forColumn: "state")) {
                    counts[state] = try row.decode(Int.self, forColumn: "n")
                }
            }
            return counts
        }
    }

    /// How many events of each kind were written after `eventId` (all of them when nil: then only the
    /// newest id is read, so a console opened on a big store does not count its history).
    public func eventTally(after eventId: Int64?) throws -> EventTally {
        try reader.read { db in
            let last = try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM transaction_event") ?? 0
            guard let eventId else { return EventTally(lastEventId: last, kinds: [:]) }
            var kinds: [PaymentEvent.Kind: Int] = [:]
            let rows = try Row.fetchAll(
                db, sql: "SELECT kind, COUNT(*) AS n FROM transaction_event WHERE id > ? AND id <= ? GROUP BY kind",
                arguments: [eventId, last])
            for row in rows {
                if let kind = PaymentEvent.Kind(rawValue: try row.decode(String.self, forColumn: "kind")) {
                    kinds[kind] = try row.decode(Int.self, forColumn: "n")
                }
            }
            return EventTally(lastEventId: last, kinds: kinds)
        }
    }

    /// One transaction with its timeline, order, callbacks and grant.
    public func queueDetail(transactionId: String) throws -> QueueDetail? {
        try reader.read { db in
            guard let transaction = try StoreTransaction.fetchOne(db, matching: "id", transactionId) else { return nil }
            let events = try PaymentEvent.fetchAll(
                db, sql: "SELECT * FROM transaction_event WHERE transaction_id = ? ORDER BY id", arguments: [transactionId])
            let order = try PaymentOrder.fetchOne(db, sql: "SELECT * FROM payment_order WHERE transaction_id = ?", arguments: [transactionId])
            var callbacks: [CallbackAttempt] = []
            var grant: Grant?
            if let order {
                callbacks = try CallbackAttempt.fetchAll(
                    db, sql: "SELECT * FROM server_callback WHERE order_id = ? ORDER BY id", arguments: [order.id])
                grant = try Grant.fetchOne(db, sql: "SELECT * FROM item_grant WHERE order_id = ?", arguments: [order.id])
            }
            return QueueDetail(transaction: transaction, events: events, order: order, callbacks: callbacks, grant: grant)
        }
    }

    /// The work an earlier simulation left in flight (it was killed, or the console quit): unfinished
    /// transactions the simulator wrote, with their order and how many callbacks the server has had.
    /// Dropped orders (the client crashed) and transactions with a restore prompt are left to the restore desk.
    public func paymentsInFlight() throws -> [PaymentSimulation.InFlight] {
        try reader.read { db in
            let transactions = try StoreTransaction.fetchAll(
                db,
                sql: """
                    SELECT t.* FROM store_transaction t
                    WHERE t.finished = 0
                      AND EXISTS (SELECT 1 FROM transaction_event e WHERE e.transaction_id = t.id)
                      AND NOT EXISTS (SELECT 1 FROM transaction_event e WHERE e.transaction_id = t.id AND e.kind = 'client_crashed')
                      AND NOT EXISTS (SELECT 1 FROM restore_request r WHERE r.transaction_id = t.id)
                    ORDER BY t.purchase_date, t.id
                    """)
            return try transactions.map { t in
                let order = try PaymentOrder.fetchOne(db, sql: "SELECT * FROM payment_order WHERE transaction_id = ?", arguments: [t.id])
                let callbacks = try order.map {
                    try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM server_callback WHERE order_id = ?", arguments: [$0.id]) ?? 0
                } ?? 0
                return PaymentSimulation.InFlight(transaction: t, order: order, callbacks: callbacks)
            }
        }
    }

    /// `finishTransaction` on one transaction of the store, as the client would call it: refused while
    /// it is purchasing or deferred, or paid but not yet granted. The transaction and its event are
    /// written together.
    public func finishTransaction(id: String, at: Instant, by actor: String) throws -> Result<StoreTransaction, TransactionRefusal> {
        try writer.write { db in
            guard let transaction = try StoreTransaction.fetchOne(db, matching: "id", id), !transaction.finished else {
                return .failure(.notInQueue(transactionId: id))
            }
            if transaction.state == .purchased {
                let order = try PaymentOrder.fetchOne(db, sql: "SELECT * FROM payment_order WHERE transaction_id = ?", arguments: [id])
                guard order?.status == .granted else { return .failure(.notDelivered(orderId: order?.id)) }
            }
            switch TransactionStateMachine.apply(.finish, to: transaction) {
            case .failure(let refusal):
                return .failure(refusal)
            case .success(let finished):
                let event = PaymentEvent(
                    at: at, transactionId: id, kind: .finished,
                    detail: "finishTransaction by \(actor): removed from the queue (\(finished.state.rawValue))")
                try PaymentRowWriter(db).write(PaymentChange(transaction: finished, events: [event]))
                return .success(finished)
            }
        }
    }
}
