import ArgumentParser
import Foundation
import StoreDeskUI

struct ThemesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "themes", abstract: "List and check colour themes.", subcommands: [List.self, Check.self])

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "The themes this console can use.")
        func run() throws {
            let catalog = ThemeCatalog()
            for name in catalog.names {
                printColumns([name, catalog.files[name]?.path ?? "(built in)"])
            }
        }
    }

    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "check",
            abstract: "Check theme files (default: every known theme). Exit 1 if any is broken.")
        @Argument(help: "Theme files or names.") var files: [String] = []

        func run() throws {
            let catalog = ThemeCatalog()
            var broken = 0
            for name in files.isEmpty ? catalog.names : files {
                do {
                    let (theme, warnings) = try catalog.load(name)
                    for warning in warnings { warn("warning: \(warning)") }
                    print("ok: \(name) (\(theme.name)\(warnings.isEmpty ? "" : ", \(warnings.count) warning\(warnings.count == 1 ? "" : "s")"))")
                } catch {
                    broken += 1
                    warn("\(error)")
                }
            }
            if broken > 0 { throw ExitCode(1) }
        }
    }
}

struct KeysCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys", abstract: "Print the console's key bindings as a Markdown table (the README's key list).")

    func run() throws { print(Keymap.markdownTable) }
}
