import Foundation

/// Restore Purchases (the SDK's `restoreCompletedTransactions`) for one game account: every past
/// non-consumable and auto-renewable purchase of its Apple ID in its app comes back as a new
/// `restored` transaction and unlocks on that account without a new charge, as far as the app's
/// ownership rule lets it move.
///
/// Who holds a purchase follows from its grants and the rule: `transfer` — the last account it was
/// granted to; `keep` — the first; `share` — every one. An account that already holds it gets nothing
/// new; under `keep`, another account is refused.
///
///     let plan = RestorePurchases.plan(for: account, app: app, purchases: past, products: catalogue,
///                                      orderNumbers: desk, by: staff, at: now)
///     plan.items.map(\.outcome)   // [.restored(…), .alreadyUnlocked, .kept(owner: …)]
public enum RestorePurchases {
    /// One past purchase as the store knows it.
    public struct PastPurchase: Hashable, Sendable {
        /// The newest transaction with this original transaction id (a renewal, or an earlier restore).
        public var latest: StoreTransaction
        public var product: Product
        /// The accounts it was granted to, oldest first.
        public var holders: [RestoreAccount]
        /// How many transactions carry this original id so far (numbers the new restored one).
        public var transactionCount: Int

        public init(latest: StoreTransaction, product: Product, holders: [RestoreAccount], transactionCount: Int) {
            self.latest = latest
            self.product = product
            self.holders = holders
            self.transactionCount = transactionCount
        }

        /// The id the next restored transaction of this purchase gets.
        public var restoredTransactionId: String { latest.originalTransactionId + "-R" + String(transactionCount) }

        /// Who holds it now under `rule`: without any grant, the account that bought it.
        public func owners(under rule: RestoreOwnership) -> [RestoreAccount] {
            guard let first = holders.first, let last = holders.last else {
                return [RestoreAccount(paying: latest)]
            }
            switch rule {
            case .transfer: return [last]
            case .keep: return [first]
            case .share: return holders.reduce(into: []) { unique, holder in
                    if !unique.contains(where: { $0.isSameRole(as: holder) }) { unique.append(holder) }
                }
            }
        }
    }

    public enum Outcome: Hashable, Sendable {
        /// Came back as `restored` and unlocked on the account: the order, its callback and the grant.
        case restored(RestoreDelivery)
        case alreadyUnlocked
        /// The app keeps it with another account.
        case kept(owner: RestoreAccount)
        /// An auto-renewable subscription that ran out: nothing to unlock.
        case expired(Instant)
        /// Refunded or otherwise not restorable; the sentence says why.
        case refused(String)

        public var code: String {
            switch self {
            case .restored: "restored"
            case .alreadyUnlocked: "already_unlocked"
            case .kept: "kept_with_owner"
            case .expired: "expired"
            case .refused: "refused"
            }
        }
    }

    public struct Item: Hashable, Sendable {
        public var originalTransactionId: String
        public var productId: String
        public var outcome: Outcome
        /// The rows a restored purchase writes (nil for every other outcome).
        public var change: PaymentChange?
    }

    public struct Plan: Hashable, Sendable {
        public var account: RestoreAccount
        public var appId: String
        public var items: [Item]
        public var audit: AuditEntry
        /// The order numbers as the plan left them (the store keeps the count of those it used).
        public var orderNumbers: OrderNumbers
    }

    /// What Restore Purchases does for `account`, given its Apple ID's past purchases in `app`. Each
    /// purchase that comes back gets the next of `orderNumbers` as its platform order id.
    public static func plan(
        for account: RestoreAccount, app: App, purchases: [PastPurchase], products: [Product],
        orderNumbers: OrderNumbers, by staff: StaffMember, at now: Instant
    ) -> Result<Plan, RestoreRefusal> {
        guard staff.mayResolveRestores else { return .failure(.roleMayNotAct(staff)) }
        var items: [Item] = []
        var numbers = orderNumbers
        for purchase in purchases {
            let (outcome, change) = restore(
                purchase, onto: account, app: app, products: products, orderNumbers: &numbers, at: now)
            items.append(
                Item(
                    originalTransactionId: purchase.latest.originalTransactionId, productId: purchase.product.id,
                    outcome: outcome, change: change))
        }
        let counts = Dictionary(grouping: items, by: \.outcome.code).mapValues(\.count)
        let summary = ["restored", "already_unlocked", "kept_with_owner", "expired", "refused"]
            .compactMap { code in counts[code].map { "\($0) \(code.replacingOccurrences(of: "_", with: " "))" } }
        let audit = AuditEntry(
            at: now, actor: staff.name, role: staff.role.rawValue, action: "restore.purchases",
            subject: "account \(account.label) in app \(app.id)",
            detail: summary.isEmpty ? "nothing to restore" : summary.joined(separator: ", "))
        return .success(Plan(account: account, appId: app.id, items: items, audit: audit, orderNumbers: numbers))
    }

    private static func restore(
        _ purchase: PastPurchase, onto account: RestoreAccount, app: App, products: [Product],
        orderNumbers: inout OrderNumbers, at now: Instant
    ) -> (Outcome, PaymentChange?) {
        let latest = purchase.latest
        if let revoked = latest.revocationDate {
            return (.refused("refunded on \(revoked.iso8601): nothing to unlock"), nil)
        }
        if purchase.product.type == .autoRenewable, let expires = latest.expiresDate, expires <= now {
            return (.expired(expires), nil)
        }
        let owners = purchase.owners(under: app.restoreOwnership)
        if owners.contains(where: { $0.isSameRole(as: account) }) { return (.alreadyUnlocked, nil) }
        if app.restoreOwnership == .keep, let owner = owners.first { return (.kept(owner: owner), nil) }

        let id = purchase.restoredTransactionId
        var restored: StoreTransaction
        switch TransactionStateMachine.restore(latest, productType: purchase.product.type, transactionId: id, at: now) {
        case .success(let transaction): restored = transaction
        case .failure(let refusal): return (.refused(refusal.message), nil)
        }
        restored.userId = account.userId
        restored.sid = account.sid
        restored.roleId = account.roleId
        // Numbered last of all checks, so a purchase that does not come back uses no number.
        var numbers = orderNumbers
        guard let orderId = numbers.next() else {
            return (.refused("the restore desk's block of order numbers is used up"), nil)
        }
        let callback = ServerCallback(transaction: restored, orderId: orderId, app: app, timestamp: now)
        let decision = GrantRule.decide(body: callback.body, app: app, products: products, alreadyGranted: [], at: now)
        guard case .grant(var grant) = decision.outcome else { return (.refused(decision.reason), nil) }
        grant.source = .restore
        guard case .success(let finished) = TransactionStateMachine.apply(.finish, to: restored) else {
            return (.refused("the restored transaction could not be finished"), nil)
        }
        let order = PaymentOrder(
            id: orderId, transactionId: id, appId: app.id, userId: account.userId, productId: purchase.product.id,
            subPayment: restored.environment.rawValue, amountCents: 0, sid: account.sid, roleId: account.roleId,
            appOrderId: restored.appOrderId, ext: restored.ext, createdAt: now, status: .granted)
        let record = CallbackAttempt(
            orderId: orderId, attempt: 1, body: callback.body, signExpected: decision.verification.expectedSign,
            signReceived: decision.verification.receivedSign ?? "", verdict: CallbackAttempt.accepted,
            reason: decision.reason, reply: decision.reply, receivedAt: now)
        let note = owners.first.map { RestoreRules.ownershipNote(app.restoreOwnership, owner: $0, target: account) }
        func event(_ kind: PaymentEvent.Kind, _ detail: String) -> PaymentEvent {
            PaymentEvent(at: now, transactionId: id, kind: kind, detail: detail)
        }
        let events = [
            event(
                .restored,
                "restoreCompletedTransactions: \(purchase.product.id) (original \(latest.originalTransactionId)) came back "
                    + "as restored for \(account.label), no new charge" + (note.map { " (\($0))" } ?? "")),
            event(.orderCreated, "platform order \(orderId) created for the restored purchase; callback to \(app.name) follows"),
            event(.callbackAccepted, "callback attempt 1 accepted: \(decision.reason); replied \(decision.reply)"),
            event(.granted, "unlocked \(grant.productId) for \(grant.userId) on \(grant.sid) (restore)"),
            event(.finished, "finishTransaction: removed from the queue (restored)"),
        ]
        let change = PaymentChange(transaction: finished, order: order, callback: record, grant: grant, events: events)
        orderNumbers = numbers
        return (.restored(RestoreDelivery(order: order, callback: record, grant: grant)), change)
    }
}
