import StoreDeskCore

/// What every backend decides the same way before Restore Purchases plans anything: which of a player's
/// game accounts the target names, and which of an Apple ID's past transactions come back.
extension RestorePurchases {
    /// The one account among the player's `roles` that `target` names (in `appId` when given). Refused
    /// with the roles there are when none does, and asking for `--app` when several apps have it.
    public static func account(for target: RestoreAccount, appId: String?, roles: [GameAccount]) throws -> GameAccount {
        let inApp = roles.filter { appId == nil || $0.appId == appId }
        let matching = inApp.filter { $0.sid == target.sid && $0.roleId == target.roleId }
        guard let account = matching.first else {
            throw RestoreRefusal.unknownRole(target, appId: appId, known: inApp.map(RestoreAccount.init))
        }
        guard matching.count == 1 else {
            let apps = matching.map(\.appId).joined(separator: ", ")
            throw StoreError.invalidArgument("role \(target.roleId) on \(target.sid) plays in apps \(apps): choose one with --app")
        }
        return account
    }

    /// The refusal of an account whose app the store lacks.
    public static func missingApp(of account: GameAccount) -> StoreError {
        StoreError.invalidArgument("game account \(account.id ?? 0) names app \(account.appId), which does not exist")
    }

    /// The newest of each original transaction's transactions, in the order their originals first appear
    /// (`transactions` oldest first).
    public static func newestByOriginal(_ transactions: [StoreTransaction]) -> [StoreTransaction] {
        var latest: [String: StoreTransaction] = [:]
        var order: [String] = []
        for transaction in transactions {
            if latest[transaction.originalTransactionId] == nil { order.append(transaction.originalTransactionId) }
            latest[transaction.originalTransactionId] = transaction
        }
        return order.compactMap { latest[$0] }
    }
}
