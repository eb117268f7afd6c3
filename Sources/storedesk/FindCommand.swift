import ArgumentParser
import Foundation
import StoreDeskCore
import StoreDeskStore

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
        let results = try reporting { try store.open(.readOnly).find(try FindQuery(text, limit: limit)) }
        try output.show(FindReport(results: results, query: text))
    }
}
