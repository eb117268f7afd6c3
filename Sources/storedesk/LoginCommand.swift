import ArgumentParser
import Foundation
import StoreDeskCore
import StoreDeskStore

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
        @Flag(help: "Print the prompts as JSON.") var json = false

        func run() throws {
            let login = try reporting {
                _ = try staff.writer("login as")
                return try store.open(.readWrite).recordLogin(userId: user, at: Instant(Date()))
            }
            if json {
                struct Output: Encodable {
                    struct Player: Encodable {
                        var userId: String
                        var prompts: [RestorePromptJSON]
                    }
                    var userId: String
                    var appleIds: [String]
                    var opened: Int
                    var players: [Player]
                }
                try printJSON(
                    Output(
                        userId: login.userId, appleIds: login.appleIds, opened: login.opened.count,
                        players: login.players.map { player in
                            Output.Player(
                                userId: player.userId,
                                prompts: player.prompts.map { RestorePromptJSON($0, opened: login.opened.contains($0.id)) })
                        }))
                return
            }
            let appleIds = login.appleIds.isEmpty ? "no Apple ID on record" : "Apple ID " + login.appleIds.joined(separator: ", ")
            print("\(login.userId) logged in (\(appleIds)): \(login.opened.count) restore prompt\(login.opened.count == 1 ? "" : "s") opened, \(login.prompts.count) open")
            let now = Instant(Date())
            for player in login.players {
                print("  player \(player.userId)")
                for prompt in player.prompts {
                    print("    " + prompt.line(at: now) + (login.opened.contains(prompt.id) ? "  (new)" : ""))
                }
            }
        }
    }
}
