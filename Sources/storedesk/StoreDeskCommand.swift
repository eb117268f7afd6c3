import ArgumentParser
import Foundation
import StoreDeskStore

@main
struct StoreDeskCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "storedesk",
        abstract: "An operator console for in-app purchases and game-SDK logins.",
        discussion: "With no subcommand, opens the console on the store.",
        subcommands: [ConsoleCommand.self, SeedCommand.self, CheckCommand.self, UserCommand.self],
        defaultSubcommand: ConsoleCommand.self)
}

struct ConsoleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "console", abstract: "Open the console (the default when no subcommand is given).")

    @OptionGroup var store: StoreOptions

    func run() async throws {
        let database = try reporting { try store.open(.readOnly) }
        print("The console is not built yet. Store: \(database.path)")
    }
}
