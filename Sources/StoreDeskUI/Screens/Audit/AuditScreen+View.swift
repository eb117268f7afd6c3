import Foundation
import StoreDeskCore

/// The Audit screen's view: the list on the left, the selected entry on the right.
extension AuditScreen {
    public func render(into canvas: inout Canvas, layout: Layout, context: ScreenContext) {
        let rect = layout[.list], focused = context.focus == .list
        canvas.frame(rect, title: "Audit" + (filter.isEmpty ? "" : " · “\(filter)”"), role: focused ? .borderFocused : .border)
        let inner = rect.inset
        guard inner.height > 1 else { return }
        // A narrow list shows the month and day only and leaves the actor to the detail pane.
        let narrow = inner.width < 50
        let whenWidth = narrow ? 11 : 16, actorWidth = narrow ? 0 : 12
        let actionWidth = max(4, inner.width - 2 - whenWidth - 1 - (narrow ? 0 : actorWidth + 1))
        func actor(_ name: String) -> String { narrow ? "" : name.padded(to: actorWidth) + " " }
        canvas.writeLine(
            " " + "WHEN".padded(to: whenWidth) + " " + actor("ACTOR") + "ACTION".padded(to: actionWidth),
            in: inner, row: 0, role: .listHeader)
        if list.rows.isEmpty {
            let message = filter.isEmpty ? "the audit log is empty" : "no audit entries match “\(filter)”"
            canvas.write(message, at: Point(x: inner.x + 1, y: inner.y + 2), role: .muted, maxWidth: inner.width - 2)
        }
        for (i, entry) in list.rows.enumerated() where i + 1 < inner.height {
            let when = entry.at.shortText(in: context.timeZone)
            let line = " " + (narrow ? String(when.dropFirst(5)) : when).padded(to: whenWidth) + " " + actor(entry.actor)
                + entry.action.padded(to: actionWidth)
            let role: Role = i == list.selected ? (focused ? .listSelected : .listSelectedUnfocused) : Self.role(of: entry.action)
            canvas.writeLine(line, in: inner, row: i + 1, role: role)
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

    /// Confirms read as restored, declines as failed, reveals as masked data shown.
    static func role(of action: String) -> Role {
        if action.hasPrefix("restore.decline") { return .stateFailed }
        if action.hasPrefix("restore.") { return .stateRestored }
        if action.hasPrefix("reveal.") { return .masked }
        return .text
    }
}
