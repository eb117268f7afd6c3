import Foundation
import GRDB
import StoreDeskCore
import StoreDeskStoreAPI

/// The support desk's Apple actions on SQLite (migration `v21-apple-support`): `AppleSupport` decides
/// inside the write, the notification goes to `subscription_event` (a subscription's through the
/// `NotificationImporter`, so the engine folds it), the audit line with it, in one transaction.
extension AppDatabase: AppleSupportStore {
    public func refund(_ id: String, reason: String, appIssue: Bool, by staff: StaffMember, at now: Instant) throws -> AppleSupportOutcome {
        try AppleSupportWrites.check(staff, readOnly: isReadOnly, reason: reason)
        return try writeImmediate { db in
            let now = try StoreMeta.stamp(now, in: db)
            let done = try Self.revocation(db, id, refund: true, appIssue: appIssue, at: now)
            var audit = AppleSupportWrites.refundAudit(done, reason: reason, appIssue: appIssue, by: staff, at: now)
            try audit.insert(db)
            return done
        }
    }

    public func reverseRefund(_ id: String, reason: String, by staff: StaffMember, at now: Instant) throws -> AppleSupportOutcome {
        try AppleSupportWrites.check(staff, readOnly: isReadOnly, reason: reason)
        return try writeImmediate { db in
            let now = try StoreMeta.stamp(now, in: db)
            let done = try Self.revocation(db, id, refund: false, appIssue: false, at: now)
            var audit = AppleSupportWrites.reversalAudit(done, reason: reason, by: staff, at: now)
            try audit.insert(db)
            return done
        }
    }

    /// A refund (or its reversal) decided and written: the transaction's revocation, the notification.
    static func revocation(_ db: Database, _ id: String, refund: Bool, appIssue: Bool, at now: Instant) throws -> AppleSupportOutcome {
        let asked = try StoreTransaction.fetchOne(db, sql: "SELECT * FROM store_transaction WHERE id = ?", arguments: [id])
        let chainId = asked?.originalTransactionId ?? id
        if let subscription = try Subscription.fetchOne(
            db, sql: "SELECT * FROM subscription WHERE original_transaction_id = ?", arguments: [chainId])
        {
            if let refusal = refund ? AppleSupport.refundRefusal(subscription, at: now) : AppleSupport.reversalRefusal(subscription, at: now) {
                throw AppleSupportWrites.refusal(refusal)
            }
            try SubscriptionBaselineRows.record(db, chain: chainId, at: now)
            guard let product = try Product.fetchOne(db, sql: "SELECT * FROM product WHERE id = ?", arguments: [subscription.productId]),
                let app = try App.fetchOne(db, sql: "SELECT * FROM app WHERE id = ?", arguments: [subscription.appId])
            else { throw AppleSupportWrites.refusal("subscription \(chainId)'s product \(subscription.productId) is not in the catalogue") }
            let stored = try StoreTransaction.fetchOne(
                db, sql: "SELECT * FROM store_transaction WHERE original_transaction_id = ? ORDER BY purchase_date DESC, id DESC LIMIT 1",
                arguments: [chainId])
            let event = AppleSupport.subscriptionRevocation(
                events: try SubscriptionEventRow.events(db, originalTransactionIds: [chainId]), subscription: subscription,
                transaction: stored, product: product, app: app, refund: refund, appIssue: appIssue, at: now)
            try importSupportNotification(db, event, at: event.signedDate)
            try db.execute(
                sql: "UPDATE store_transaction SET revocation_date = ?, revocation_reason = ? WHERE id = ?",
                arguments: [refund ? now : nil, refund ? RevocationKind.refund.rawValue : nil, event.transaction?.transactionId])
            return AppleSupportOutcome(
                transactionId: event.transaction?.transactionId ?? chainId, originalTransactionId: chainId, userId: subscription.userId,
                productId: product.id, isSubscription: true, notification: event)
        }
        guard let transaction = asked else { throw AppleSupportWrites.noPurchase(id) }
        guard let product = try Product.fetchOne(db, sql: "SELECT * FROM product WHERE id = ?", arguments: [transaction.productId]),
            let app = try App.fetchOne(db, sql: "SELECT * FROM app WHERE id = ?", arguments: [transaction.appId])
        else { throw AppleSupportWrites.refusal("transaction \(id)'s product \(transaction.productId) is not in the catalogue") }
        let (changed, event): (StoreTransaction, SubscriptionEvent)
        switch AppleSupport.oneTime(transaction, product: product, app: app, refund: refund, appIssue: appIssue, at: now) {
        case .success(let done): (changed, event) = done
        case .failure(let refusal): throw AppleSupportWrites.refusal(refusal.description)
        }
        try db.execute(
            sql: "UPDATE store_transaction SET revocation_date = ?, revocation_reason = ? WHERE id = ?",
            arguments: [changed.revocationDate, changed.revocationReason, transaction.id])
        try insertLogNotification(db, event, at: now)
        return AppleSupportOutcome(
            transactionId: transaction.id, originalTransactionId: transaction.originalTransactionId, userId: transaction.userId,
            productId: product.id, isSubscription: false, notification: event)
    }

    /// A subscription's notification taken in as an import would take it: the row folded again.
    static func importSupportNotification(_ db: Database, _ event: SubscriptionEvent, at now: Instant) throws {
        let report = try NotificationImporter(db: db, source: SubscriptionEvent.Origin.support, wallClock: now, stampAt: now).run(SubscriptionEventLines(events: [event]))
        guard report.imported == 1 else {
            let why = report.lines.first?.outcome.reason ?? "not imported"
            throw AppleSupportWrites.refusal("the \(event.notificationType.rawValue) notification was refused: \(why)")
        }
    }

    /// A one-time purchase's notification, kept in the log beside the subscriptions' (the engine has no
    /// chain to fold for it).
    static func insertLogNotification(_ db: Database, _ event: SubscriptionEvent, at now: Instant) throws {
        try db.execute(
            sql: """
                INSERT INTO subscription_event (notification_uuid, original_transaction_id, notification_type, subtype, signed_date,
                  transaction_id, product_id, provenance, payload, source, imported_at)
                VALUES (?, ?, ?, NULL, ?, ?, ?, 'simulated', ?, ?, ?)
                """,
            arguments: [
                event.notificationUUID, event.transaction?.originalTransactionId, event.notificationType.rawValue, event.signedDate,
                event.transaction?.transactionId, event.transaction?.productId, try event.jsonLine(), SubscriptionEvent.Origin.support, now,
            ])
    }

    public func requestConsumption(transactionId: String, reason: String, by staff: StaffMember, at now: Instant) throws
        -> ConsumptionRequestRecord
    {
        try AppleSupportWrites.check(staff, readOnly: isReadOnly, reason: nil)
        try AppleSupportWrites.checkConsumptionReason(reason)
        return try writeImmediate { db in
            guard let transaction = try StoreTransaction.fetchOne(db, sql: "SELECT * FROM store_transaction WHERE id = ?", arguments: [transactionId])
            else { throw AppleSupportWrites.noPurchase(transactionId) }
            guard let product = try Product.fetchOne(db, sql: "SELECT * FROM product WHERE id = ?", arguments: [transaction.productId]),
                let app = try App.fetchOne(db, sql: "SELECT * FROM app WHERE id = ?", arguments: [transaction.appId])
            else { throw AppleSupportWrites.refusal("transaction \(transactionId)'s product \(transaction.productId) is not in the catalogue") }
            let now = try StoreMeta.stamp(now, in: db)
            let earlier = try Self.consumptionRequest(db, transactionId)
            if let refusal = AppleSupport.consumptionRefusal(transaction, product: product, earlier: earlier, at: now) {
                throw AppleSupportWrites.refusal(refusal)
            }
            let request = ConsumptionRequestRecord(
                transactionId: transactionId, appId: app.id, userId: transaction.userId, productId: product.id, reason: reason, requestedAt: now,
                requestedBy: staff.name)
            try db.execute(
                sql: """
                    INSERT OR REPLACE INTO apple_consumption_request (transaction_id, app_id, user_id, reason, requested_at, requested_by,
                      answered_at, answered_by, answer) VALUES (?, ?, ?, ?, ?, ?, NULL, NULL, NULL)
                    """, arguments: [transactionId, app.id, transaction.userId, reason, now, staff.name])
            var info = AppleSupport.transactionInfo(transaction, product: product, app: app, originalPurchaseDate: nil)
            info.signedDate = now
            let event = AppleSupport.notification(.consumptionRequest, info, renewal: nil, app: app, uuid: AppleSupport.newUUID(), at: now)
            try Self.insertLogNotification(db, event, at: now)
            var audit = AppleSupportWrites.consumptionRequestAudit(request, uuid: event.notificationUUID, by: staff)
            try audit.insert(db)
            return request
        }
    }

    public func answerConsumption(transactionId: String, _ info: ConsumptionInformation, by actor: AuditActor, at now: Instant) throws
        -> ConsumptionRequestRecord
    {
        guard !isReadOnly else { throw AppleSupportWrites.refusal("the store is open read-only: nothing was changed") }
        return try writeImmediate { db in
            let found = try Self.consumptionRequest(db, transactionId)
            if let refusal = AppleSupport.answerRefusal(found, transactionId: transactionId) { throw AppleSupportWrites.refusal(refusal) }
            guard var request = found else { throw AppleSupportWrites.noPurchase(transactionId) }
            let now = try StoreMeta.stamp(now, in: db)
            request.answeredAt = now
            request.answeredBy = actor.name
            request.answer = info.json
            try db.execute(
                sql: "UPDATE apple_consumption_request SET answered_at = ?, answered_by = ?, answer = ? WHERE transaction_id = ?",
                arguments: [now, actor.name, info.json, transactionId])
            var audit = AppleSupportWrites.consumptionAnswerAudit(request, by: actor)
            try audit.insert(db)
            return request
        }
    }

    public func consumptionRequests(appId: String?, limit: Int) throws -> [ConsumptionRequestRecord] {
        try reader.read { db in
            let rows =
                if let appId {
                    try Row.fetchAll(
                        db, sql: Self.consumptionRequestSelect + " WHERE r.app_id = ? ORDER BY r.requested_at DESC, r.transaction_id LIMIT ?",
                        arguments: [appId, limit])
                } else {
                    try Row.fetchAll(
                        db, sql: Self.consumptionRequestSelect + " ORDER BY r.requested_at DESC, r.transaction_id LIMIT ?", arguments: [limit])
                }
            return try rows.map(ConsumptionRequestRecord.init(row:))
        }
    }

    public func entitledSubscriptionIds(appId: String, productId: String) throws -> [String] {
        try reader.read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT original_transaction_id FROM subscription WHERE app_id = ? AND product_id = ?
                      AND state IN ('active', 'grace_period') ORDER BY original_transaction_id
                    """, arguments: [appId, productId])
        }
    }

    /// A request with its transaction's product.
    static let consumptionRequestSelect = """
        SELECT r.*, t.product_id FROM apple_consumption_request r LEFT JOIN store_transaction t ON t.id = r.transaction_id
        """

    static func consumptionRequest(_ db: Database, _ transactionId: String) throws -> ConsumptionRequestRecord? {
        try Row.fetchOne(db, sql: consumptionRequestSelect + " WHERE r.transaction_id = ?", arguments: [transactionId])
            .map(ConsumptionRequestRecord.init(row:))
    }
}

extension ConsumptionRequestRecord {
    init(row: Row) throws {
        self.init(
            transactionId: try row.decode(forColumn: "transaction_id"), appId: try row.decode(forColumn: "app_id"),
            userId: try row.decode(forColumn: "user_id"), productId: try row.decode(forColumn: "product_id"), reason: try row.decode(forColumn: "reason"),
            requestedAt: try row.decode(forColumn: "requested_at"), requestedBy: try row.decode(forColumn: "requested_by"),
            answeredAt: try row.decode(forColumn: "answered_at"), answeredBy: try row.decode(forColumn: "answered_by"),
            answer: try row.decode(forColumn: "answer"))
    }
}
