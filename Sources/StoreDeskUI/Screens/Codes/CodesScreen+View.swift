import Foundation
import StoreDeskCore

/// The Codes screen's view: the codes on the left, the selected one's meaning on the right.
extension CodesScreen {
    /// The list's columns, most important first: the code and its name, then its family; a wide
    /// terminal adds where it comes from. While a filter is on, MATCHED says what it matched: the code
    /// exactly, or a piece of where it comes from, its family, name or meaning.
    static func columns(filter: String = "") -> [ListColumn<CodeRow>] {
        let text = filter.trimmingCharacters(in: .whitespaces)
        var matched = MatchedFields<CodeRow>()
        matched.equals("code", text.lowercased()) { $0.code }
        for (name, value) in [("from", \CodeRow.source), ("family", \.family), ("name", \.name), ("meaning", \.meaning)] {
            matched.contains(name, text, ignoringCase: true) { $0[keyPath: value] }
        }
        return [
            ListColumn("FAMILY", priority: 4, width: 10) { $0.tag },
            ListColumn("CODE", priority: 1, width: 7, alignment: .right) { $0.code },
            ListColumn("NAME", priority: 2, min: 10, ideal: 32, grows: true) { $0.name },
        ] + matched.column(priority: 3) + [
            ListColumn("FROM", priority: 5, min: 12, ideal: 28) { $0.source },
        ]
    }

    public func render(into canvas: inout Canvas, layout: Layout, context: ScreenContext) {
        let list = layout[.list]
        var title = "Codes · " + (rows.isEmpty ? "0" : "\((selected + 1).formattedWithSeparators) of \(rows.count.formattedWithSeparators)")
        if !filter.isEmpty { title += " · filter “\(filter)”" }
        canvas.frame(list, title: title, role: context.focus == .list ? .borderFocused : .border)
        let inner = list.inset
        let columns = ColumnLayout(Self.columns(filter: filter), width: inner.width, fitting: rows.dropFirst(top).prefix(max(0, inner.height - 1)))
        canvas.writeLine(columns.header, in: inner, row: 0, role: .listHeader)
        if rows.isEmpty {
            canvas.write("no code matches “\(filter)”", at: Point(x: inner.x + 1, y: inner.y + 2), role: .muted, maxWidth: inner.width - 2)
        }
        for (i, row) in rows.dropFirst(top).prefix(max(0, inner.height - 1)).enumerated() {
            let index = top + i
            let role: Role = index == selected ? (context.focus == .list ? .listSelected : .listSelectedUnfocused) : .text
            canvas.writeLine(columns.line(row), in: inner, row: i + 1, role: role)
        }
        let detail = layout[.detail]
        canvas.frame(detail, title: "Meaning", role: context.focus == .detail ? .borderFocused : .border)
        guard let row = selectedRow else { return }
        var text = DetailText(labelWidth: 9)
        text.line(Span(row.name, .title))
        text.field("code", row.code)
        text.field("family", row.family)
        text.field("from", row.source)
        text.line([])
        text.wrapped("meaning", row.meaning, width: detail.inset.width - 2, .text)
        canvas.draw(text.lines, in: detail.inset, scroll: detailScroll)
    }
}
