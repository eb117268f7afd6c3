import ArgumentParser
import Foundation
import StoreDeskCore
import StoreDeskStore

/// `storedesk events import FILE`: App Store Server Notifications into the store.
struct EventsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "events", abstract: "App Store Server Notifications in the store.", subcommands: [Import.self, Simulate.self])

    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Import App Store Server Notifications V2 from a JSON Lines file.",
            discussion: """
                Each line is a decoded notification or a raw {"signedPayload": "..."} (read without verifying \
                its signature, and marked so). A line is imported whole or not at all; a repeated \
                notificationUUID is skipped; a bad line is reported with its number and skipped. \
                Exit status: 0 when no line was rejected; 2 when some were (the others are imported, the \
                summary says which); 1 when nothing could be done (a file that cannot be read, no line a \
                notification, a bad store), and then the store is untouched.
                """)

        @OptionGroup var store: StoreOptions
        @Argument(help: "The JSON Lines file.") var file: String
        @Flag(help: "Print the result as JSON.") var json = false

        func run() throws {
            let (report, path) = try reporting { () throws -> (NotificationImport.Report, String) in
                // The file is read and decoded before the store is opened: a file that cannot be read at
                // all leaves the store as it was.
                let lines = try AppDatabase.notificationLines(fromFile: file)
                let database = try store.open(.readWrite)
                let source = (file as NSString).lastPathComponent
                return (try database.importNotifications(lines, source: source, importedAt: Instant(Date())), database.path)
            }
            if json {
                try printJSON(ImportJSON(report, file: file, store: path))
            } else {
                for line in report.lines {
                    switch line.outcome {
                    case .imported: continue
                    case .skipped(let reason): print("line \(line.line) skipped: \(reason)")
                    case .rejected(let reason):
                        warn("\(file):\(line.line): \(reason)")
                    }
                }
                let users = report.usersCreated.isEmpty ? "" : "; new users: " + report.usersCreated.joined(separator: ", ")
                print(
                    "imported \(report.imported), skipped \(report.skipped), rejected \(report.rejected) "
                        + "(\(file) → \(path))" + users)
            }
            if report.rejected > 0 { throw ExitCode(2) }
        }
    }
}

/// `events import --json`: the counts, every line's fate, and what the import made.
struct ImportJSON: Encodable {
    struct Line: Encodable {
        var line: Int
        var outcome: String
        @NullWhenAbsent var reason: String?
        @NullWhenAbsent var notificationUUID: String?
        @NullWhenAbsent var originalTransactionId: String?
        @NullWhenAbsent var userId: String?
    }

    var file: String
    var store: String
    var imported, skipped, rejected: Int
    var lines: [Line]
    var usersCreated: [String]
    var subscriptions: [String]

    init(_ report: NotificationImport.Report, file: String, store: String) {
        self.file = file
        self.store = store
        imported = report.imported
        skipped = report.skipped
        rejected = report.rejected
        lines = report.lines.map {
            Line(
                line: $0.line, outcome: $0.outcome.name, reason: $0.outcome.reason, notificationUUID: $0.notificationUUID,
                originalTransactionId: $0.originalTransactionId, userId: $0.userId)
        }
        usersCreated = report.usersCreated
        subscriptions = report.subscriptions
    }
}
