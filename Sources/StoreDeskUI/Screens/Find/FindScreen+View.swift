import Foundation
import StoreDeskCore
import StoreDeskStoreAPI

/// The Find screen's view: the results on the left, the selected one in full on the right.
extension FindScreen {
    public func render(into canvas: inout Canvas, layout: Layout, context: ScreenContext) {
        let rect = layout[.list], focused = context.focus == .list
        let count = results.isEmpty ? "" : " · \(selected + 1) of \(results.count)"
        canvas.frame(rect, title: "Find" + (query.isEmpty ? "" : " · “\(query)”") + count, role: focused ? .borderFocused : .border)
        let inner = rect.inset
        guard inner.height > 1 else { return }
        // The page holding the selection.
        let rows = inner.height - 1, first = rows > 0 ? (selected / rows) * rows : 0
        let columns = ColumnLayout(Self.columns, width: inner.width, fitting: results.dropFirst(first).prefix(rows))
        canvas.writeLine(columns.header, in: inner, row: 0, role: .listHeader)
        if results.isEmpty {
            let message = query.trimmingCharacters(in: .whitespaces).isEmpty
                ? ":find TEXT looks for any id, name or phone" : "nothing matches “\(query)”"
            canvas.write(message, at: Point(x: inner.x + 1, y: inner.y + 2), role: .muted, maxWidth: inner.width - 2)
        }
        for (i, result) in results.enumerated().dropFirst(first).prefix(rows) {
            let role: Role = i == selected ? (focused ? .listSelected : .listSelectedUnfocused) : (result.match == .exact ? .text : .muted)
            canvas.writeLine(columns.line(result), in: inner, row: i - first + 1, role: role)
        }

        let detailRect = layout[.detail]
        canvas.frame(detailRect, title: "Found", role: context.focus == .detail ? .borderFocused : .border)
        guard let result = selectedResult else { return }
        let width = detailRect.inset.width - 2
        var text = DetailText(labelWidth: 13)
        for line in TextWrap.lines("\(result.kind.words), its \(result.field.words) (\(result.match.rawValue))", width: width) {
            text.line(Span(line, .text))
        }
        text.wrapped("found", result.matched, width: width)
        text.field("player", result.userId)
        text.wrapped("name", result.userName, width: width)
        if let account = result.gameAccount { text.field("game account", account) }
        if let transaction = result.transactionId { text.field("transaction", transaction) }
        if let order = result.orderId { text.field("order", order) }
        if let original = result.originalTransactionId { text.field("original", original) }
        if let uuid = result.notificationUUID { text.wrapped("notification", uuid, width: width) }
        if let prompt = result.restorePromptId { text.field("restore", String(prompt)) }
        for line in TextWrap.lines("enter opens " + Self.destination(result).text, width: width) { text.line(Span(line, .muted)) }
        canvas.draw(text.lines, in: detailRect.inset, scroll: detailScroll)
    }

    /// The results' columns, most important first: the value found (the id the ticket gave), then what
    /// kind of thing it is (one id finds a transaction and the restore prompt on it: at 80x24 the two rows
    /// must still differ), where it was found, and whose it is; a narrow list keeps the first ones whole.
    /// Kinds and fields are in words (`words`, at most 12 and 14 columns, so neither is ever cut).
    static var columns: [ListColumn<FindResult>] {
        [
            ListColumn("KIND", priority: 2, width: 12) { $0.kind.words },
            ListColumn("FIELD", priority: 3, width: 15) { $0.field.words + ($0.match == .exact ? "" : "~") },
            ListColumn("FOUND", priority: 1, min: 16, ideal: 24, grows: true) { $0.matched },
            ListColumn("PLAYER", priority: 4, width: 10) { $0.userId },
        ]
    }
}
