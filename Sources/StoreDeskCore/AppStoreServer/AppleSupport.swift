import Foundation

/// The support desk's Apple actions, decided the same way on every backend: a refund (REFUND), a refund
/// reversed (REFUND_REVERSED), a consumption request raised (CONSUMPTION_REQUEST). Each decision is a
/// refusal or the notification Apple would send, which the store writes into its notification log (a
/// subscription's through the subscription engine, which folds it into the subscription's state).
///
///     if let refusal = AppleSupport.refundRefusal(purchase) { throw … }
///     let event = AppleSupport.notification(.refund, info, renewal: nil, app: app, uuid: uuid, at: now)
public enum AppleSupport {
    /// The longest reason a support action keeps.
    public static let longestReason = 200

    /// Why a reason text is refused, or nil: one line, 1 to 200 characters, no control characters.
    public static func reasonProblem(_ text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty { return "a reason is needed: the audit log keeps why" }
        if trimmed.count > longestReason { return "the reason is \(trimmed.count) characters long; at most \(longestReason)" }
        if trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return "the reason holds a control character: one line of text, please"
        }
        return nil
    }

    /// Why a one-time purchase cannot be refunded now, or nil.
    public static func refundRefusal(_ transaction: StoreTransaction, product: Product) -> String? {
        if product.type == .autoRenewable { return nil }
        if transaction.revocationDate != nil {
            return transaction.revocationReason == RevocationKind.familySharing.rawValue
                ? "transaction \(transaction.id) was revoked by family sharing: nothing to refund"
                : "transaction \(transaction.id) is already refunded (reverse it with support unrefund)"
        }
        guard transaction.state == .purchased || transaction.state == .restored else {
            return "transaction \(transaction.id) is \(transaction.state.rawValue): only a purchase can be refunded"
        }
        return nil
    }

    /// Why a one-time purchase's refund cannot be reversed now, or nil.
    public static func reversalRefusal(_ transaction: StoreTransaction) -> String? {
        guard transaction.revocationDate != nil, transaction.revocationReason != RevocationKind.familySharing.rawValue else {
            return "transaction \(transaction.id) is not refunded: no refund to reverse"
        }
        return nil
    }

    /// Why a subscription cannot be refunded at `now`, or nil.
    public static func refundRefusal(_ subscription: Subscription, at now: Instant) -> String? {
        let state = subscription.info(at: now)?.state ?? subscription.state
        return state == .revoked ? "subscription \(subscription.id) is already revoked (reverse a refund with support unrefund)" : nil
    }

    /// Why a subscription's refund cannot be reversed at `now`, or nil.
    public static func reversalRefusal(_ subscription: Subscription, at now: Instant) -> String? {
        let state = subscription.info(at: now)?.state ?? subscription.state
        guard state == .revoked, subscription.revocationReason != RevocationKind.familySharing.rawValue else {
            return "subscription \(subscription.id) is \(state.rawValue), not refunded: no refund to reverse"
        }
        return nil
    }

    /// Why a consumption request cannot be raised for a purchase, or nil: only a consumable's, not
    /// refunded, one open at a time.
    public static func consumptionRefusal(
        _ transaction: StoreTransaction, product: Product, earlier: ConsumptionRequestRecord?, at now: Instant
    ) -> String? {
        guard product.type == .consumable else {
            return "\(product.id) is \(product.type.name), not a consumable: Apple asks for consumption information only for consumables"
        }
        if transaction.revocationDate != nil { return "transaction \(transaction.id) is already refunded" }
        if let earlier, case .open = earlier.standing(at: now) {
            return "transaction \(transaction.id) has a consumption request open until \(earlier.deadline.iso8601)"
        }
        return nil
    }

    /// Why a consumption request cannot take an answer at `now`, or nil (a missed deadline still takes
    /// one, marked late, as Apple still accepts it; an answered request is answered).
    public static func answerRefusal(_ request: ConsumptionRequestRecord?, transactionId: String) -> String? {
        guard let request else { return "transaction \(transactionId) has no consumption request" }
        if request.answeredAt != nil { return "the consumption request of \(transactionId) is answered already" }
        return nil
    }

    /// A purchase as the `signedTransactionInfo` of a notification (Apple's fields as `TransactionInfo`).
    public static func transactionInfo(
        _ transaction: StoreTransaction, product: Product, app: App, originalPurchaseDate: Instant?
    ) -> TransactionInfo {
        let isSubscription = product.type == .autoRenewable
        return TransactionInfo(
            transactionId: transaction.id, originalTransactionId: transaction.originalTransactionId, productId: product.id,
            subscriptionGroupIdentifier: isSubscription ? product.subscriptionGroup : nil, bundleId: app.bundleId,
            purchaseDate: transaction.purchaseDate, originalPurchaseDate: originalPurchaseDate ?? transaction.purchaseDate,
            expiresDate: isSubscription || product.type == .nonRenewing ? transaction.expiresDate : nil,
            revocationDate: transaction.revocationDate, environment: transaction.environment.rawValue,
            transactionReason: isSubscription && transaction.id != transaction.originalTransactionId ? "RENEWAL" : "PURCHASE",
            inAppOwnershipType: AppStorePayloads.ownership(transaction), type: AppStorePayloads.type(product.type),
            price: Int64(product.priceCents).clampedMultiplied(by: 10 * Int64(transaction.quantity)), currency: product.currency.uppercased(),
            storefront: AppStorePayloads.storefront(currency: product.currency).code, quantity: transaction.quantity,
            webOrderLineItemId: isSubscription ? AppleOrderId.of(transactionId: transaction.id) : nil)
    }

    /// The notification Apple sends for a support action, signed at `now`, as the store keeps it.
    public static func notification(
        _ type: NotificationType, _ transaction: TransactionInfo, renewal: RenewalInfo?, app: App, uuid: String, at now: Instant
    ) -> SubscriptionEvent {
        SubscriptionEvent(
            notificationType: type, notificationUUID: uuid, signedDate: now, appAppleId: app.appleAppId, bundleId: app.bundleId,
            environment: transaction.environment, transaction: transaction, renewal: renewal, provenance: .simulated)
    }

    /// A one-time purchase refunded (or its refund reversed) at `now`: the transaction as it is then
    /// stored, and the notification Apple sends. Nil with the refusal when it cannot be.
    public static func oneTime(
        _ transaction: StoreTransaction, product: Product, app: App, refund: Bool, appIssue: Bool, at now: Instant
    ) -> Result<(transaction: StoreTransaction, notification: SubscriptionEvent), OneTimeRefusal> {
        if let refusal = refund ? refundRefusal(transaction, product: product) : reversalRefusal(transaction) {
            return .failure(OneTimeRefusal(description: refusal))
        }
        var changed = transaction
        changed.revocationDate = refund ? now : nil
        changed.revocationReason = refund ? RevocationKind.refund.rawValue : nil
        var info = transactionInfo(changed, product: product, app: app, originalPurchaseDate: nil)
        info.revocationReason = refund ? (appIssue ? .appIssue : .other) : nil
        info.signedDate = now
        return .success((changed, notification(refund ? .refund : .refundReversed, info, renewal: nil, app: app, uuid: newUUID(), at: now)))
    }

    /// Why `oneTime` refused.
    public struct OneTimeRefusal: Error, Hashable, CustomStringConvertible {
        public var description: String
    }

    /// A subscription's REFUND (or REFUND_REVERSED) at `now`, from its notifications (or its latest stored
    /// transaction, or its row): signed a millisecond after its latest notification at least.
    public static func subscriptionRevocation(
        events: [SubscriptionEvent], subscription: Subscription, transaction: StoreTransaction?, product: Product, app: App,
        refund: Bool, appIssue: Bool, at now: Instant
    ) -> SubscriptionEvent {
        let latest = latest(events: events, subscription: subscription, transaction: transaction, product: product, app: app)
        let signed = signingInstant(now, after: events)
        return refund
            ? self.refund(latest: latest.transaction, renewal: latest.renewal, appIssue: appIssue, app: app, uuid: newUUID(), at: signed)
            : refundReversed(latest: latest.transaction, renewal: latest.renewal, app: app, uuid: newUUID(), at: signed)
    }

    /// A subscription's REFUND: its latest transaction revoked at `now` (`appIssue`: Apple's reason 1),
    /// auto-renew off. `latest` is the chain's latest transaction and renewal info as its notifications
    /// (or its purchase) say them.
    public static func refund(
        latest: TransactionInfo, renewal: RenewalInfo?, appIssue: Bool, app: App, uuid: String, at now: Instant
    ) -> SubscriptionEvent {
        var transaction = latest
        transaction.revocationDate = now
        transaction.revocationReason = appIssue ? .appIssue : .other
        transaction.signedDate = now
        var info = renewal
        info?.autoRenewStatus = 0
        info?.signedDate = now
        return notification(.refund, transaction, renewal: info, app: app, uuid: uuid, at: now)
    }

    /// A subscription's REFUND_REVERSED: the latest transaction without its revocation.
    public static func refundReversed(
        latest: TransactionInfo, renewal: RenewalInfo?, app: App, uuid: String, at now: Instant
    ) -> SubscriptionEvent {
        var transaction = latest
        transaction.revocationDate = nil
        transaction.revocationReason = nil
        transaction.signedDate = now
        var info = renewal
        info?.signedDate = now
        return notification(.refundReversed, transaction, renewal: info, app: app, uuid: uuid, at: now)
    }

    /// A subscription's RENEWAL_EXTENDED, signed at `at`: its latest transaction expiring at the
    /// extension's effective date.
    public static func renewalExtended(
        latest: TransactionInfo, renewal: RenewalInfo?, _ done: RenewalExtension, app: App, uuid: String, at: Instant
    ) -> SubscriptionEvent {
        var transaction = latest
        transaction.expiresDate = done.effectiveDate
        transaction.signedDate = at
        var info = renewal
        info?.renewalDate = done.effectiveDate
        info?.signedDate = at
        return notification(.renewalExtended, transaction, renewal: info, app: app, uuid: uuid, at: at)
    }

    /// When a support action's notification for a chain is signed: at `now`, but a millisecond after the
    /// chain's latest notification at least. The engine orders notifications of one instant by kind and
    /// then by UUID, so two actions at one instant (two extensions in one second) would fold in a random
    /// order; one after the other, they fold in the order they were done.
    public static func signingInstant(_ now: Instant, after events: [SubscriptionEvent]) -> Instant {
        guard let last = events.map(\.signedDate).max() else { return now }
        return max(now, Instant(millis: last.millis + 1))
    }

    /// A subscription's latest transaction and renewal info: as its notifications say them, else as its
    /// latest stored transaction does, else as its row does (a seeded subscription has no notifications).
    public static func latest(
        events: [SubscriptionEvent], subscription: Subscription, transaction: StoreTransaction?, product: Product, app: App
    ) -> (transaction: TransactionInfo, renewal: RenewalInfo?) {
        if let found = latest(of: events) { return found }
        let stored = transaction ?? StoreTransaction(
            id: subscription.id, originalTransactionId: subscription.id, userId: subscription.userId, appId: subscription.appId,
            productId: subscription.productId, state: .purchased, sid: "", purchaseDate: subscription.purchaseDate,
            expiresDate: subscription.expiresDate, finished: true)
        var info = transactionInfo(stored, product: product, app: app, originalPurchaseDate: subscription.originalPurchaseDate)
        info.expiresDate = subscription.expiresDate
        return (info, nil)
    }

    /// The chain's latest transaction and renewal info, as its notifications say them (nil when it has none).
    public static func latest(of events: [SubscriptionEvent]) -> (transaction: TransactionInfo, renewal: RenewalInfo?)? {
        let ordered = SubscriptionTimeline(events: events).events
        guard let transaction = ordered.last(where: { $0.transaction != nil })?.transaction else { return nil }
        return (transaction, ordered.last(where: { $0.renewal != nil })?.renewal)
    }

    /// A fresh notification UUID (Apple's are version 4, upper case).
    public static func newUUID() -> String { UUID().uuidString.uppercased() }
}
