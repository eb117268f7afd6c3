import ArgumentParser
import Foundation
import StoreDeskStore

@main
struct StoreDeskCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "storedesk",
        abstract: "An operator console for in-app purchases and game-SDK logins.",
        discussion: "With no subcommand, opens the console on the store.",
        subcommands: [
            ConsoleCommand.self, SnapshotCommand.self, SeedCommand.self, CheckCommand.self, UserCommand.self,
            ThemesCommand.self, KeysCommand.self, BenchCommand.self, CallbackCommand.self,
            SimulateCommand.self, LoginCommand.self, RestoreCommand.self, AuditCommand.self,
            EventsCommand.self, SubsCommand.self, AppsCommand.self, CatalogCommand.self, ServeCommand.self, QueueCommand.self,
            TrustCommand.self, FindCommand.self,
        ],
        defaultSubcommand: ConsoleCommand.self)

    /// `storedesk snapshot` with only its own options skips ArgumentParser (see `SnapshotRequest`);
    /// everything else is parsed as usual.
    ///
    /// Every error that reaches the top is one line on stderr (`exitReporting`).
    static func main() {
        guard let snapshot = SnapshotRequest(arguments: Array(CommandLine.arguments.dropFirst())) else {
            do {
                var command = try parseAsRoot(nil)
                try command.run()
            } catch {
                exitReporting(error, command: self)
            }
            return
        }
        do {
            try snapshot.run()
        } catch {
            exitReporting(error, command: SnapshotCommand.self)
        }
    }
}
