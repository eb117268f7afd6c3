import StoreDeskCore

/// The support desk's Apple actions (refunds and their reversals, consumption requests and answers, renewal
/// extensions), written once for both backends over their transaction. `AppleSupport` (Core) decides inside
/// the write; a subscription's notification is taken in by the backend's importer (the engine folds it), a
/// one-time purchase's kept in the log beside them, the audit line with it, in one transaction. The rows a
/// write decides on are locked first (`FOR UPDATE` on PostgreSQL), so of two desks refunding one
/// subscription at once the second sees the first's refund.
public enum AppleSupportProcedures {
    public static func refund(
        _ db: some StoreSQLTransaction, _ id: String, reason: String, appIssue: Bool, by staff: StaffMember, at now: Instant
    ) throws -> AppleSupportOutcome {
        let now = try db.stamp(now)
        let done = try revocation(db, id, refund: true, appIssue: appIssue, at: now)
        try db.insert(AppleSupportWrites.refundAudit(done, reason: reason, appIssue: appIssue, by: staff, at: now))
        return done
    }

    public static func reverseRefund(_ db: some StoreSQLTransaction, _ id: String, reason: String, by staff: StaffMember, at now: Instant) throws
        -> AppleSupportOutcome
    {
        let now = try db.stamp(now)
        let done = try revocation(db, id, refund: false, appIssue: false, at: now)
        try db.insert(AppleSupportWrites.reversalAudit(done, reason: reason, by: staff, at: now))
        return done
    }

    /// A refund (or its reversal) decided and written: the transaction's revocation, the notification.
    static func revocation(_ db: some StoreSQLTransaction, _ id: String, refund: Bool, appIssue: Bool, at now: Instant) throws
        -> AppleSupportOutcome
    {
        let asked = try db.row("SELECT * FROM store_transaction WHERE id = \(id)\(.lockingRows)")?.transaction()
        let chainId = asked?.originalTransactionId ?? id
        if let subscription = try db.row("SELECT * FROM subscription WHERE original_transaction_id = \(chainId)\(.lockingRows)")?.subscription() {
            if let refusal = refund ? AppleSupport.refundRefusal(subscription, at: now) : AppleSupport.reversalRefusal(subscription, at: now) {
                throw AppleSupportWrites.refusal(refusal)
            }
            try db.recordBaseline(chain: chainId, at: now)
            guard let (product, app) = try catalogued(db, productId: subscription.productId, appId: subscription.appId) else {
                throw AppleSupportWrites.refusal("subscription \(chainId)'s product \(subscription.productId) is not in the catalogue")
            }
            let event = AppleSupport.subscriptionRevocation(
                events: try chainEvents(db, chain: chainId), subscription: subscription, transaction: try latestTransaction(db, chain: chainId),
                product: product, app: app, refund: refund, appIssue: appIssue, at: now)
            try importSupportNotification(db, event, at: event.signedDate)
            try db.execute(
                """
                UPDATE store_transaction SET revocation_date = \(refund ? now : nil), revocation_reason = \(refund ? RevocationKind.refund.rawValue : nil)
                WHERE id = \(event.transaction?.transactionId)
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
        try db.execute(
            """
            UPDATE store_transaction SET revocation_date = \(changed.revocationDate), revocation_reason = \(changed.revocationReason)
            WHERE id = \(transaction.id)
            """)
        try insertLogNotification(db, event, at: now)
        return AppleSupportOutcome(
            transactionId: transaction.id, originalTransactionId: transaction.originalTransactionId, userId: transaction.userId,
            productId: product.id, isSubscription: false, notification: event)
    }

    /// A subscription's notification taken in as an import would take it: the row folded again.
    static func importSupportNotification(_ db: some StoreSQLTransaction, _ event: SubscriptionEvent, at now: Instant) throws {
        let report = try db.importNotifications(SubscriptionEventLines(events: [event]), source: SubscriptionEvent.Origin.support, at: now)
        guard report.imported == 1 else {
            let why = report.lines.first?.outcome.reason ?? "not imported"
            throw AppleSupportWrites.refusal("the \(event.notificationType.rawValue) notification was refused: \(why)")
        }
    }

    /// A one-time purchase's notification, kept in the log beside the subscriptions' (the engine has no chain
    /// to fold for it). A writer of the log holds it shared from before it takes an id (`SerialKey.eventLog`).
    static func insertLogNotification(_ db: some StoreSQLTransaction, _ event: SubscriptionEvent, at now: Instant) throws {
        let payload = try event.jsonLine()
        try db.serialize(.eventLog)
        try db.execute(
            """
            INSERT INTO subscription_event (notification_uuid, original_transaction_id, notification_type, subtype, signed_date,
              transaction_id, product_id, provenance, payload, source, imported_at)
            VALUES (\(event.notificationUUID), \(event.transaction?.originalTransactionId ?? ""), \(event.notificationType.rawValue), NULL,
              \(event.signedDate), \(event.transaction?.transactionId), \(event.transaction?.productId), 'simulated', \(payload),
              \(SubscriptionEvent.Origin.support), \(now))
            """)
    }

    /// Apple's renewal date extension for one subscription (`extendRenewalDate`): decided by
    /// `RenewalExtension.decide` (a repeated request gives back the first's result), the row and its latest
    /// transaction moved, the extension kept, and the RENEWAL_EXTENDED notification taken in; nil when the
    /// store has no such subscription.
    public static func extendRenewalDate(
        _ db: some StoreSQLTransaction, originalTransactionId: String, _ request: RenewalExtensionRequest, actor: AuditActor, at now: Instant
    ) throws -> RenewalExtension? {
        // The subscription's row locked: of two machines extending it at once, the second sees the first's.
        guard let subscription = try db.row("SELECT * FROM subscription WHERE original_transaction_id = \(originalTransactionId)\(.lockingRows)")?
            .subscription()
        else { return nil }
        let earlier = try db.rows("SELECT * FROM apple_renewal_extension WHERE original_transaction_id = \(originalTransactionId) ORDER BY id")
            .map { try $0.renewalExtension() }
        let now = try db.stamp(now)
        let (done, repeated) = try RenewalExtension.decide(subscription, request, earlier: earlier, at: now)
        guard !repeated else { return done }
        // What the store knew before the extension moves the row: the chain's past, if it has no notification yet.
        try db.recordBaseline(chain: originalTransactionId, at: now)
        try db.execute("UPDATE subscription SET expires_date = \(done.effectiveDate) WHERE original_transaction_id = \(originalTransactionId)")
        try db.execute(
            """
            UPDATE store_transaction SET expires_date = \(done.effectiveDate) WHERE id = (SELECT id FROM store_transaction
              WHERE original_transaction_id = \(originalTransactionId) ORDER BY purchase_date DESC, id DESC LIMIT 1)
            """)
        try db.execute(
            """
            INSERT INTO apple_renewal_extension (original_transaction_id, request_identifier, extend_by_days, extend_reason_code,
              extended_at, previous_expires_date, effective_date, extended_by)
            VALUES (\(originalTransactionId), \(done.requestIdentifier), \(done.extendByDays), \(done.extendReasonCode),
              \(done.extendedAt), \(done.previousExpiresDate), \(done.effectiveDate), \(actor.name))
            """)
        try writeRenewalExtended(db, subscription, done)
        try db.insert(AppleAPIWrites.extensionAudit(done, actor: actor))
        return done
    }

    /// The RENEWAL_EXTENDED notification Apple sends for an extension, taken in by the engine (the
    /// subscription's row folds to the new expiry from its notifications, as later imports fold it).
    public static func writeRenewalExtended(_ db: some StoreSQLTransaction, _ subscription: Subscription, _ done: RenewalExtension) throws {
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

    public static func requestConsumption(
        _ db: some StoreSQLTransaction, transactionId: String, reason: String, by staff: StaffMember, at now: Instant
    ) throws -> ConsumptionRequestRecord {
        guard let transaction = try db.row("SELECT * FROM store_transaction WHERE id = \(transactionId)\(.lockingRows)")?.transaction() else {
            throw AppleSupportWrites.noPurchase(transactionId)
        }
        guard let (product, app) = try catalogued(db, productId: transaction.productId, appId: transaction.appId) else {
            throw AppleSupportWrites.refusal("transaction \(transactionId)'s product \(transaction.productId) is not in the catalogue")
        }
        let now = try db.stamp(now)
        let earlier = try consumptionRequest(db, transactionId)
        if let refusal = AppleSupport.consumptionRefusal(transaction, product: product, earlier: earlier, at: now) {
            throw AppleSupportWrites.refusal(refusal)
        }
        let request = ConsumptionRequestRecord(
            transactionId: transactionId, appId: app.id, userId: transaction.userId, productId: product.id, reason: reason, requestedAt: now,
            requestedBy: staff.name)
        try db.execute(
            """
            INSERT INTO apple_consumption_request (transaction_id, app_id, user_id, reason, requested_at, requested_by)
            VALUES (\(transactionId), \(app.id), \(transaction.userId), \(reason), \(now), \(staff.name))
            ON CONFLICT (transaction_id) DO UPDATE SET app_id = excluded.app_id, user_id = excluded.user_id, reason = excluded.reason,
              requested_at = excluded.requested_at, requested_by = excluded.requested_by, answered_at = NULL, answered_by = NULL,
              answer = NULL
            """)
        var info = AppleSupport.transactionInfo(transaction, product: product, app: app, originalPurchaseDate: nil)
        info.signedDate = now
        let event = AppleSupport.notification(.consumptionRequest, info, renewal: nil, app: app, uuid: AppleSupport.newUUID(), at: now)
        try insertLogNotification(db, event, at: now)
        try db.insert(AppleSupportWrites.consumptionRequestAudit(request, uuid: event.notificationUUID, by: staff))
        return request
    }

    public static func answerConsumption(
        _ db: some StoreSQLTransaction, transactionId: String, _ info: ConsumptionInformation, by actor: AuditActor, at now: Instant
    ) throws -> ConsumptionRequestRecord {
        let found = try consumptionRequest(db, transactionId, locking: true)
        if let refusal = AppleSupport.answerRefusal(found, transactionId: transactionId) { throw AppleSupportWrites.refusal(refusal) }
        guard var request = found else { throw AppleSupportWrites.noPurchase(transactionId) }
        let now = try db.stamp(now)
        request.answeredAt = now
        request.answeredBy = actor.name
        request.answer = info.json
        try db.execute(
            """
            UPDATE apple_consumption_request SET answered_at = \(now), answered_by = \(actor.name), answer = \(info.json)
            WHERE transaction_id = \(transactionId)
            """)
        try db.insert(AppleSupportWrites.consumptionAnswerAudit(request, by: actor))
        return request
    }

    /// The consumption requests, newest first, of one app or all.
    public static func consumptionRequests(_ db: some StoreSQLTransaction, appId: String?, limit: Int) throws -> [ConsumptionRequestRecord] {
        let app: StoreSQL = appId.map { " WHERE r.app_id = \($0)" } ?? ""
        return try db.rows("\(consumptionRequestSelect)\(app) ORDER BY r.requested_at DESC, r.transaction_id LIMIT \(limit)")
            .map { try $0.consumptionRequest() }
    }

    /// The subscriptions of a product that give access now, by id.
    public static func entitledSubscriptionIds(_ db: some StoreSQLTransaction, appId: String, productId: String) throws -> [String] {
        try db.texts(
            """
            SELECT original_transaction_id FROM subscription WHERE app_id = \(appId) AND product_id = \(productId)
              AND state IN ('active', 'grace_period') ORDER BY original_transaction_id
            """, column: "original_transaction_id")
    }

    /// A request with its transaction's product.
    static let consumptionRequestSelect: StoreSQL =
        "SELECT r.*, t.product_id FROM apple_consumption_request r LEFT JOIN store_transaction t ON t.id = r.transaction_id"

    static func consumptionRequest(_ db: some StoreSQLTransaction, _ transactionId: String, locking: Bool = false) throws
        -> ConsumptionRequestRecord?
    {
        try db.row("\(consumptionRequestSelect) WHERE r.transaction_id = \(transactionId)\(locking ? .lockingRowsOf("r") : nil)")?
            .consumptionRequest()
    }

    static func catalogued(_ db: some StoreSQLTransaction, productId: String, appId: String) throws -> (Product, App)? {
        guard let product = try db.row("SELECT * FROM product WHERE id = \(productId)")?.product(),
            let app = try db.row("SELECT * FROM app WHERE id = \(appId)")?.app()
        else { return nil }
        return (product, app)
    }

    static func latestTransaction(_ db: some StoreSQLTransaction, chain: String) throws -> StoreTransaction? {
        try db.row("SELECT * FROM store_transaction WHERE original_transaction_id = \(chain) ORDER BY purchase_date DESC, id DESC LIMIT 1")?
            .transaction()
    }

    static func chainEvents(_ db: some StoreSQLTransaction, chain: String) throws -> [SubscriptionEvent] {
        try db.rows("SELECT * FROM subscription_event WHERE original_transaction_id = \(chain) ORDER BY id").map { try $0.subscriptionEvent() }
    }
}

extension StoreColumns {
    public func consumptionRequest() throws -> ConsumptionRequestRecord {
        ConsumptionRequestRecord(
            transactionId: try text("transaction_id"), appId: try text("app_id"), userId: try text("user_id"),
            productId: try optionalText("product_id"), reason: try text("reason"), requestedAt: try instant("requested_at"),
            requestedBy: try text("requested_by"), answeredAt: try optionalInstant("answered_at"), answeredBy: try optionalText("answered_by"),
            answer: try optionalText("answer"))
    }

    public func renewalExtension() throws -> RenewalExtension {
        RenewalExtension(
            originalTransactionId: try text("original_transaction_id"), requestIdentifier: try text("request_identifier"),
            extendByDays: Int(try int("extend_by_days")), extendReasonCode: Int(try int("extend_reason_code")),
            extendedAt: try instant("extended_at"), previousExpiresDate: try instant("previous_expires_date"),
            effectiveDate: try instant("effective_date"))
    }
}
