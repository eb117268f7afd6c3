import ArgumentParser
import Foundation
import StoreDeskCore
import StoreDeskStoreAPI

/// `storedesk login ...`: what happens when a player logs in to a game.
struct LoginCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login", abstract: "Player logins and what they bring back; login entries; the one-click phone login simulator.", subcommands: [As.self, Entries.self, OneTap.self])

    /// A player logs in: the App Store hands back every unfinished transaction of their Apple ID, and
    /// each dropped order becomes a restore prompt (once).
    struct As: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "as",
            abstract: "Log a player in: their Apple ID's dropped orders become restore prompts, grouped per player.")
        @OptionGroup var store: StoreOptions
        @OptionGroup var staff: StaffOptions
        @Argument(help: "The player's user id.") var user: String
        @OptionGroup var output: OutputOptions

        func run() throws {
            let (login, now) = try reporting {
                _ = try staff.writer("login as")
                let database = try store.open(.readWrite)
                let now = try database.commandNow().instant
                return (try database.recordLogin(userId: user, at: now), try database.commandNow().instant)
            }
            try output.show(LoginReport(login: login, now: now))
        }
    }
}
