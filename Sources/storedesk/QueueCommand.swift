import ArgumentParser
import Foundation
import StoreDeskCore
import StoreDeskStoreAPI
import StoreDeskStoreAPI
import StoreDeskUI

/// `storedesk queue list|show`: the Queue screen without a terminal. The payment queue's unfinished
/// transactions, and one transaction's order, grant, timeline and every callback attempt: for callbacks
/// POSTed to a real game server, the HTTP status, the reply (cut) and the latency of each attempt.
struct QueueCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "queue", abstract: "The payment queue headless: list the unfinished transactions, show one with its callback attempts.",
        subcommands: [List.self, Show.self])

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "The unfinished transactions, newest first, with each one's latest callback attempt.",
            discussion: "Also the queue's counts per state and how the latest 500 callbacks POSTed to game servers went.")
        @OptionGroup var store: StoreOptions
        @Option(help: ArgumentHelp("Only this state.", valueName: "state")) var state: TransactionState?
        @Option(help: ArgumentHelp("Only this player's transactions.", valueName: "user")) var user: String?
        @Option(help: ArgumentHelp("Only products whose id contains this.", valueName: "text")) var product: String?
        @Option(help: "At most this many transactions (1 to 10000).") var limit = 50
        @OptionGroup var output: OutputOptions

        func validate() throws {
            guard (1...10_000).contains(limit) else { throw fail("--limit must be from 1 to 10000, got \(limit)") }
        }

        func run() throws {
            let report = try reporting { () throws -> QueueListReport in
                let database = try store.open(.readOnly)
                let query = QueueQuery(state: state, userId: user, product: product)
                let rows = try database.queue(query).first(limit: limit)
                let latest = try rows.map { row in try database.queueDetail(transactionId: row.id)?.callbacks.last }
                return QueueListReport(
                    path: database.path, counts: try database.queueCounts(),
                    deliveries: try database.recentDeliveries(limit: QueueListReport.deliveriesWindow),
                    rows: Array(zip(rows, latest)))
            }
            try output.show(report)
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "One transaction: its order, grant, timeline and every callback attempt (status, reply, latency).")
        @OptionGroup var store: StoreOptions
        @Argument(help: "The transaction id.") var transaction: String
        @OptionGroup var output: OutputOptions

        func run() throws {
            let detail = try reporting { () throws -> QueueDetail in
                let database = try store.open(.readOnly)
                guard let detail = try database.queueDetail(transactionId: transaction) else {
                    throw StoreError.invalidArgument("no transaction \(transaction) in \(database.path)")
                }
                return detail
            }
            let report = QueueShowReport(detail: detail)
            try output.show(report)
        }
    }
}
