/// Why the restore desk refused a confirm, a decline or a restore. Each says, in one line, what was
/// wrong and what would be right; nothing is written when one is returned.
public enum RestoreRefusal: Error, Hashable, Sendable, CustomStringConvertible {
    /// Operators look; only support and developer act.
    case roleMayNotAct(StaffMember)
    /// The store was opened read-only.
    case readOnly
    case unknownTransaction(String)
    case unknownAccount(String)
    /// Confirmed or declined before, by this console or another process.
    case alreadyResolved(RestoreRequest)
    /// The restoreProduct call breaks a requestProduct rule (Sid, price, EXT, ...).
    case request(PurchaseRequest.Refused)
    /// The account plays from another Apple ID than the one that paid.
    case notOnAppleID(account: String, transactionId: String, appleIds: [String])
    /// The account is on the Apple ID but has no such role on that server in this app.
    case unknownRole(RestoreAccount, appId: String?, known: [RestoreAccount])
    /// The app keeps purchases with the account that paid.
    case keptWithOwner(owner: RestoreAccount, target: RestoreAccount, app: String)
    case reasonMissing
    /// The game server would not grant the callback (an unknown product, a wrong app).
    case callbackRejected(String)
    /// The queue refused the transaction's change (already finished, ...).
    case transaction(TransactionRefusal)

    /// A stable code for JSON and tests.
    public var code: String {
        switch self {
        case .roleMayNotAct: "role_may_not_act"
        case .readOnly: "read_only"
        case .unknownTransaction: "unknown_transaction"
        case .unknownAccount: "unknown_account"
        case .alreadyResolved: "already_resolved"
        case .request: "request_refused"
        case .notOnAppleID: "not_on_apple_id"
        case .unknownRole: "unknown_role"
        case .keptWithOwner: "kept_with_owner"
        case .reasonMissing: "reason_missing"
        case .callbackRejected: "callback_rejected"
        case .transaction: "transaction_refused"
        }
    }

    public var description: String {
        switch self {
        case .roleMayNotAct(let staff):
            "restores need the support or developer role; \(staff.name) is \(staff.role.rawValue), who may only look"
        case .readOnly:
            "the store is open read-only: nothing was changed"
        case .unknownTransaction(let id):
            "no restore prompt for transaction '\(id)' (a dropped order gets one when its player logs in)"
        case .unknownAccount(let id):
            "no user with id '\(id)'"
        case .alreadyResolved(let request):
            RestoreRefusal.resolvedText(request)
        case .request(let refused):
            "restoreProduct refused: " + refused.reason
        case .notOnAppleID(let account, let transactionId, let appleIds):
            "account \(account) is not on the Apple ID that paid for transaction \(transactionId) "
                + "(\(appleIds.isEmpty ? "no known Apple ID" : appleIds.joined(separator: ", ")))"
        case .unknownRole(let account, let appId, let known):
            "account \(account.userId) has no role \(account.roleId) on server \(account.sid)"
                + (appId.map { " in app \($0)" } ?? "")
                + (known.isEmpty ? "" : " (it has " + known.map { "\($0.sid)/\($0.roleId)" }.joined(separator: ", ") + ")")
        case .keptWithOwner(let owner, let target, let app):
            "\(app) keeps purchases with the account that paid (\(owner.label)): "
                + "restoring onto \(target.label) is refused (ownership: keep)"
        case .reasonMissing:
            "a decline needs a reason the player can be told"
        case .callbackRejected(let reason):
            "the game server would not grant the restore: " + reason
        case .transaction(let refusal):
            refusal.message
        }
    }

    /// `transaction 2000… was already restored by li.support (support) at 2026-11-12T09:41:00Z onto …`.
    static func resolvedText(_ request: RestoreRequest) -> String {
        let who = "\(request.resolvedBy ?? "someone") (\(request.resolvedRole ?? "unknown role"))"
        let when = request.resolvedAt?.iso8601 ?? "an unknown time"
        switch request.status {
        case .confirmed:
            let target = [request.targetUserId, request.targetSid.map { $0 + "/" + (request.targetRoleId ?? "") }]
                .compactMap { $0 }.joined(separator: " ")
            return "transaction \(request.transactionId) was already restored by \(who) at \(when)"
                + (target.isEmpty ? "" : " onto \(target)")
        case .declined:
            return "transaction \(request.transactionId) was already declined by \(who) at \(when)"
                + (request.reason.map { ": " + $0 } ?? "")
        case .open:
            return "transaction \(request.transactionId) is still open"
        }
    }
}
