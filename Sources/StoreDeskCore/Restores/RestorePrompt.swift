/// A dropped order at the restore desk: a paid transaction that came back unfinished when its player
/// logged in, with every game account it could be delivered to and the app's ownership rule.
///
///     let prompt = RestorePrompt(request: request, transaction: txn, product: product, app: app,
///                                accounts: gameAccountsOnTheAppleIDs)
///     prompt.candidates.first   // the paying account
///     prompt.ownershipRule      // "keep: Pocket Garden keeps the purchase with 10000024 s1/r10000024-1; …"
public struct RestorePrompt: Hashable, Sendable, Identifiable {
    public var request: RestoreRequest
    public var transaction: StoreTransaction
    public var product: Product
    public var app: App
    /// The Apple IDs the paying player plays from (those of their game accounts).
    public var appleIds: [String]
    /// The paying account first, then every other role on those Apple IDs in this app.
    public var candidates: [RestoreAccount]
    /// What a confirm delivered: the order, its callback and the grant.
    public var delivery: RestoreDelivery?

    /// - Parameter accounts: the paying player's game accounts (any app) and every game account on
    ///   their Apple IDs; others are ignored.
    public init(
        request: RestoreRequest, transaction: StoreTransaction, product: Product, app: App, accounts: [GameAccount],
        delivery: RestoreDelivery? = nil
    ) {
        self.request = request
        self.transaction = transaction
        self.product = product
        self.app = app
        self.delivery = delivery
        let appleIds = Set(accounts.filter { $0.userId == transaction.userId }.map(\.appleId))
        self.appleIds = appleIds.sorted()
        var owner = RestoreAccount(paying: transaction)
        var others: [RestoreAccount] = []
        for account in accounts where account.appId == transaction.appId && appleIds.contains(account.appleId) {
            let candidate = RestoreAccount(account)
            if candidate.isSameRole(as: owner) {
                owner = candidate
            } else if !others.contains(where: { $0.isSameRole(as: candidate) }) {
                others.append(candidate)
            }
        }
        others.sort { ($0.userId, $0.sid, $0.roleId) < ($1.userId, $1.sid, $1.roleId) }
        candidates = [owner] + others
    }

    public var id: Int64 { request.id ?? 0 }

    /// The account that paid, which owns the purchase until a restore says otherwise.
    public var payingAccount: RestoreAccount { candidates[0] }

    public var ownership: RestoreOwnership { app.restoreOwnership }

    /// The sentence the desk shows: what a confirm onto another account does in this app.
    public var ownershipRule: String {
        // With no account but the paying one to choose, a restore can only go back to it: say that, not
        // what a move to another account would do.
        let others = candidates.contains { $0.userId != payingAccount.userId || $0.sid != payingAccount.sid || $0.roleId != payingAccount.roleId }
        guard others else { return "only the paying account, \(payingAccount.label), can take it back" }
        return ownership.rule(app: app.name, owner: payingAccount.label)
    }

    /// Who holds the purchase now: the paying account, the account a transfer moved it to, or both.
    public var currentOwners: [RestoreAccount] {
        guard request.status == .confirmed, let target = target, !target.isSameRole(as: payingAccount) else {
            return [payingAccount]
        }
        return ownership == .share ? [payingAccount, target] : [target]
    }

    /// The account a confirm delivered to.
    public var target: RestoreAccount? {
        guard let user = request.targetUserId, let sid = request.targetSid, let role = request.targetRoleId else {
            return nil
        }
        return candidates.first { $0.userId == user && $0.sid == sid && $0.roleId == role }
            ?? RestoreAccount(userId: user, sid: sid, roleId: role)
    }

    /// How long the prompt has waited (or waited, once resolved).
    public func age(at now: Instant) -> Instant.Duration {
        (request.resolvedAt ?? now).duration(since: request.createdAt)
    }
}

extension RestoreOwnership {
    /// What a restore onto another account does under this rule, in one sentence.
    public func rule(app: String, owner: String) -> String {
        switch self {
        case .transfer: "transfer: \(app) moves the purchase to the account you choose; \(owner) loses it"
        case .keep: "keep: \(app) keeps the purchase with \(owner); a restore onto another account is refused"
        case .share: "share: \(app) lets both hold it; \(owner) keeps it and the account you choose gets it too"
        }
    }
}
