import ArgumentParser
import Foundation
import StoreDeskCore
import StoreDeskStore

/// `storedesk restore list|confirm|decline|purchases`: the restore desk from a shell.
struct RestoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Dropped orders waiting as restore prompts: list, confirm onto a game account, decline, restore purchases.",
        discussion: """
            A dropped order (paid, never finished, no order) becomes a prompt when its player logs in \
            (`storedesk login as USER`, or a purchase in `storedesk simulate`). Confirming and declining need \
            --role support or developer and are audited under --as NAME.
            """,
        subcommands: [List.self, Confirm.self, Decline.self, Purchases.self])

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "Restore prompts, oldest first.")
        @OptionGroup var store: StoreOptions
        @Option(help: "open, confirmed, declined or all.") var status: String = "open"
        @Option(help: "At most this many prompts.") var limit: Int = 1000
        @Flag(help: "Print the prompts as JSON.") var json = false

        func run() throws {
            let prompts = try reporting { () throws -> [RestorePrompt] in
                let filter: RestoreStatus?
                if status == "all" {
                    filter = nil
                } else if let known = RestoreStatus(rawValue: status) {
                    filter = known
                } else {
                    throw StoreError.invalidArgument("--status must be open, confirmed, declined or all, got '\(status)'")
                }
                guard limit > 0 else { throw StoreError.invalidArgument("--limit must be above 0, got \(limit)") }
                return try store.open(.readOnly).restorePrompts(status: filter, limit: limit)
            }
            if json {
                try printJSON(prompts.map { RestorePromptJSON($0) })
                return
            }
            let now = Instant(Date())
            for prompt in prompts {
                print(prompt.line(at: now))
                print("    " + prompt.ownershipRule)
                prompt.candidateLines.forEach { print($0) }
            }
            if prompts.isEmpty { FileHandle.standardError.write(Data("no \(status == "all" ? "" : status + " ")restore prompts\n".utf8)) }
        }
    }

    struct Confirm: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "confirm",
            abstract: "Deliver a dropped order once, onto a game account (restoreProduct), with its order, callback and grant.")
        @OptionGroup var store: StoreOptions
        @OptionGroup var staff: StaffOptions
        @Argument(help: "The Apple TransactionIdentifier of the prompt.") var transactionId: String
        @Option(help: "The player (user id) to deliver to: one on the Apple ID that paid.") var account: String
        @Option(help: "The server (Sid) of the role to deliver to.") var sid: String
        @Option(name: .customLong("role-id"), help: "The role (Role_Id) to deliver to.") var roleId: String
        @Flag(help: "Print the confirmed prompt as JSON.") var json = false

        func run() throws {
            let prompt = try reporting {
                let staff = try staff.writer("restore confirm")
                let target = RestoreAccount(userId: account, sid: sid, roleId: roleId)
                return try store.open(.readWrite).confirmRestore(
                    transactionId: transactionId, onto: target, by: staff, at: Instant(Date()))
            }
            if json {
                try printJSON(RestorePromptJSON(prompt))
                return
            }
            let target = prompt.target?.label ?? "\(account) \(sid)/\(roleId)"
            let note = prompt.target.map {
                RestoreRules.ownershipNote(prompt.ownership, owner: prompt.payingAccount, target: $0)
            } ?? ""
            print("restored transaction \(prompt.transaction.id) onto \(target) (\(note))")
            if let delivery = prompt.delivery {
                print("  order     \(delivery.order.id)")
                if let callback = delivery.callback { print("  callback  \(callback.verdict): \(callback.reason); replied \(callback.reply)") }
                if let grant = delivery.grant {
                    let what = grant.kind == .product ? grant.productId : "\(grant.currencyAmount) currency"
                    print("  grant     \(what) to \(grant.userId) on \(grant.sid)/\(grant.roleId) (\(grant.source.rawValue))")
                }
            }
        }
    }

    struct Decline: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "decline", abstract: "Decline a restore prompt with a reason (audited).")
        @OptionGroup var store: StoreOptions
        @OptionGroup var staff: StaffOptions
        @Argument(help: "The Apple TransactionIdentifier of the prompt.") var transactionId: String
        @Option(help: "Why, in words the player can be told.") var reason: String
        @Flag(help: "Print the declined prompt as JSON.") var json = false

        func run() throws {
            let prompt = try reporting {
                let staff = try staff.writer("restore decline")
                guard reason.contains(where: { !$0.isWhitespace }) else {
                    throw StoreError.invalidArgument("--reason must not be empty: " + RestoreRefusal.reasonMissing.description)
                }
                return try store.open(.readWrite).declineRestore(
                    transactionId: transactionId, reason: reason, by: staff, at: Instant(Date()))
            }
            if json {
                try printJSON(RestorePromptJSON(prompt))
                return
            }
            print("declined transaction \(prompt.transaction.id): \((prompt.request.reason ?? reason).controlsEscaped)")
        }
    }

    struct Purchases: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "purchases",
            abstract: "Restore Purchases for one role: past non-consumables and subscriptions come back as restored, no new charge.",
            discussion: "The role's Apple ID's purchases in its app unlock on it as the app's ownership rule allows.")
        @OptionGroup var store: StoreOptions
        @OptionGroup var staff: StaffOptions
        @Option(help: "The player (user id).") var account: String
        @Option(help: "The server (Sid) of the role.") var sid: String
        @Option(name: .customLong("role-id"), help: "The role (Role_Id).") var roleId: String
        @Option(help: "The app, when the same role plays in several.") var app: String?
        @Flag(help: "Print the outcome as JSON.") var json = false

        func run() throws {
            let plan = try reporting {
                let staff = try staff.writer("restore purchases")
                let target = RestoreAccount(userId: account, sid: sid, roleId: roleId)
                return try store.open(.readWrite).restorePurchases(for: target, appId: app, by: staff, at: Instant(Date()))
            }
            if json {
                try printJSON(RestorePurchasesJSON(plan))
                return
            }
            print("restore purchases for \(plan.account.label) in app \(plan.appId): \(plan.audit.detail)")
            for item in plan.items {
                print("  " + [item.outcome.code.replacingOccurrences(of: "_", with: " "), item.originalTransactionId, item.productId,
                              RestorePurchasesJSON.Item(item).note].joined(separator: "  "))
            }
        }
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
