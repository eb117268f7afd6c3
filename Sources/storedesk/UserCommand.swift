import ArgumentParser
import Foundation
import StoreDeskCore
import StoreDeskStoreAPI

struct UserCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user", abstract: "Look up players.", subcommands: [Show.self, Search.self, History.self, Export.self])

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show", abstract: "One player's profile, accounts and subscriptions.")
        @OptionGroup var store: StoreOptions
        @Argument(help: "The user id.") var id: String
        @OptionGroup var output: OutputOptions

        func run() throws {
            let (profile, notifications) = try reporting {
                let database = try store.open(.readOnly)
                let profile = try database.profile(userId: id)
                return (profile, try database.playerNotifications(userId: id, limit: ProfileReport.notificationLimit))
            }
            try output.show(ProfileReport(profile: profile, notifications: notifications, zone: .local))
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

    /// The console's `:export` of the Users list, without a terminal: the same rows, filter and order.
    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "Write every player (or those a filter matches) to a CSV or JSON file, streamed a page at a time.")
        @OptionGroup var store: StoreOptions
        @Argument(help: "The file to write (refused when it exists, unless --force).") var path: String
        @Option(help: "csv (a header, then a line a player) or json (an array).") var format: ExportFormat = .csv
        @Option(help: "Only players this matches, as the Users filter (id, name, friendly name, last four of the phone).")
        var filter: String = ""
        @Option(help: "The order: added (the order players came into the store, when left out), or by a column the Users list shows: created (CREATED), id (ID) or name (NAME: the friendly name, else the login name). Not with a filter.")
        var sort: UserOrder?
        @Flag(help: "The order from its end (newest, last id, last name first).") var descending = false
        @Flag(help: "Write over an existing file.") var force = false
        @OptionGroup var output: OutputOptions

        func validate() throws {
            guard !path.isEmpty else { throw fail("export needs a file to write") }
            if !filter.trimmingCharacters(in: .whitespaces).isEmpty && ((sort ?? .added) != .added || descending) {
                throw fail("--sort and --descending sort the whole list; a filter lists its matches in the order they came into the store")
            }
        }

        func run() throws {
            let search = UserSearch(text: filter, order: sort ?? .added, descending: descending)
            let started = Date()
            let rows = try reporting {
                try ListExport.write(store.open(.readOnly).users(matching: search), format: format, to: path, force: force)
            }
            try output.show(ExportReport(rows: rows, path: path, format: format, seconds: Date().timeIntervalSince(started)))
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
        @Option(
            help: ArgumentHelp(
                "Only lines older than this cursor: the next page, as the last page's --json next_before (or its hint) gives it.",
                valueName: "cursor"))
        var before: String?
        @OptionGroup var output: OutputOptions

        static let maximumLimit = 10_000

        func validate() throws {
            guard (1...Self.maximumLimit).contains(limit) else {
                throw fail("--limit must be between 1 and \(Self.maximumLimit), got \(limit)")
            }
            if let before, HistoryCursor(text: before) == nil {
                throw fail("--before takes a cursor as the last page gave it (MILLIS:KIND:ID), got '\(before.echoed)'")
            }
        }

        func run() throws {
            let cursor = before.flatMap(HistoryCursor.init(text:))
            // One line more than asked tells whether an older page follows.
            let read = try reporting {
                try store.open(.readOnly).history(userId: id, kinds: Set(kind), before: cursor, limit: limit + 1)
            }
            let entries = Array(read.prefix(limit))
            let next = read.count > limit ? entries.last?.cursor : nil
            try output.show(UserHistoryReport(userId: id, entries: entries, next: next, zone: .local))
        }
    }
}
