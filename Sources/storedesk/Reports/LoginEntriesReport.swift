import Foundation
import StoreDeskCore
import StoreDeskStoreAPI

/// `login entries show`: the report, the login panel, the checklist and the history.
struct LoginEntriesShowReport: CommandReport {
    var report: LoginEntryReport
    var app: App
    var history: [LoginEntryHistory]
    var json: LoginEntriesJSON { LoginEntriesJSON(report, app: app, history: history) }
    var text: String { LoginEntriesText.report(report, app: app) + "\n" + LoginEntriesText.history(history) }
}

/// `login entries check`: the verdicts only.
struct LoginEntriesCheckReport: CommandReport {
    var report: LoginEntryReport
    var app: App
    var json: LoginEntriesJSON { LoginEntriesJSON(report, app: app, history: nil) }
    var text: String { LoginEntriesText.verdicts(report, app: app) }
}

/// `login entries set`: what changed, and whether the saved list breaks a rule.
struct LoginEntriesSetReport: CommandReport {
    struct JSON: Encodable {
        var app: String
        var changed: Bool
        @NullWhenAbsent var old: [String]?
        @NullWhenAbsent var new: [String]?
        var valid: Bool
        var violations: [LoginEntriesJSON.Verdict]
    }

    var app: String
    var change: LoginEntryHistory?
    var report: LoginEntryReport

    var json: JSON {
        JSON(
            app: app, changed: change != nil, old: change?.oldEntries.map { $0.map(\.rawValue) },
            new: report.entries.map { $0.map(\.rawValue) }, valid: report.isValid,
            violations: report.verdicts(.error).map(LoginEntriesJSON.Verdict.init))
    }

    var text: String {
        var lines = [change.map { "\(app): \($0.change)" } ?? "\(app): unchanged (\(LoginEntryHistory.text(report.entries)))"]
        for verdict in report.verdicts where verdict.rule.severity != .note {
            lines.append("  \(verdict.rule.severity.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0))\(verdict.code): \(verdict.message)")
        }
        return reportText(lines)
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
        return reportText(lines)
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
        return reportText(lines)
    }

    static func history(_ history: [LoginEntryHistory]) -> String {
        guard !history.isEmpty else { return "\nhistory: no change recorded" }
        return reportText(
            ["", "history (newest first):"] + history.map { "  \($0.at.iso8601)  \($0.actor) (\($0.role), \($0.surface))  \($0.change)" })
    }
}
