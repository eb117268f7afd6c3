import PostgresNIO
import StoreDeskCore
import StoreDeskStoreAPI

/// The support desk's Apple actions on PostgreSQL (migration `pg5-apple-support`), decided by
/// `AppleSupport` inside the write as SQLite's store decides them; a subscription's row is locked first,
/// so of two desks refunding it at once the second sees the first's refund.
extension PostgresStore: AppleSupportStore {
    public func refund(_ id: String, reason: String, appIssue: Bool, by staff: StaffMember, at now: Instant) throws -> AppleSupportOutcome {
        try AppleSupportWrites.check(staff, readOnly: isReadOnly, reason: reason)
        return try write { db in
            let now = try stamp(now, in: db)
            let done = try revocation(db, id, refund: true, appIssue: appIssue, at: now)
            try insert(AppleSupportWrites.refundAudit(done, reason: reason, appIssue: appIssue, by: staff, at: now), db)
            return done
        }
    }

    public func reverseRefund(_ id: String, reason: String, by staff: StaffMember, at now: Instant) throws -> AppleSupportOutcome {
        try AppleSupportWrites.check(staff, readOnly: isReadOnly, reason: reason)
        return try write { db in
            let now = try stamp(now, in: db)
            let done = try revocation(db, id, refund: false, appIssue: false, at: now)
            try insert(AppleSupportWrites.reversalAudit(done, reason: reason, by: staff, at: now), db)
            return done
        }
    }

    private func catalogued(_ db: PostgresSession.Transaction, productId: String, appId: String) throws -> (Product, App)? {
        guard let product = try db.rows("SELECT * FROM product WHERE id = \(productId)").first.map({ try cells($0).product() }),
            let app = try db.rows("SELECT * FROM app WHERE id = \(appId)").first.map({ try cells($0).app() })
        else { return nil }
        return (product, app)
    }

    private func latestTransaction(_ db: PostgresSession.Transaction, chain: String) throws -> StoreTransaction? {
        try db.rows(
            "SELECT * FROM store_transaction WHERE original_transaction_id = \(chain) ORDER BY purchase_date DESC, id DESC LIMIT 1"
        ).first.map { try cells($0).transaction() }
    }

    private func chainEvents(_ db: PostgresSession.Transaction, chain: String) throws -> [SubscriptionEvent] {
        try db.rows("SELECT * FROM subscription_event WHERE original_transaction_id = \(chain) ORDER BY id").map { try cells($0).subscriptionEvent() }
    }

    private func revocation(_ db: PostgresSession.Transaction, _ id: String, refund: Bool, appIssue: Bool, at now: Instant) throws
        -> AppleSupportOutcome
    {
        let asked = try db.rows("SELECT * FROM store_transaction WHERE id = \(id) FOR UPDATE").first.map { try cells($0).transaction() }
        let chainId = asked?.originalTransactionId ?? id
        if let subscription = try db.rows("SELECT * FROM subscription WHERE original_transaction_id = \(chainId) FOR UPDATE")
            .first.map({ try cells($0).subscription() })
        {
            if let refusal = refund ? AppleSupport.refundRefusal(subscription, at: now) : AppleSupport.reversalRefusal(subscription, at: now) {
                throw AppleSupportWrites.refusal(refusal)
            }
            try recordBaseline(db, chain: chainId, at: now)
            guard let (product, app) = try catalogued(db, productId: subscription.productId, appId: subscription.appId) else {
                throw AppleSupportWrites.refusal("subscription \(chainId)'s product \(subscription.productId) is not in the catalogue")
            }
            let event = AppleSupport.subscriptionRevocation(
                events: try chainEvents(db, chain: chainId), subscription: subscription, transaction: try latestTransaction(db, chain: chainId),
                product: product, app: app, refund: refund, appIssue: appIssue, at: now)
            try importSupportNotification(db, event, at: event.signedDate)
            try db.run(
                """
                UPDATE store_transaction SET revocation_date = \(refund ? now.millis : nil),
                  revocation_reason = \(refund ? RevocationKind.refund.rawValue : nil) WHERE id = \(event.transaction?.transactionId)
                """)
            return AppleSupportOutcome(
                transactionId: event.transaction?.transactionId ?? chainId, originalTransactionId: chainId, userId: subscription.userId,
                productId: product.id, isSubscription: true, notification: event)
        }
        guard let transaction = asked else { throw AppleSupportWrites.noPurchase(id) }
        guard let (product, app) = try catalogued(db, productId: transaction.productId, appId: transaction.appId) else {
            throw AppleSupportWrites.refusal("transaction \(id)'s product \(transaction.productId) is not in the catalogue")
        }
        let (changed, event): (StoreTransaction, SubscriptionEvent)
        switch AppleSupport.oneTime(transaction, product: product, app: app, refund: refund, appIssue: appIssue, at: now) {
        case .success(let done): (changed, event) = done
        case .failure(let refusal): throw AppleSupportWrites.refusal(refusal.description)
        }
        try db.run(
            """
            UPDATE store_transaction SET revocation_date = \(changed.revocationDate?.millis),
              revocation_reason = \(changed.revocationReason) WHERE id = \(transaction.id)
            """)
        try insertLogNotification(db, event, at: now)
        return AppleSupportOutcome(
            transactionId: transaction.id, originalTransactionId: transaction.originalTransactionId, userId: transaction.userId,
            productId: product.id, isSubscription: false, notification: event)
    }

    /// A subscription's notification taken in as an import would take it: the row folded again.
    func importSupportNotification(_ db: PostgresSession.Transaction, _ event: SubscriptionEvent, at now: Instant) throws {
        let report = try PostgresNotificationImporter(store: self, db: db, source: SubscriptionEvent.Origin.support, wallClock: now, stampAt: now)
            .run(SubscriptionEventLines(events: [event]))
        guard report.imported == 1 else {
            let why = report.lines.first?.outcome.reason ?? "not imported"
            throw AppleSupportWrites.refusal("the \(event.notificationType.rawValue) notification was refused: \(why)")
        }
    }

    /// A one-time purchase's notification, kept in the log beside the subscriptions'.
    private func insertLogNotification(_ db: PostgresSession.Transaction, _ event: SubscriptionEvent, at now: Instant) throws {
        let payload = try event.jsonLine()
        try holdEventLog(db)
        try db.run(
            """
            INSERT INTO subscription_event (notification_uuid, original_transaction_id, notification_type, subtype, signed_date,
              transaction_id, product_id, provenance, payload, source, imported_at)
            VALUES (\(event.notificationUUID), \(event.transaction?.originalTransactionId ?? ""), \(event.notificationType.rawValue), NULL,
              \(event.signedDate.millis), \(event.transaction?.transactionId), \(event.transaction?.productId), 'simulated', \(payload),
              \(SubscriptionEvent.Origin.support), \(now.millis))
            """)
    }

    /// The RENEWAL_EXTENDED notification Apple sends for an extension, taken in by the engine.
    func writeRenewalExtended(_ db: PostgresSession.Transaction, _ subscription: Subscription, _ done: RenewalExtension) throws {
        guard let (product, app) = try catalogued(db, productId: subscription.productId, appId: subscription.appId) else { return }
        var before = subscription
        before.expiresDate = done.previousExpiresDate
        let events = try chainEvents(db, chain: subscription.id)
        let latest = AppleSupport.latest(
            events: events, subscription: before, transaction: try latestTransaction(db, chain: subscription.id), product: product, app: app)
        let signed = AppleSupport.signingInstant(done.extendedAt, after: events)
        let event = AppleSupport.renewalExtended(
            latest: latest.transaction, renewal: latest.renewal, done, app: app, uuid: AppleSupport.newUUID(), at: signed)
        try importSupportNotification(db, event, at: signed)
    }

    public func requestConsumption(transactionId: String, reason: String, by staff: StaffMember, at now: Instant) throws
        -> ConsumptionRequestRecord
    {
        try AppleSupportWrites.check(staff, readOnly: isReadOnly, reason: nil)
        try AppleSupportWrites.checkConsumptionReason(reason)
        return try write { db in
            guard let transaction = try db.rows("SELECT * FROM store_transaction WHERE id = \(transactionId) FOR UPDATE")
                .first.map({ try cells($0).transaction() })
            else { throw AppleSupportWrites.noPurchase(transactionId) }
            guard let (product, app) = try catalogued(db, productId: transaction.productId, appId: transaction.appId) else {
                throw AppleSupportWrites.refusal("transaction \(transactionId)'s product \(transaction.productId) is not in the catalogue")
            }
            let now = try stamp(now, in: db)
            let earlier = try consumptionRequest(db, transactionId)
            if let refusal = AppleSupport.consumptionRefusal(transaction, product: product, earlier: earlier, at: now) {
                throw AppleSupportWrites.refusal(refusal)
            }
            let request = ConsumptionRequestRecord(
                transactionId: transactionId, appId: app.id, userId: transaction.userId, productId: product.id, reason: reason, requestedAt: now,
                requestedBy: staff.name)
            try db.run(
                """
                INSERT INTO apple_consumption_request (transaction_id, app_id, user_id, reason, requested_at, requested_by)
                VALUES (\(transactionId), \(app.id), \(transaction.userId), \(reason), \(now.millis), \(staff.name))
                ON CONFLICT (transaction_id) DO UPDATE SET app_id = excluded.app_id, user_id = excluded.user_id, reason = excluded.reason,
                  requested_at = excluded.requested_at, requested_by = excluded.requested_by, answered_at = NULL, answered_by = NULL,
                  answer = NULL
                """)
            var info = AppleSupport.transactionInfo(transaction, product: product, app: app, originalPurchaseDate: nil)
            info.signedDate = now
            let event = AppleSupport.notification(.consumptionRequest, info, renewal: nil, app: app, uuid: AppleSupport.newUUID(), at: now)
            try insertLogNotification(db, event, at: now)
            try insert(AppleSupportWrites.consumptionRequestAudit(request, uuid: event.notificationUUID, by: staff), db)
            return request
        }
    }

    public func answerConsumption(transactionId: String, _ info: ConsumptionInformation, by actor: AuditActor, at now: Instant) throws
        -> ConsumptionRequestRecord
    {
        guard !isReadOnly else { throw AppleSupportWrites.refusal("the store is open read-only: nothing was changed") }
        return try write { db in
            let found = try consumptionRequest(db, transactionId, locking: true)
            if let refusal = AppleSupport.answerRefusal(found, transactionId: transactionId) { throw AppleSupportWrites.refusal(refusal) }
            guard var request = found else { throw AppleSupportWrites.noPurchase(transactionId) }
            let now = try stamp(now, in: db)
            request.answeredAt = now
            request.answeredBy = actor.name
            request.answer = info.json
            try db.run(
                """
                UPDATE apple_consumption_request SET answered_at = \(now.millis), answered_by = \(actor.name), answer = \(info.json)
                WHERE transaction_id = \(transactionId)
                """)
            try insert(AppleSupportWrites.consumptionAnswerAudit(request, by: actor), db)
            return request
        }
    }

    public func consumptionRequests(appId: String?, limit: Int) throws -> [ConsumptionRequestRecord] {
        let rows =
            if let appId {
                try session.rows(
                    """
                    SELECT r.*, t.product_id FROM apple_consumption_request r LEFT JOIN store_transaction t ON t.id = r.transaction_id
                    WHERE r.app_id = \(appId) ORDER BY r.requested_at DESC, r.transaction_id LIMIT \(Int64(limit))
                    """)
            } else {
                try session.rows(
                    """
                    SELECT r.*, t.product_id FROM apple_consumption_request r LEFT JOIN store_transaction t ON t.id = r.transaction_id
                    ORDER BY r.requested_at DESC, r.transaction_id LIMIT \(Int64(limit))
                    """)
            }
        return try rows.map { try cells($0).consumptionRequest() }
    }

    public func entitledSubscriptionIds(appId: String, productId: String) throws -> [String] {
        try session.rows(
            """
            SELECT original_transaction_id FROM subscription WHERE app_id = \(appId) AND product_id = \(productId)
              AND state IN ('active', 'grace_period') ORDER BY original_transaction_id
            """
        ).map { try $0.decode(String.self) }
    }

    private func consumptionRequest(_ db: PostgresSession.Transaction, _ transactionId: String, locking: Bool = false) throws
        -> ConsumptionRequestRecord?
    {
        let rows =
            locking
            ? try db.rows(
                """
                SELECT r.*, t.product_id FROM apple_consumption_request r LEFT JOIN store_transaction t ON t.id = r.transaction_id
                WHERE r.transaction_id = \(transactionId) FOR UPDATE OF r
                """)
            : try db.rows(
                """
                SELECT r.*, t.product_id FROM apple_consumption_request r LEFT JOIN store_transaction t ON t.id = r.transaction_id
                WHERE r.transaction_id = \(transactionId)
                """)
        return try rows.first.map { try cells($0).consumptionRequest() }
    }
}

extension PostgresCells {
    func consumptionRequest() throws -> ConsumptionRequestRecord {
        ConsumptionRequestRecord(
            transactionId: try text("transaction_id"), appId: try text("app_id"), userId: try text("user_id"),
            productId: try optionalText("product_id"), reason: try text("reason"),
            requestedAt: try instant("requested_at"), requestedBy: try text("requested_by"), answeredAt: try optionalInstant("answered_at"),
            answeredBy: try optionalText("answered_by"), answer: try optionalText("answer"))
    }
}
