import ArgumentParser
import Foundation
import StoreDeskCore
import StoreDeskStore

/// Which device a report is for: `--platform`, `--os-version`.
struct LoginPlatformOptions: ParsableArguments {
    @Option(help: "ios or android (default: ios).") var platform = "ios"
    @Option(name: .customLong("os-version"), help: "The OS version, e.g. 17 or 12.4 (default: iOS 17).") var osVersion: String?

    func parsed() throws -> LoginPlatform {
        do {
            return try LoginPlatform(system: platform, version: osVersion)
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
            @Flag(help: "Print JSON.") var json = false

            func run() throws {
                let (setup, report) = try reporting {
                    let platform = try device.parsed()
                    let setup = try store.open(.readOnly).loginEntrySetup(appId: app)
                    return (setup, LoginEntryReport(appId: app, configuration: setup.configuration, platform: platform))
                }
                if json { return try printJSON(LoginEntriesJSON(report, app: setup.app, history: setup.history)) }
                print(LoginEntriesText.report(report, app: setup.app))
                print(LoginEntriesText.history(setup.history))
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
            @Flag(help: "Print JSON.") var json = false

            func run() throws {
                let (change, report) = try reporting {
                    let list: [LoginEntry]?
                    switch (entries, sdkDefault) {
                    case (let text?, false): list = try Entries.list(text)
                    case (nil, true): list = nil
                    default: throw StoreError.invalidArgument("give either --entries LIST or --default")
                    }
                    let editor = try staff.editor("login entries set")
                    let database = try store.open(.readWrite)
                    let change = try database.setLoginEntries(list, appId: app, by: editor, surface: "cli", at: Instant(Date()))
                    let setup = try database.loginEntrySetup(appId: app)
                    return (change, LoginEntryReport(appId: app, configuration: setup.configuration, platform: .iPhone))
                }
                if json {
                    struct Output: Encodable {
                        var app: String
                        var changed: Bool
                        @NullWhenAbsent var old: [String]?
                        @NullWhenAbsent var new: [String]?
                        var valid: Bool
                        var violations: [LoginEntriesJSON.Verdict]
                    }
                    return try printJSON(
                        Output(
                            app: app, changed: change != nil, old: change?.oldEntries.map { $0.map(\.rawValue) },
                            new: report.entries.map { $0.map(\.rawValue) }, valid: report.isValid,
                            violations: report.verdicts(.error).map(LoginEntriesJSON.Verdict.init)))
                }
                print(change.map { "\(app): \($0.change)" } ?? "\(app): unchanged (\(LoginEntryHistory.text(report.entries)))")
                for verdict in report.verdicts where verdict.rule.severity != .note {
                    print("  \(verdict.rule.severity.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0))\(verdict.code): \(verdict.message)")
                }
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
            @Flag(help: "Print JSON.") var json = false

            func run() throws {
                let (setup, report) = try reporting {
                    let platform = try device.parsed()
                    let list = try entries.map(Entries.list)
                    let switches: LegacyLoginSwitches?
                    do {
                        switches = try legacy.map(LegacyLoginSwitches.init(list:))
                    } catch {
                        throw StoreError.invalidArgument("--legacy: \(error)")
                    }
                    guard list == nil || switches == nil else { throw StoreError.invalidArgument("give --entries or --legacy, not both") }
                    let setup = try store.open(.readOnly).loginEntrySetup(appId: app, historyLimit: 0)
                    let report = LoginEntryReport(
                        appId: app, configuration: setup.configuration, entries: list.map { .some($0) }, legacy: switches,
                        platform: platform)
                    return (setup, report)
                }
                if json {
                    try printJSON(LoginEntriesJSON(report, app: setup.app, history: nil))
                } else {
                    print(LoginEntriesText.verdicts(report, app: setup.app))
                }
                if !report.isValid { throw ExitCode(1) }
            }
        }
    }
}

/// `login entries show|check --json`: keys sorted, snake_case, every key always present.
struct LoginEntriesJSON: Encodable {
    struct Verdict: Encodable {
        var code: String
        var severity: String
        var message: String
        init(_ verdict: LoginVerdict) {
            code = verdict.code
            severity = verdict.rule.severity.rawValue
            message = verdict.message
        }
    }
    struct Button: Encodable {
        var entry: String
        var title: String
        var webFlow: Bool
        enum CodingKeys: String, CodingKey { case entry, title, webFlow = "web_flow" }
    }
    struct Panel: Encodable {
        var buttons: [Button]
        var notShown: [String]
        var platformLoginDirectly: Bool
        var flow: [String]
        enum CodingKeys: String, CodingKey {
            case buttons, flow
            case notShown = "not_shown"
            case platformLoginDirectly = "platform_login_directly"
        }
    }
    struct Item: Encodable {
        var value: String
        var reason: String
        var missing: Bool
    }
    struct Checklist: Encodable {
        var urlTypes: [Item]
        var queriesSchemes: [Item]
        var capabilities: [Item]
        enum CodingKeys: String, CodingKey {
            case capabilities
            case urlTypes = "url_types"
            case queriesSchemes = "ls_application_queries_schemes"
        }
    }
    struct Change: Encodable {
        var at: String
        var actor: String
        var role: String
        var surface: String
        @NullWhenAbsent var old: [String]?
        @NullWhenAbsent var new: [String]?
    }

    var app: String
    var appName: String
    var configured: Bool
    @NullWhenAbsent var entries: [String]?
    var effectiveEntries: [String]
    var platform: String
    var osVersion: Int?
    var valid: Bool
    var violations: [Verdict]
    var warnings: [Verdict]
    var notes: [Verdict]
    var legacyNotes: [String]
    var panel: Panel
    var checklist: Checklist
    var history: [Change]?

    enum CodingKeys: String, CodingKey {
        case app, configured, entries, platform, valid, violations, warnings, notes, panel, checklist, history
        case appName = "app_name"
        case effectiveEntries = "effective_entries"
        case osVersion = "os_version"
        case legacyNotes = "legacy_notes"
    }

    init(_ report: LoginEntryReport, app: App, history: [LoginEntryHistory]?) {
        self.app = app.id
        appName = app.name
        configured = report.entries != nil
        entries = report.entries.map { $0.map(\.rawValue) }
        effectiveEntries = (report.entries ?? LoginEntry.sdkDefault).map(\.rawValue)
        platform = report.platform.system.rawValue
        osVersion = report.platform.majorVersion
        valid = report.isValid
        violations = report.verdicts(.error).map(Verdict.init)
        warnings = report.verdicts(.warning).map(Verdict.init)
        notes = report.verdicts(.note).map(Verdict.init)
        legacyNotes = report.legacyNotes
        panel = Panel(
            buttons: report.panel.buttons.map { Button(entry: $0.entry.rawValue, title: $0.title, webFlow: $0.webFlow) },
            notShown: report.panel.notShown.map(\.rawValue), platformLoginDirectly: report.panel.opensPlatformLoginDirectly,
            flow: report.panel.flow)
        func items(_ section: IntegrationChecklist.Section) -> [Item] {
            report.checklist.items(section).map { Item(value: $0.value, reason: $0.reason, missing: $0.missing) }
        }
        checklist = Checklist(urlTypes: items(.urlTypes), queriesSchemes: items(.queriesSchemes), capabilities: items(.capabilities))
        self.history = history?.map {
            Change(
                at: $0.at.iso8601, actor: $0.actor, role: $0.role, surface: $0.surface, old: $0.oldEntries.map { $0.map(\.rawValue) },
                new: $0.newEntries.map { $0.map(\.rawValue) })
        }
    }

    func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(app, forKey: .app)
        try container.encode(appName, forKey: .appName)
        try container.encode(configured, forKey: .configured)
        try container.encode(entries, forKey: .entries)
        try container.encode(effectiveEntries, forKey: .effectiveEntries)
        try container.encode(platform, forKey: .platform)
        try container.encode(osVersion, forKey: .osVersion)
        try container.encode(valid, forKey: .valid)
        try container.encode(violations, forKey: .violations)
        try container.encode(warnings, forKey: .warnings)
        try container.encode(notes, forKey: .notes)
        try container.encode(legacyNotes, forKey: .legacyNotes)
        try container.encode(panel, forKey: .panel)
        try container.encode(checklist, forKey: .checklist)
        if let history { try container.encode(history, forKey: .history) }
    }
}

/// The plain-text forms of a report.
enum LoginEntriesText {
    static func verdicts(_ report: LoginEntryReport, app: App) -> String {
        let errors = report.verdicts(.error).count
        var lines = [
            "\(app.id) \(app.name) on \(report.platform): \(LoginEntryHistory.text(report.entries)) — "
                + (errors == 0 ? "valid" : "\(errors) violation\(errors == 1 ? "" : "s")")
        ]
        for verdict in report.verdicts {
            lines.append("  \(verdict.rule.severity.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0))\(verdict.code): \(verdict.message)")
        }
        lines += report.legacyNotes.map { "  legacy  \($0)" }
        return lines.joined(separator: "\n")
    }

    static func report(_ report: LoginEntryReport, app: App) -> String {
        var lines = [verdicts(report, app: app), "", "login panel (\(report.platform)):"]
        lines += report.panel.flow.enumerated().map { "  \($0.offset + 1). \($0.element)" }
        if report.panel.opensPlatformLoginDirectly { lines.append("  [ platform login, no buttons ]") }
        for button in report.panel.buttons {
            lines.append("  [ \(button.title) ]" + (button.webFlow ? "  (web)" : ""))
        }
        if !report.panel.notShown.isEmpty { lines.append("  not shown: " + report.panel.notShown.map(\.rawValue).joined(separator: ", ")) }
        lines.append("")
        lines.append("integration checklist (iOS project):")
        for section in IntegrationChecklist.Section.allCases {
            let items = report.checklist.items(section)
            guard !items.isEmpty else { continue }
            lines.append("  \(section.rawValue):")
            lines += items.map { "    \($0.missing ? "!" : "-") \($0.value)  (\($0.reason)\($0.missing ? "; missing" : ""))" }
        }
        return lines.joined(separator: "\n")
    }

    static func history(_ history: [LoginEntryHistory]) -> String {
        guard !history.isEmpty else { return "\nhistory: no change recorded" }
        return (["", "history (newest first):"]
            + history.map { "  \($0.at.iso8601)  \($0.actor) (\($0.role), \($0.surface))  \($0.change)" }).joined(separator: "\n")
    }
}
