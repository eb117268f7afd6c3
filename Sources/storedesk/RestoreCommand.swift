import ArgumentParser
import Foundation
import StoreDeskCore
import StoreDeskStoreAPI

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
        @Option(help: "Which prompts.") var status: RestoreStatusChoice = .open
        @Option(help: "Only prompts of purchases made in this environment (a simulation's are sandbox).")
        var environment: EnvironmentFilterChoice = .all
        @Option(help: "At most this many prompts.") var limit: Int = 1000
        @OptionGroup var output: OutputOptions

        func validate() throws {
            guard limit > 0 else { throw fail("--limit must be above 0, got \(limit)") }
        }

        func run() throws {
            let (prompts, now) = try reporting {
                let database = try store.open(.readOnly)
                let prompts = try database.restorePrompts(status: status.status, environment: environment.environment, limit: limit, after: nil)
                return (prompts, try database.commandNow())
            }
            try output.show(RestoreListReport(prompts: prompts, status: status.rawValue, now: now))
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
        @OptionGroup var output: OutputOptions

        func run() throws {
            let prompt = try reporting {
                let staff = try staff.writer("restore confirm")
                let target = RestoreAccount(userId: account, sid: sid, roleId: roleId)
                let database = try store.open(.readWrite)
                return try database.confirmRestore(
                    transactionId: transactionId, onto: target, by: staff, at: database.commandNow().instant)
            }
            try output.show(RestoreConfirmReport(prompt: prompt, account: account, sid: sid, roleId: roleId))
        }
    }

    struct Decline: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "decline", abstract: "Decline a restore prompt with a reason (audited).")
        @OptionGroup var store: StoreOptions
        @OptionGroup var staff: StaffOptions
        @Argument(help: "The Apple TransactionIdentifier of the prompt.") var transactionId: String
        @Option(help: "Why, in words the player can be told.") var reason: String
        @OptionGroup var output: OutputOptions

        func validate() throws {
            guard reason.contains(where: { !$0.isWhitespace }) else {
                throw fail("--reason must not be empty: " + RestoreRefusal.reasonMissing.description)
            }
        }

        func run() throws {
            let prompt = try reporting {
                let staff = try staff.writer("restore decline")
                let database = try store.open(.readWrite)
                return try database.declineRestore(
                    transactionId: transactionId, reason: reason, by: staff, at: database.commandNow().instant)
            }
            try output.show(RestoreDeclineReport(prompt: prompt, reason: reason))
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
        @OptionGroup var output: OutputOptions

        func run() throws {
            let plan = try reporting {
                let staff = try staff.writer("restore purchases")
                let target = RestoreAccount(userId: account, sid: sid, roleId: roleId)
                let database = try store.open(.readWrite)
                return try database.restorePurchases(for: target, appId: app, by: staff, at: database.commandNow().instant)
            }
            try output.show(RestorePurchasesReport(plan: plan))
        }
    }
}
