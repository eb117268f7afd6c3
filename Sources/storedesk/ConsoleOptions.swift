import ArgumentParser
import Foundation
import StoreDeskCore
import StoreDeskStore
import StoreDeskUI

/// Options every view of the console shares: who is looking, and how it looks.
struct ConsoleOptions: ParsableArguments {
    @OptionGroup var staff: StaffOptions
    @Option(help: "Colour theme: a name from `storedesk themes list` or a .toml file.") var theme: String?
    @Flag(help: "No colours (also when NO_COLOR is set): bold, reverse and underline only.") var noColor = false

    var readonly: Bool { staff.readonly }

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

    func session() throws -> Session { try staff.session() }
}
