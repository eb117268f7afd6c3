import ArgumentParser
import Foundation
import StoreDeskStoreAPI

@main
struct StoreDeskCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "storedesk",
        abstract: "An operator console for in-app purchases and game-SDK logins.",
        discussion: "With no subcommand, opens the console on the store.",
        version: StoreDeskCommand.version,
        subcommands: [
            ConsoleCommand.self, SnapshotCommand.self, SeedCommand.self, CheckCommand.self, UserCommand.self,
            ThemesCommand.self, KeysCommand.self, BenchCommand.self, CallbackCommand.self,
            SimulateCommand.self, LoginCommand.self, RestoreCommand.self, AuditCommand.self,
            EventsCommand.self, SubsCommand.self, AppsCommand.self, CatalogCommand.self, ServeCommand.self, QueueCommand.self,
            TrustCommand.self, SignerCommand.self, SupportCommand.self, ConfigCommand.self, FindCommand.self, StoreCommand.self,
        ],
        defaultSubcommand: ConsoleCommand.self)

    /// What `storedesk --version` prints: the release, numbered after the last issue it closes work on.
    static let version = "storedesk 0.34.0"

    /// `storedesk snapshot` and `storedesk find` with only their own options skip ArgumentParser (see
    /// `PlainCommandLine`); everything else is parsed as usual.
    ///
    /// Every error that reaches the top is one line on stderr (`exitReporting`); a command line that is
    /// refused says first what it most likely got wrong (`CommandLineHints`): a mistyped subcommand, an
    /// unknown option.
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if let problem = LockWait.read(ProcessInfo.processInfo.environment).problem {
            warn(problem)
            Foundation.exit(ExitCode.validationFailure.rawValue)
        }
        if let snapshot = SnapshotRequest(arguments: arguments) {
            do { try snapshot.run() } catch { exitReporting(error, command: SnapshotCommand.self) }
        }
        if let find = FindRequest(arguments: arguments) {
            do { try find.run() } catch { exitReporting(error, command: FindCommand.self) }
        }
        var command: ParsableCommand
        HeldWarnings.hold()
        do {
            command = try parseAsRoot(arguments)
        } catch {
            if exitCode(for: error) != .success, let hint = CommandLineHints(root: self).problem(in: arguments) {
                HeldWarnings.drop()
                warn(hint)
                Foundation.exit(ExitCode.validationFailure.rawValue)
            }
            releaseWarnings()
            exitReporting(error, command: self)
        }
        releaseWarnings()
        if let command = command as? any AsyncParsableCommand { runAsMainTask(command) }
        do {
            try command.run()
        } catch {
            exitReporting(error, command: self)
        }
    }

    /// A command that awaits the network (`serve`, `simulate`, `callback check`) runs as the process's main
    /// task, as an async `main` would: the task on Swift's pool, the main thread serving the main queue until
    /// the task ends the process. Every other command stays synchronous.
    static func runAsMainTask(_ command: sending any AsyncParsableCommand) -> Never {
        Task {
            var command = command
            do { try await command.run() } catch { exitReporting(error, command: self) }
            Foundation.exit(EXIT_SUCCESS)
        }
        dispatchMain()
    }
}
