import Foundation
import StoreDeskCore
import StoreDeskStoreAPI

/// A game account in restore JSON.
struct RestoreAccountJSON: Encodable {
    var userId, sid, roleId, roleName: String
    var appleId: String?

    init(_ account: RestoreAccount) {
        userId = account.userId
        sid = account.sid
        roleId = account.roleId
        roleName = account.roleName
        appleId = account.appleId
    }
}

/// What a confirm delivered: the order, the callback the game server accepted, the grant.
struct RestoreDeliveryJSON: Encodable {
    struct Callback: Encodable {
        var attempt: Int
        var verdict, reason, reply, body: String
    }
    struct GrantJSON: Encodable {
        var userId, sid, roleId, productId, kind, source, grantedAt: String
        var quantity, currencyAmount: Int
    }
    var orderId, payment: String
    var amountCents: Int
    var callback: Callback?
    var grant: GrantJSON?

    init(_ delivery: RestoreDelivery) {
        orderId = delivery.order.id
        payment = delivery.order.payment
        amountCents = delivery.order.amountCents
        callback = delivery.callback.map {
            Callback(attempt: $0.attempt, verdict: $0.verdict, reason: $0.reason, reply: $0.reply, body: $0.body)
        }
        grant = delivery.grant.map {
            GrantJSON(
                userId: $0.userId, sid: $0.sid, roleId: $0.roleId, productId: $0.productId, kind: $0.kind.rawValue,
                source: $0.source.rawValue, grantedAt: $0.grantedAt.iso8601, quantity: $0.quantity,
                currencyAmount: $0.currencyAmount)
        }
    }
}

/// A restore prompt as `restore list --json`, `login as --json` and the confirm/decline commands print it.
struct RestorePromptJSON: Encodable {
    var id: Int64
    var transactionIdentifier, productId, productName, userId, appId, status, createdAt: String
    /// The environment the purchase was made in: `Sandbox` for a simulation's (Apple's test money).
    var environment: String
    var quantity: Int
    var appleIds: [String]
    var ownership, ownershipRule: String
    var payingAccount: RestoreAccountJSON
    var currentOwners: [RestoreAccountJSON]
    var candidates: [RestoreAccountJSON]
    var resolvedBy, resolvedRole, resolvedAt, reason: String?
    var target: RestoreAccountJSON?
    var delivery: RestoreDeliveryJSON?
    /// Only in `login as`: whether this login opened the prompt.
    var opened: Bool?

    init(_ prompt: RestorePrompt, opened: Bool? = nil) {
        let request = prompt.request
        id = prompt.id
        transactionIdentifier = request.transactionId
        productId = request.productId
        productName = prompt.product.name
        userId = request.userId
        appId = prompt.app.id
        environment = prompt.transaction.environment.rawValue
        status = request.status.rawValue
        createdAt = request.createdAt.iso8601
        quantity = request.quantity
        appleIds = prompt.appleIds
        ownership = prompt.ownership.rawValue
        ownershipRule = prompt.ownershipRule
        payingAccount = RestoreAccountJSON(prompt.payingAccount)
        currentOwners = prompt.currentOwners.map(RestoreAccountJSON.init)
        candidates = prompt.candidates.map(RestoreAccountJSON.init)
        resolvedBy = request.resolvedBy
        resolvedRole = request.resolvedRole
        resolvedAt = request.resolvedAt?.iso8601
        reason = request.reason
        target = prompt.target.map(RestoreAccountJSON.init)
        delivery = prompt.delivery.map(RestoreDeliveryJSON.init)
        self.opened = opened
    }

    /// Absent values are written as `null`, so every key is always there (except `opened`).
    func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(transactionIdentifier, forKey: .transactionIdentifier)
        try container.encode(productId, forKey: .productId)
        try container.encode(productName, forKey: .productName)
        try container.encode(userId, forKey: .userId)
        try container.encode(appId, forKey: .appId)
        try container.encode(status, forKey: .status)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(environment, forKey: .environment)
        try container.encode(quantity, forKey: .quantity)
        try container.encode(appleIds, forKey: .appleIds)
        try container.encode(ownership, forKey: .ownership)
        try container.encode(ownershipRule, forKey: .ownershipRule)
        try container.encode(payingAccount, forKey: .payingAccount)
        try container.encode(currentOwners, forKey: .currentOwners)
        try container.encode(candidates, forKey: .candidates)
        try container.encode(resolvedBy, forKey: .resolvedBy)
        try container.encode(resolvedRole, forKey: .resolvedRole)
        try container.encode(resolvedAt, forKey: .resolvedAt)
        try container.encode(reason, forKey: .reason)
        try container.encode(target, forKey: .target)
        try container.encode(delivery, forKey: .delivery)
        try container.encodeIfPresent(opened, forKey: .opened)
    }

    enum CodingKeys: String, CodingKey {
        case id, transactionIdentifier, productId, productName, userId, appId, status, createdAt, environment, quantity, appleIds
        case ownership, ownershipRule, payingAccount, currentOwners, candidates, resolvedBy, resolvedRole, resolvedAt
        case reason, target, delivery, opened
    }
}

extension RestorePrompt {
    /// One line for the terminal: transaction, player, product ×quantity, age, status, ownership rule.
    func line(at now: Instant) -> String {
        let status = request.status == .open ? "open" : "\(request.status.rawValue) by \(request.resolvedBy ?? "?")"
        return [
            transaction.id, request.userId, "\(product.id) ×\(request.quantity)", age(at: now).shortText, status,
            ownership.rawValue,
        ].joined(separator: "  ") + (transaction.environment == .sandbox ? "  " + transaction.environment.rawValue : "")
    }

    /// The candidate accounts, one line each, the paying account marked.
    var candidateLines: [String] {
        candidates.map { account in
            let name = account.roleName.isEmpty ? "" : "  " + account.roleName
            let marks = [account.isSameRole(as: payingAccount) ? "paid" : nil, account.appleId].compactMap { $0 }
            return "    \(account.label)\(name)  (\(marks.joined(separator: ", ")))"
        }
    }
}

/// `login as`: the player's Apple IDs, the prompts this login opened, every open prompt per player.
struct LoginReport: CommandReport {
    struct JSON: Encodable {
        struct Player: Encodable {
            var userId: String
            var prompts: [RestorePromptJSON]
        }
        var userId: String
        var appleIds: [String]
        var opened: Int
        var players: [Player]
    }

    var login: RestoreLogin
    /// When the prompts' ages are measured from.
    var now: Instant

    var json: JSON {
        JSON(
            userId: login.userId, appleIds: login.appleIds, opened: login.opened.count,
            players: login.players.map { player in
                JSON.Player(
                    userId: player.userId,
                    prompts: player.prompts.map { RestorePromptJSON($0, opened: login.opened.contains($0.id)) })
            })
    }

    var text: String {
        let appleIds = login.appleIds.isEmpty ? "no Apple ID on record" : "Apple ID " + login.appleIds.joined(separator: ", ")
        var lines = [
            "\(login.userId) logged in (\(appleIds)): \(login.opened.count) restore prompt\(login.opened.count == 1 ? "" : "s") opened, \(login.prompts.count) open"
        ]
        for player in login.players {
            lines.append("  player \(player.userId)")
            for prompt in player.prompts {
                lines.append("    " + prompt.line(at: now) + (login.opened.contains(prompt.id) ? "  (new)" : ""))
            }
        }
        return reportText(lines)
    }
}

/// `restore purchases --json`.
struct RestorePurchasesJSON: Encodable {
    struct Item: Encodable {
        var originalTransactionId, productId, outcome, note: String
        var transactionIdentifier: String?
        var owner: RestoreAccountJSON?
        var delivery: RestoreDeliveryJSON?

        init(_ item: RestorePurchases.Item) {
            originalTransactionId = item.originalTransactionId
            productId = item.productId
            outcome = item.outcome.code
            transactionIdentifier = item.change?.transaction?.id
            switch item.outcome {
            case .restored(let delivery):
                self.delivery = RestoreDeliveryJSON(delivery)
                note = "→ \(transactionIdentifier ?? "?"), order \(delivery.order.id), no new charge"
            case .alreadyUnlocked:
                note = "this role holds it already"
            case .kept(let owner):
                self.owner = RestoreAccountJSON(owner)
                note = "kept with \(owner.label) (ownership: keep)"
            case .expired(let date):
                note = "expired \(date.iso8601)"
            case .refused(let reason):
                note = reason
            }
        }
    }
    var account: RestoreAccountJSON
    var appId: String
    var summary: String
    var items: [Item]

    init(_ plan: RestorePurchases.Plan) {
        account = RestoreAccountJSON(plan.account)
        appId = plan.appId
        summary = plan.audit.detail
        items = plan.items.map(Item.init)
    }
}

/// `restore list`: the prompts, oldest first, with their ownership rule and candidate accounts.
struct RestoreListReport: CommandReport {
    var prompts: [RestorePrompt]
    /// The `--status` asked for, for the note when there is none.
    var status: String
    /// The store's instant the prompts are aged at: the one the console and `snapshot` show.
    var now: StoreNow

    var json: [RestorePromptJSON] { prompts.map { RestorePromptJSON($0) } }

    var text: String {
        reportText(prompts.flatMap { prompt in [prompt.line(at: now.instant), "    " + prompt.ownershipRule] + prompt.candidateLines })
    }

    var note: String? {
        (prompts.isEmpty ? "no \(status == "all" ? "" : status + " ")restore prompts; " : "") + now.note
    }
}

/// `restore confirm`: the prompt as confirmed, and what was delivered.
struct RestoreConfirmReport: CommandReport {
    var prompt: RestorePrompt
    /// The target as given, for the line when the prompt does not name it.
    var account, sid, roleId: String

    var json: RestorePromptJSON { RestorePromptJSON(prompt) }

    var text: String {
        let target = prompt.target?.label ?? "\(account) \(sid)/\(roleId)"
        let note = prompt.target.map {
            RestoreRules.ownershipNote(prompt.ownership, owner: prompt.payingAccount, target: $0)
        } ?? ""
        var lines = ["restored transaction \(prompt.transaction.id) onto \(target) (\(note))"]
        if let delivery = prompt.delivery {
            lines.append("  order     \(delivery.order.id)")
            if let callback = delivery.callback { lines.append("  callback  \(callback.verdict): \(callback.reason); replied \(callback.reply.controlsEscaped)") }
            if let grant = delivery.grant {
                let what = grant.kind == .product ? grant.productId : "\(grant.currencyAmount) currency"
                lines.append("  grant     \(what) to \(grant.userId) on \(grant.sid)/\(grant.roleId) (\(grant.source.rawValue))")
            }
        }
        return reportText(lines)
    }
}

/// `restore decline`: the prompt as declined.
struct RestoreDeclineReport: CommandReport {
    var prompt: RestorePrompt
    var reason: String
    var json: RestorePromptJSON { RestorePromptJSON(prompt) }
    var text: String { reportText(["declined transaction \(prompt.transaction.id): \(prompt.request.reason ?? reason)"]) }
}

/// `restore purchases`: each past purchase and what became of it.
struct RestorePurchasesReport: CommandReport {
    var plan: RestorePurchases.Plan
    var json: RestorePurchasesJSON { RestorePurchasesJSON(plan) }
    var text: String {
        reportText(
            ["restore purchases for \(plan.account.label) in app \(plan.appId): \(plan.audit.detail)"]
                + plan.items.map { item in
                    "  " + [item.outcome.code.replacingOccurrences(of: "_", with: " "), item.originalTransactionId, item.productId,
                            RestorePurchasesJSON.Item(item).note].joined(separator: "  ")
                })
    }
}
