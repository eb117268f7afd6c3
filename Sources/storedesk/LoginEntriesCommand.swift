import ArgumentParser
import Foundation
import StoreDeskCore
import StoreDeskStoreAPI

/// Which device a report is for: `--platform`, `--os-version`.
struct LoginPlatformOptions: ParsableArguments {
    @Option(help: "The device's system.") var platform = LoginPlatform.System.ios
    @Option(name: .customLong("os-version"), help: "The OS version, e.g. 17 or 12.4 (default: iOS 17).") var osVersion: String?

    func validate() throws { _ = try reporting(parsed) }

    func parsed() throws -> LoginPlatform {
        do {
            return try LoginPlatform(system: platform.rawValue, version: osVersion)
        } catch {
            throw StoreError.invalidArgument(error.description)
        }
    }
}

extension LoginCommand {
    /// `storedesk login entries show|set|check`: a game's login buttons (the SDK's setLoginEntries).
    struct Entries: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "entries", abstract: "A game's login buttons (setLoginEntries): show, set, check against the SDK's rules.",
            subcommands: [Show.self, Save.self, Check.self])

        /// Parses `--entries`: SDK names or aliases, comma-separated; "" is the empty list.
        static func list(_ text: String) throws -> [LoginEntry] {
            do {
                return try LoginEntry.list(text)
            } catch {
                throw StoreError.invalidArgument("--entries: \(error.description)")
            }
        }

        struct Show: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "show",
                abstract: "The saved list (or the SDK's default), its rule verdicts, the login panel, the integration checklist and history.")
            @OptionGroup var store: StoreOptions
            @Option(help: "The app id.") var app: String
            @OptionGroup var device: LoginPlatformOptions
            @OptionGroup var output: OutputOptions

            func run() throws {
                let (setup, report) = try reporting {
                    let platform = try device.parsed()
                    let setup = try store.open(.readOnly).loginEntrySetup(appId: app)
                    return (setup, LoginEntryReport(appId: app, configuration: setup.configuration, platform: platform))
                }
                try output.show(LoginEntriesShowReport(report: report, app: setup.app, history: setup.history))
            }
        }

        struct Save: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "set",
                abstract: "Save a game's list (developers only; history and audit), or --default to clear it back to the SDK's default.")
            @OptionGroup var store: StoreOptions
            @OptionGroup var staff: StaffOptions
            @Option(help: "The app id.") var app: String
            @Option(help: "Entries in order: APPLE_LOGIN or apple, WX_LOGIN or wechat, qq, taptap, guest, xd; \"\" for none.")
            var entries: String?
            @Flag(name: .customLong("default"), help: "Clear the list: the SDK's default applies again.") var sdkDefault = false
            @OptionGroup var output: OutputOptions

            func validate() throws {
                guard (entries != nil) != sdkDefault else { throw fail("give either --entries LIST or --default") }
                _ = try reporting { try entries.map(Entries.list) }
            }

            func run() throws {
                let (change, report) = try reporting {
                    let list = try entries.map(Entries.list)
                    let editor = try staff.editor("login entries set")
                    let database = try store.open(.readWrite)
                    let change = try database.setLoginEntries(list, appId: app, by: editor, surface: "cli", at: database.commandNow().instant)
                    let setup = try database.loginEntrySetup(appId: app)
                    return (change, LoginEntryReport(appId: app, configuration: setup.configuration, platform: .iPhone))
                }
                try output.show(LoginEntriesSetReport(app: app, change: change, report: report))
            }
        }

        struct Check: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "check",
                abstract: "Check the saved list (or --entries, or --legacy switches) against the SDK's rules; exit 1 on a violation.")
            @OptionGroup var store: StoreOptions
            @Option(help: "The app id.") var app: String
            @Option(help: "A list to check instead of the saved one (\"\" for none).") var entries: String?
            @Option(help: "Old switches to check as the list they amount to: hide-guest, hide-wechat, hide-qq, hide-taptap, show-verycd, qq-web, wechat-web.")
            var legacy: String?
            @OptionGroup var device: LoginPlatformOptions
            @OptionGroup var output: OutputOptions

            func validate() throws {
                guard entries == nil || legacy == nil else { throw fail("give --entries or --legacy, not both") }
                _ = try reporting { try entries.map(Entries.list) }
                _ = try reporting(legacySwitches)
            }

            /// `--legacy`, read as the switches it names.
            func legacySwitches() throws -> LegacyLoginSwitches? {
                do {
                    return try legacy.map(LegacyLoginSwitches.init(list:))
                } catch {
                    throw StoreError.invalidArgument("--legacy: \(error)")
                }
            }

            func run() throws {
                let (setup, report) = try reporting {
                    let platform = try device.parsed()
                    let list = try entries.map(Entries.list)
                    let switches = try legacySwitches()
                    let setup = try store.open(.readOnly).loginEntrySetup(appId: app, historyLimit: 0)
                    let report = LoginEntryReport(
                        appId: app, configuration: setup.configuration, entries: list.map { .some($0) }, legacy: switches,
                        platform: platform)
                    return (setup, report)
                }
                try output.show(LoginEntriesCheckReport(report: report, app: setup.app))
                if !report.isValid { throw ExitCode(1) }
            }
        }
    }
}
