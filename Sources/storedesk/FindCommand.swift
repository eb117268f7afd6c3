import ArgumentParser
import Foundation
import StoreDeskCore
import StoreDeskStoreAPI

/// `storedesk find TEXT`: one search for every id a ticket gives.
struct FindCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "find",
        abstract: "Find players, game accounts, transactions, orders, subscriptions, notifications and restore prompts by any id, name or phone.")
    @OptionGroup var store: StoreOptions
    @Argument(help: "An id, a name, a phone number (or its last four digits), an Apple ID, a role, an order id.") var text: String
    @Option(help: "At most this many results.") var limit: Int = 50
    @OptionGroup var output: OutputOptions

    func validate() throws {
        _ = try reporting { try FindQuery(text, limit: limit) }
    }

    func run() throws {
        let query = try reporting { try FindQuery(text, limit: limit) }
        try FindRequest(store: store.location, query: query, text: text, json: output.json).run()
    }
}

/// `storedesk find` as a plain value: a ticket's id is looked up by hand and by scripts, and an exact id
/// is an index seek, so the process's start is most of its time. A command line made only of `find`'s
/// own options is read without ArgumentParser (see `PlainCommandLine`); anything else, a bad query
/// included, goes through `FindCommand`, which says what is wrong and then runs the same request.
struct FindRequest {
    var store = StoreLocation()
    var query: FindQuery
    /// The text as given (the note says it back).
    var text: String
    var json = false

    init(store: StoreLocation, query: FindQuery, text: String, json: Bool) {
        self.store = store
        self.query = query
        self.text = text
        self.json = json
    }

    init?(arguments: [String]) {
        guard let line = PlainCommandLine(arguments, command: "find", flags: ["migrate", "json"], options: ["db", "limit"], positionals: 1),
            let text = line.positionals.first
        else { return nil }
        var limit = 50
        for (name, value) in line.options {
            if name == "db" {
                store.db = value
            } else {
                guard let number = Int(value) else { return nil }
                limit = number
            }
        }
        guard let query = try? FindQuery(text, limit: limit) else { return nil }
        self.query = query
        self.text = text
        store.migrate = line.flags.contains("migrate")
        json = line.flags.contains("json")
    }

    /// Prints what was found and ends the process, without tearing down the read-only store's connection
    /// (as `SnapshotRequest.run` does).
    func run() throws -> Never {
        let trace = PhaseTrace()
        trace.mark("arguments")
        let database = try reporting { try store.open(.readOnly) }
        trace.mark("open store")
        let results = try reporting { try database.find(query) }
        trace.mark("find")
        try OutputOptions.show(FindReport(results: results, query: text), json: json)
        trace.mark("print")
        withExtendedLifetime(database) { exit(0) }
    }
}
