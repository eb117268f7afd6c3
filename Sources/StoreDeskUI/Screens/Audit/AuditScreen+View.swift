import Foundation
import StoreDeskCore

/// The Audit screen's view: the list on the left, the selected entry on the right.
extension AuditScreen {
    public func render(into canvas: inout Canvas, layout: Layout, context: ScreenContext) {
        let rect = layout[.list], focused = context.focus == .list
        let order = sort == ListSort("when", descending: true) ? "" : " · " + sort.label
        canvas.frame(rect, title: "Audit · " + list.positionText() + order + (filter.isEmpty ? "" : " · “\(filter)”"), role: focused ? .borderFocused : .border)
        let inner = rect.inset
        guard inner.height > 1 else { return }
        let columns = ColumnLayout(
            Self.columns(zone: context.timeZone, filter: filter), width: inner.width, fitting: list.rows.prefix(max(0, inner.height - 1)))
        canvas.writeLine(columns.header, in: inner, row: 0, role: .listHeader)
        if list.rows.isEmpty {
            let message = filter.isEmpty ? "the audit log is empty" : "no audit entries match “\(filter)”"
            canvas.write(message, at: Point(x: inner.x + 1, y: inner.y + 2), role: .muted, maxWidth: inner.width - 2)
        }
        for (i, entry) in list.rows.enumerated() where i + 1 < inner.height {
            let role: Role = i == list.selected ? (focused ? .listSelected : .listSelectedUnfocused) : Self.role(of: entry.action)
            canvas.writeLine(columns.line(entry), in: inner, row: i + 1, role: role)
        }

        let detailRect = layout[.detail]
        canvas.frame(detailRect, title: "Entry", role: context.focus == .detail ? .borderFocused : .border)
        guard let entry = list.selectedRow else { return }
        let width = detailRect.inset.width - 2
        var text = DetailText(labelWidth: 9)
        text.line(Span(entry.action, Self.role(of: entry.action)))
        text.field("at", entry.at.secondsText(in: context.timeZone))
        text.field("actor", entry.actor)
        text.field("role", entry.role)
        text.wrapped("subject", entry.subject, width: width)
        text.paragraph("detail", entry.detail, width: width)
        canvas.draw(text.lines, in: detailRect.inset, scroll: detailScroll)
    }

    /// The list's columns, most important first: what was done and when, by whom, on what; a wide
    /// terminal adds the role it was done in. While the filter has words beside its `action:` and `actor:`
    /// (which name their field), MATCHED says which fields they were found in, in any case.
    static func columns(zone: TimeZone, filter: String = "") -> [ListColumn<AuditEntry>] {
        let query = Self.query(filter)
        var matched = MatchedFields<AuditEntry>()
        for (name, value) in [("actor", \AuditEntry.actor), ("action", \.action), ("subject", \.subject), ("detail", \.detail)] {
            matched.contains(name, query.text, ignoringCase: true) { $0[keyPath: value] }
        }
        return [
            ListColumn("WHEN", priority: 2, width: 16) { $0.at.shortText(in: zone) },
            // Who did it comes before which field a filter matched.
            ListColumn("ACTOR", priority: 3, min: 12, ideal: 14) { $0.actor },
            ListColumn("ACTION", priority: 1, min: 8, ideal: 22, grows: true) { $0.action },
        ] + matched.column(priority: 4) + [
            ListColumn("SUBJECT", priority: 5, min: 10, ideal: 24, grows: true) { $0.subject },
            ListColumn("ROLE", priority: 6, width: 9) { $0.role },
        ]
    }

    /// Confirms read as restored, declines as failed, reveals as masked data shown.
    static func role(of action: String) -> Role {
        if action.hasPrefix("restore.decline") { return .stateFailed }
        if action.hasPrefix("restore.") { return .stateRestored }
        if action.hasPrefix("reveal.") { return .masked }
        return .text
    }
}
