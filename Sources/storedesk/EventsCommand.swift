import ArgumentParser
import Foundation
import StoreDeskCore
import StoreDeskStoreAPI

/// `storedesk events import FILE`: App Store Server Notifications into the store.
struct EventsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "events", abstract: "App Store Server Notifications in the store.", subcommands: [Import.self, Simulate.self])

    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Import App Store Server Notifications V2 from a JSON Lines file.",
            discussion: """
                Each line is a decoded notification (marked decoded) or Apple's raw {"signedPayload": "..."}. \
                A signed line is verified as Apple's App Store Server Library verifies it (offline: no \
                revocation check): ES256, a three-certificate x5c chain validated at the signing date up to a \
                root the store trusts (storedesk trust add) or one given with --trust-root, Apple's OIDs, the \
                signature, then the app's bundle, Apple ID and environments. One that does not verify is \
                rejected with the check that failed; with no trusted root at all it is rejected unless \
                --allow-unverified, which takes it marked unverified. A line is imported whole or not at all; \
                a repeated notificationUUID is skipped; the file is streamed, so its size does not matter. \
                Exit status: 0 when no line was rejected; 2 when some were (the others are imported, the \
                summary says which); 1 when nothing could be done (a file that cannot be read, no line a \
                notification, a bad store), and then the store is untouched.
                """)

        @OptionGroup var store: StoreOptions
        @Argument(help: "The JSON Lines file.") var file: String
        @Option(name: .customLong("trust-root"), help: "A root certificate (DER or PEM) to trust for this run; repeatable.")
        var trustRoots: [String] = []
        @Flag(help: "With no trusted root, take signed lines without verifying them (marked unverified).")
        var allowUnverified = false
        @OptionGroup var output: OutputOptions

        func run() throws {
            // Printed line by line as the import decides them, not as one report at the end.
            var printer = ImportOutput(file: file, json: output.json)
            let report = try reporting { () throws -> NotificationImport.Report in
                // The file and the roots are read before the store is opened: a file that cannot be read at
                // all leaves the store as it was.
                let notifications = try NotificationFile(path: file)
                let roots = try trustRoots.map(TrustCommand.readRoot)
                let database = try store.open(.readWrite)
                printer.store = database.path
                let report = try database.importNotifications(
                    from: notifications, extraRoots: roots, allowUnverified: allowUnverified, source: notifications.name,
                    wallClock: Instant(Date()), stampAt: nil
                ) { line in printer.line(line) }
                return report
            }
            printer.finish(report)
            if report.rejected > 0 { throw ExitCode(2) }
        }
    }
}
