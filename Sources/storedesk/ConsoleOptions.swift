import ArgumentParser
import Foundation
import StoreDeskCore
import StoreDeskStore
import StoreDeskUI

/// Options every view of the console shares: who is looking, and how it looks.
struct ConsoleOptions: ParsableArguments {
    @Flag(help: "Open the store read-only: no write action is registered.") var readonly = false
    @Option(help: "operator (inspect only), support (restores, reveals), developer (simulations, configuration).")
    var role: String = "operator"
    @Option(name: .customLong("as"), help: "The name written to the audit log (default: your login name).")
    var actor: String?
    @Option(help: "Colour theme: a name from `storedesk themes list` or a .toml file.") var theme: String?
    @Flag(help: "No colours (also when NO_COLOR is set): bold, reverse and underline only.") var noColor = false

    var consoleRole: ConsoleRole {
        get throws {
            guard let role = ConsoleRole(rawValue: role.lowercased()) else {
                throw StoreError.invalidArgument("--role must be operator, support or developer, got '\(role)'")
            }
            return role
        }
    }

    var actorName: String {
        if let actor, !actor.isEmpty { return actor }
        let env = ProcessInfo.processInfo.environment
        return env["USER"] ?? env["LOGNAME"] ?? getlogin().map { String(cString: $0) } ?? "unknown"
    }

    var monochrome: Bool {
        noColor || !(ProcessInfo.processInfo.environment["NO_COLOR"] ?? "").isEmpty
    }

    /// The theme to start with and its warnings; a broken file is an error.
    func loadTheme(_ catalog: ThemeCatalog) throws -> (Theme, [String]) {
        if monochrome { return (Theme.mono, []) }
        if let theme {
            do {
                return try catalog.load(theme)
            } catch let error as ThemeError {
                throw StoreError.invalidArgument(error.description)
            }
        }
        return (Theme.builtInDefault, [])
    }

    func session() throws -> Session { Session(role: try consoleRole, actor: actorName, readOnly: readonly) }
}
