import Foundation
import StoreDeskCore

/// The Codes screen's view: the codes on the left, the selected one's meaning on the right.
extension CodesScreen {
    public func render(into canvas: inout Canvas, layout: Layout, context: ScreenContext) {
        let list = layout[.list]
        var title = "Codes · \(rows.count.formattedWithSeparators)"
        if !filter.isEmpty { title += " · filter “\(filter)”" }
        canvas.frame(list, title: title, role: context.focus == .list ? .borderFocused : .border)
        let inner = list.inset
        let codeWidth = 7
        let familyWidth = 10
        canvas.writeLine(
            " " + "FAMILY".padded(to: familyWidth) + " " + "CODE".leftPadded(to: codeWidth) + "  NAME", in: inner, row: 0,
            role: .listHeader)
        if rows.isEmpty {
            canvas.write("no code matches “\(filter)”", at: Point(x: inner.x + 1, y: inner.y + 2), role: .muted, maxWidth: inner.width - 2)
        }
        for (i, row) in rows.dropFirst(top).prefix(max(0, inner.height - 1)).enumerated() {
            let index = top + i
            let role: Role = index == selected ? (context.focus == .list ? .listSelected : .listSelectedUnfocused) : .text
            let line = " " + row.tag.padded(to: familyWidth) + " " + row.code.leftPadded(to: codeWidth) + "  " + row.name
            canvas.writeLine(line, in: inner, row: i + 1, role: role)
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
