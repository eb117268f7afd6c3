import Foundation
import StoreDeskCore

extension LoginScreen {
    public func render(into canvas: inout Canvas, layout: Layout, context: ScreenContext) {
        renderList(into: &canvas, rect: layout[.list], context: context)
        renderPreview(into: &canvas, rect: layout[.detail], context: context)
    }

    /// The state of the draft in a word, for the pane's title.
    var draftState: String {
        if editing != nil { return "editing" }
        if isDirty { return "unsaved" }
        return saved == nil ? "unconfigured" : "saved"
    }

    /// The list pane: the entries, the editor while typing, the rule verdicts, the history.
    func renderList(into canvas: inout Canvas, rect: Rect, context: ScreenContext) {
        let focused = context.focus == .list
        let appTitle = setup.map { "\($0.app.id) \($0.app.name)" } ?? "…"
        canvas.frame(rect, title: "Login · \(appTitle) · \(draftState)", role: focused ? .borderFocused : .border)
        let inner = rect.inset
        guard inner.height > 2, setup != nil else { return }
        // Labels are the indent of wrapped verdict messages.
        var text = DetailText(labelWidth: 3)
        let entryWidth = 14
        text.line([Span(" #  " + "ENTRY".padded(to: entryWidth) + " BUTTON", .listHeader)])
        if draft == nil { text.line([Span(" unconfigured: the SDK's default", .muted)]) }
        if draft?.isEmpty == true { text.line([Span(" (empty: platform login directly)", .muted)]) }
        let notShown = report?.panel.notShown ?? []
        for (i, entry) in shownEntries.enumerated() {
            let line = " \(i + 1)".padded(to: 4) + entry.rawValue.padded(to: entryWidth) + " " + entry.buttonTitle
            let role: Role =
                i == selected && editing == nil ? (focused ? .listSelected : .listSelectedUnfocused)
                : (i >= LoginEntryRules.maximumShown || (notShown.contains(entry) && shownEntries.prefix(i).contains(entry))) ? .muted
                : .text
            text.line([Span(line.padded(to: inner.width), role)])
        }
        if let editing {
            text.line([])
            text.line([Span(" entries ", .detailLabel), Span(editing + "▏", .input)])
            if case .failure(let error) = checkedList {
                text.line([Span(" " + error.description, .statusError)])
            }
        }
        text.line([])
        if let report {
            let errors = report.verdicts(.error).count
            text.line([
                Span(" Rules on \(report.platform) · ", .title),
                Span(errors == 0 ? "valid" : "\(errors) violation\(errors == 1 ? "" : "s")", errors == 0 ? .statusSuccess : .statusError),
            ])
            if report.verdicts.isEmpty { text.line([Span(" every rule holds", .muted)]) }
            for verdict in report.verdicts {
                let (mark, role): (String, Role) =
                    switch verdict.rule.severity {
                    case .error: ("✗", .statusError)
                    case .warning: ("!", .statusWarning)
                    case .note: ("·", .muted)
                    }
                text.line([Span(" \(mark) ", role), Span(verdict.code, role)])
                text.paragraph("", verdict.message, width: inner.width - 1, .text)
            }
        }
        for note in report?.legacyNotes ?? [] {
            text.line([Span(" legacy", .statusWarning)])
            text.paragraph("", note, width: inner.width - 1, .muted)
        }
        text.line([])
        text.line([Span(" History", .title)])
        let history = setup?.history ?? []
        if history.isEmpty { text.line([Span(" no change recorded", .muted)]) }
        for change in history {
            text.line([
                Span(" " + change.at.shortText(in: context.timeZone) + " ", .muted), Span(change.actor, .detailValue),
                Span(" (\(change.role), \(change.surface))", .muted),
            ])
            text.line([Span("   " + change.change, .text)])
        }
        canvas.draw(text.lines, in: Rect(x: inner.x - 1, y: inner.y, width: inner.width + 1, height: inner.height), scroll: 0)
    }

    /// The detail pane: the custom-entry flow, the login panel the game would show, the checklist.
    func renderPreview(into canvas: inout Canvas, rect: Rect, context: ScreenContext) {
        canvas.frame(rect, title: "Preview · \(platform)", role: context.focus == .detail ? .borderFocused : .border)
        guard let preview = previewReport else { return }
        let report = preview.report
        let width = rect.inset.width - 2
        var text = DetailText(labelWidth: 13)
        if preview.partial {
            for line in TextWrap.lines("while typing: the entries up to the last whole one", width: width) { text.line(Span(line, .muted)) }
        }
        for (i, step) in report.panel.flow.enumerated() { text.line(Span("\(i + 1). ", .muted), Span(step, .text)) }
        let boxWidth = min(34, max(20, width - 4))
        text.line(Span("  ┌" + String(repeating: "─", count: boxWidth - 2) + "┐", .border))
        if report.panel.opensPlatformLoginDirectly {
            text.line(Span("  │", .border), Span(" platform login".padded(to: boxWidth - 2), .muted), Span("│", .border))
        }
        for button in report.panel.buttons {
            let mark = button.webFlow ? " web" : ""
            let label = " [ " + button.title.padded(to: boxWidth - 8 - mark.columns) + " ]"
            text.line(Span("  │", .border), Span(label, .text), Span(mark + " ", .statusWarning), Span("│", .border))
        }
        text.line(Span("  └" + String(repeating: "─", count: boxWidth - 2) + "┘", .border))
        if !report.panel.notShown.isEmpty {
            text.paragraph("not shown", report.panel.notShown.map(\.rawValue).joined(separator: ", "), width: width, .muted)
        }
        text.heading("Integration checklist")
        // The long list of schemes last, so URL types and capabilities fit an 80x24 terminal.
        for section in [IntegrationChecklist.Section.urlTypes, .capabilities, .queriesSchemes] {
            let items = report.checklist.items(section)
            guard !items.isEmpty else { continue }
            let label = section == .queriesSchemes ? "QuerySchemes" : section.rawValue
            if section == .queriesSchemes {
                text.paragraph(label, items.map(\.value).joined(separator: " "), width: width)
            } else {
                for (i, item) in items.enumerated() {
                    text.paragraph(i == 0 ? label : "", item.value + (item.missing ? " (missing)" : ""), width: width, item.missing ? .statusWarning : .detailValue)
                }
            }
        }
        canvas.draw(text.lines, in: rect.inset, scroll: detailScroll)
    }
}
