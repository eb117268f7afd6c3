import ArgumentParser
import Foundation
import StoreDeskUI

/// `storedesk config show`: each value in force (actor, role, theme, store) and where it came from.
struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config", abstract: "The user's defaults (config.toml) and the values in force.", subcommands: [Show.self])

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Each value in force and where it came from: a flag, the environment, the config file or the default.",
            discussion: """
                The config file is $XDG_CONFIG_HOME/storedesk/config.toml, else ~/.config/storedesk/config.toml; its \
                keys are actor, role, theme and store, each a string. Give the console's flags to see what they change.
                """)
        @OptionGroup var store: StoreOptions
        @OptionGroup var console: ConsoleOptions
        @OptionGroup var output: OutputOptions

        func run() throws {
            let file = UserConfig.current
            let staff = console.staff.staff
            let actor = staff.actorInForce, role = staff.roleInForce, theme = console.look.themeInForce
            let store = store.location.inForce
            let look: ConfigReport.Value
            if console.noColor {
                look = .init(value: Theme.mono.name, source: .flag)
            } else if console.monochrome {
                look = .init(value: Theme.mono.name, source: .environment)
            } else {
                look = .init(value: theme.name ?? Theme.builtInDefault.name, source: theme.source)
            }
            try output.show(
                ConfigReport(
                    file: file,
                    values: [
                        ("actor", .init(value: actor.name, source: actor.source)),
                        ("role", .init(value: role.role.rawValue, source: role.source)),
                        ("theme", look),
                        ("store", .init(value: store.path, source: store.source)),
                    ]))
        }
    }
}
