import Foundation

/// The restore desk's rules as pure functions: which transactions come back at a login, and what a
/// confirm or a decline writes. The store reads the facts, calls these inside one SQLite transaction
/// and writes what they return, so the console, the CLI and the tests share one definition.
///
/// 1. At login, the App Store hands back every unfinished transaction of the player's Apple ID (and
///    only while logged in): each dropped order (purchased, unfinished, no platform order) without a
///    prompt gets one.
/// 2. A confirm is the SDK's `restoreProduct`: its fields follow `PurchaseRequest`'s rules, the account
///    must be a role on the Apple ID that paid, and the app's `RestoreOwnership` decides whether another
///    account may receive it. The platform order, the signed callback and the grant then follow the
///    payment queue exactly (`ServerCallback`, `GrantRule`), and the transaction is finished.
/// 3. A decline needs a reason. Both are refused for an operator and for a prompt already resolved.
///
///     switch RestoreRules.confirm(prompt, onto: account, by: staff, products: catalogue, orderId: "10000000007", at: now) {
///     case .success(let decision): store.commit(decision)
///     case .failure(let refusal): print(refusal)   // "… was already restored by li.support (support) at …"
///     }
public enum RestoreRules {
    /// Whether a transaction comes back at its player's login as a dropped order.
    public static func comesBack(_ transaction: StoreTransaction, hasOrder: Bool) -> Bool {
        transaction.isDropped && !hasOrder
    }

    /// The prompt and its event for a dropped order that came back when `userId` logged in.
    public static func prompt(for transaction: StoreTransaction, loggedIn userId: String, at now: Instant) -> (
        RestoreRequest, PaymentEvent
    ) {
        let request = RestoreRequest(
            transactionId: transaction.id, userId: transaction.userId, productId: transaction.productId,
            quantity: transaction.quantity, status: .open, createdAt: now)
        let detail = "\(userId) logged in: restoredPayment returned this unfinished transaction "
            + "(\(transaction.productId) ×\(transaction.quantity)); restore prompt opened"
        return (request, PaymentEvent(at: now, transactionId: transaction.id, kind: .restorePrompted, detail: detail))
    }

    /// Support confirms: `restoreProduct` onto `target`, then order, callback, grant and finish.
    ///
    /// - Parameter orderId: the platform order number the store handed out for it (`OrderNumbers`); a
    ///   transaction is confirmed once (its prompt, `restore_once`), so it never gets a second order.
    public static func confirm(
        _ prompt: RestorePrompt, onto target: RestoreAccount, by staff: StaffMember, products: [Product],
        orderId: String, at now: Instant
    ) -> Result<RestoreDecision, RestoreRefusal> {
        if let refusal = mayResolve(prompt, staff) { return .failure(refusal) }
        let transaction = prompt.transaction
        let product = prompt.product
        let call = PurchaseRequest.Input(
            productName: product.name, productId: product.id, productPrice: String(product.priceCents),
            sid: target.sid, roleId: target.roleId, orderId: transaction.appOrderId, ext: transaction.ext)
        if case .failure(let refused) = PurchaseRequest.validate(call) { return .failure(.request(refused)) }
        let account: RestoreAccount
        switch candidate(prompt, onto: target) {
        case .success(let found): account = found
        case .failure(let refusal): return .failure(refusal)
        }
        let owner = prompt.payingAccount

        var delivered = transaction
        delivered.userId = account.userId
        delivered.sid = account.sid
        delivered.roleId = account.roleId
        let callback = ServerCallback(transaction: delivered, orderId: orderId, app: prompt.app, timestamp: now)
        let decision = GrantRule.decide(
            body: callback.body, app: prompt.app, products: products, alreadyGranted: [], at: now)
        guard case .grant(var grant) = decision.outcome else {
            return .failure(.callbackRejected(decision.reason))
        }
        grant.source = .restore
        let finished: StoreTransaction
        switch TransactionStateMachine.apply(.finish, to: transaction) {
        case .success(let done): finished = done
        case .failure(let refusal): return .failure(.transaction(refusal))
        }

        let order = PaymentOrder(
            id: orderId, transactionId: transaction.id, appId: prompt.app.id, userId: account.userId,
            productId: product.id, subPayment: transaction.environment.rawValue, amountCents: product.priceCents,
            sid: account.sid, roleId: account.roleId, appOrderId: transaction.appOrderId, ext: transaction.ext,
            createdAt: now, status: .granted)
        let record = CallbackAttempt(
            orderId: orderId, attempt: 1, body: callback.body, signExpected: decision.verification.expectedSign,
            signReceived: decision.verification.receivedSign ?? "", verdict: CallbackAttempt.accepted,
            reason: decision.reason, reply: decision.reply, receivedAt: now)
        let ownership = ownershipNote(prompt.ownership, owner: owner, target: account)
        let what = grant.kind == .product ? grant.productId : "\(grant.currencyAmount) currency"
        func event(_ kind: PaymentEvent.Kind, _ detail: String) -> PaymentEvent {
            PaymentEvent(at: now, transactionId: transaction.id, kind: kind, detail: detail)
        }
        let events = [
            event(.restoreConfirmed, "\(staff.signature) confirmed the restore onto \(account.label) (\(ownership))"),
            event(.orderCreated, "platform order \(orderId) created for the restore; callback to \(prompt.app.name) follows"),
            event(.callbackAccepted, "callback attempt 1 accepted: \(decision.reason); replied \(decision.reply)"),
            event(.granted, "granted \(what) to \(grant.userId) on \(grant.sid) (restore)"),
            event(.finished, "finishTransaction: removed from the queue (\(finished.state.rawValue))"),
        ]
        var request = prompt.request
        request.status = .confirmed
        request.resolvedAt = now
        request.resolvedBy = staff.name
        request.resolvedRole = staff.role.rawValue
        request.targetUserId = account.userId
        request.targetSid = account.sid
        request.targetRoleId = account.roleId
        let audit = AuditEntry(
            at: now, actor: staff.name, role: staff.role.rawValue, action: "restore.confirm",
            subject: "transaction \(transaction.id)",
            detail: "delivered \(what) to \(account.label), order \(orderId) (\(ownership))")
        return .success(
            RestoreDecision(
                request: request,
                change: PaymentChange(transaction: finished, order: order, callback: record, grant: grant, events: events),
                audit: audit))
    }

    /// Support declines with a reason the player can be told. The transaction stays unfinished.
    public static func decline(
        _ prompt: RestorePrompt, reason: String, by staff: StaffMember, at now: Instant
    ) -> Result<RestoreDecision, RestoreRefusal> {
        if let refusal = mayResolve(prompt, staff) { return .failure(refusal) }
        let reason = reason.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !reason.isEmpty else { return .failure(.reasonMissing) }
        var request = prompt.request
        request.status = .declined
        request.resolvedAt = now
        request.resolvedBy = staff.name
        request.resolvedRole = staff.role.rawValue
        request.reason = reason
        let event = PaymentEvent(
            at: now, transactionId: prompt.transaction.id, kind: .restoreDeclined,
            detail: "\(staff.signature) declined the restore: \(reason)")
        let audit = AuditEntry(
            at: now, actor: staff.name, role: staff.role.rawValue, action: "restore.decline",
            subject: "transaction \(prompt.transaction.id)", detail: reason)
        return .success(RestoreDecision(request: request, change: PaymentChange(events: [event]), audit: audit))
    }

    /// `transfer: moved from 10000001 s1/r1`, `share: 10000001 s1/r1 keeps it too`, `the paying account`.
    public static func ownershipNote(_ ownership: RestoreOwnership, owner: RestoreAccount, target: RestoreAccount)
        -> String
    {
        guard !target.isSameRole(as: owner) else { return "the paying account" }
        switch ownership {
        case .transfer: return "transfer: moved from \(owner.label)"
        case .share: return "share: \(owner.label) keeps it too"
        case .keep: return "keep: stays with \(owner.label)"
        }
    }

    /// Why a confirm onto `target` would be refused for the account alone (not on the Apple ID that
    /// paid, no such role, kept with the owner), or nil: the console asks it when support picks an
    /// account, before the Sid and Role_Id, and `confirm` asks it again.
    public static func accountRefusal(_ prompt: RestorePrompt, onto target: RestoreAccount) -> RestoreRefusal? {
        if case .failure(let refusal) = candidate(prompt, onto: target) { return refusal }
        return nil
    }

    /// The candidate account `target` names, when the app's ownership lets the purchase go there.
    private static func candidate(_ prompt: RestorePrompt, onto target: RestoreAccount) -> Result<RestoreAccount, RestoreRefusal> {
        let roles = prompt.candidates.filter { $0.userId == target.userId }
        guard !roles.isEmpty else {
            return .failure(
                .notOnAppleID(account: target.userId, transactionId: prompt.transaction.id, appleIds: prompt.appleIds))
        }
        guard let account = roles.first(where: { $0.isSameRole(as: target) }) else {
            return .failure(.unknownRole(target, appId: prompt.app.id, known: roles))
        }
        let owner = prompt.payingAccount
        if !account.isSameRole(as: owner) && prompt.ownership == .keep {
            return .failure(.keptWithOwner(owner: owner, target: account, app: prompt.app.name))
        }
        return .success(account)
    }

    private static func mayResolve(_ prompt: RestorePrompt, _ staff: StaffMember) -> RestoreRefusal? {
        guard staff.mayResolveRestores else { return .roleMayNotAct(staff) }
        guard prompt.request.status == .open else { return .alreadyResolved(prompt.request) }
        return nil
    }
}
