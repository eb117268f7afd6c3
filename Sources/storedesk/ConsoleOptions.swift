import ArgumentParser
import Foundation
import StoreDeskCore
import StoreDeskStoreAPI
import StoreDeskUI

/// Options every view of the console shares: who is looking, and how it looks.
struct ConsoleOptions: ParsableArguments {
    @OptionGroup var staff: StaffOptions
    @Option(help: "Colour theme: a name from `storedesk themes list` or a .toml file (default: the config file's theme).")
    var theme: String?
    @Flag(help: "No colours (also when NO_COLOR is set): bold, reverse and underline only.") var noColor = false
    @Flag(help: "Draw pictures with ASCII (also when the locale is not UTF-8, or TERM is linux or vt100).") var ascii = false

    var readonly: Bool { staff.readonly }
    /// How the console looks, as a plain value.
    var look: Look { Look(theme: theme, noColor: noColor, ascii: ascii) }
    var monochrome: Bool { look.monochrome }
    func loadTheme(_ catalog: ThemeCatalog) throws -> (Theme, [String]) { try look.loadTheme(catalog) }
    func session() -> Session { staff.session() }
}

/// `--theme` and `--no-color` as a plain value, so a command can be run without ArgumentParser's
/// reflection (see `SnapshotRequest`).
struct Look: Equatable {
    var theme: String?
    var noColor = false
    var ascii = false

    /// What pictures are drawn with: ASCII when asked, or where the terminal or locale would not show blocks.
    var glyphs: TimelineBar.Glyphs { .detect(ascii: ascii, environment: ProcessInfo.processInfo.environment) }

    var monochrome: Bool {
        noColor || !(environmentValue("NO_COLOR") ?? "").isEmpty
    }

    /// The theme asked for, and where: `--theme`, else the config file's `theme`; nil for the built-in one.
    var themeInForce: (name: String?, source: ValueSource) {
        if let theme { return (theme, .flag) }
        if let theme = UserConfig.current.theme { return (theme, .configFile) }
        return (nil, .default)
    }

    /// The theme to start with and its warnings. One asked for with `--theme` that cannot be loaded is an
    /// error; one the config file names is a warning naming the file, and the console starts on the
    /// built-in theme, as for the file's other keys.
    func loadTheme(_ catalog: ThemeCatalog) throws -> (Theme, [String]) {
        if monochrome { return (Theme.mono, []) }
        let (name, source) = themeInForce
        if let name {
            do {
                return try catalog.load(name)
            } catch let error as ThemeError {
                guard source == .configFile else { throw StoreError.invalidArgument(error.description) }
                return (Theme.builtInDefault, ["\(UserConfig.current.path): key 'theme': \(error.description); using the built-in theme"])
            }
        }
        return (Theme.builtInDefault, [])
    }
}
