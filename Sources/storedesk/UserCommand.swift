import ArgumentParser
import Foundation
import StoreDeskCore
import StoreDeskStore

struct UserCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user", abstract: "Look up players.", subcommands: [Show.self, Search.self, History.self])

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show", abstract: "One player's profile, accounts and subscriptions.")
        @OptionGroup var store: StoreOptions
        @Argument(help: "The user id.") var id: String
        @OptionGroup var output: OutputOptions

        func run() throws {
            let profile = try reporting { try store.open(.readOnly).profile(userId: id) }
            try output.show(ProfileReport(profile: profile, zone: .local))
        }
    }

    struct Search: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "search",
            abstract: "Find players by id, name, friendly name or the last four digits of the phone.")
        @OptionGroup var store: StoreOptions
        @Argument(help: "Text to look for (Chinese works).") var text: String
        @Option(help: "At most this many results.") var limit: Int = 50
        @OptionGroup var output: OutputOptions

        func validate() throws {
            guard limit > 0 else { throw fail("--limit must be above 0, got \(limit)") }
        }

        func run() throws {
            let users = try reporting { try store.open(.readOnly).searchUsers(text, limit: limit) }
            try output.show(UserSearchReport(users: users, query: text))
        }
    }

    struct History: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "history",
            abstract: "A player's whole story, newest first: transactions, state changes, callbacks, grants, notifications, restores, audit lines.")
        @OptionGroup var store: StoreOptions
        @Argument(help: "The user id.") var id: String
        @Option(help: "Only lines of this kind (repeatable).") var kind: [HistoryKind] = []
        @Option(help: "At most this many lines (1 to \(Self.maximumLimit)).") var limit: Int = 100
        @OptionGroup var output: OutputOptions

        static let maximumLimit = 10_000

        func validate() throws {
            guard (1...Self.maximumLimit).contains(limit) else {
                throw fail("--limit must be between 1 and \(Self.maximumLimit), got \(limit)")
            }
        }

        func run() throws {
            let entries = try reporting {
                try store.open(.readOnly).history(userId: id, kinds: Set(kind), before: nil, limit: limit)
            }
            try output.show(UserHistoryReport(userId: id, entries: entries, zone: .local))
        }
    }
}
