import Foundation
import StoreDeskCore
import StoreDeskStoreAPI

extension ScreenID {
    public static let audit = AuditScreen.id
}

/// The Audit screen: the audit log newest first (every confirm, decline, reveal and change, with
/// name, role and time), filtered as you type, the selected entry in full in the detail pane.
public struct AuditScreen: ConsoleScreen {
    public static let id = ScreenID("audit")
    public static let title = "Audit"

    /// `action:restore actor:li.support words`: an action or family, a name, the rest found anywhere.
    public var filter = ""
    public var list = ListWindow<AuditEntry>()
    public var detailScroll = 0

    public init() {}

    public enum Event: Sendable {
        case page(ListWindow<AuditEntry>.Page)
    }

    /// The filter as a query: `action:` and `actor:` words, the rest matched as text.
    public static func query(_ filter: String) -> AuditQuery {
        var action: String?, actor: String?, words: [String] = []
        for word in filter.split(separator: " ").map(String.init) {
            if word.hasPrefix("action:"), word.count > 7 {
                action = String(word.dropFirst(7))
            } else if word.hasPrefix("actor:"), word.count > 6 {
                actor = String(word.dropFirst(6))
            } else {
                words.append(word)
            }
        }
        return AuditQuery(action: action, actor: actor, text: words.joined(separator: " "))
    }

    public var filterText: String? { filter }

    var source: ListWindow<AuditEntry>.Source {
        let query = Self.query(filter)
        return { $0.audit(query) }
    }

    func show(_ read: @escaping ListWindow<AuditEntry>.Read) -> [Effect] {
        [Self.read { store in Event.page(try read(store)) }]
    }

    public mutating func start(_ context: inout ScreenContext) -> [Effect] {
        show(list.reload(pageSize: context.pageSize, source: source))
    }

    public mutating func refresh(_ context: inout ScreenContext) -> [Effect] {
        show(list.refresh(pageSize: context.pageSize, source: source))
    }

    public mutating func setFilter(_ text: String, _ context: inout ScreenContext) -> [Effect] {
        guard text != filter else { return [] }
        filter = text
        return start(&context)
    }

    public mutating func apply(_ event: Event, _ context: inout ScreenContext) -> [Effect] {
        switch event {
        case .page(let page):
            if list.show(page) == true { detailScroll = 0 }
            return []
        }
    }

    public mutating func perform(_ command: Command, _ context: inout ScreenContext) -> [Effect] {
        switch command {
        case .up, .down, .top, .bottom, .pageUp, .pageDown:
            if context.scrollsDetail(command, &detailScroll) { return [] }
            switch list.move(command, pageSize: context.pageSize, source: source) {
            case .none: return []
            case .stayed:
                detailScroll = 0
                return []
            case .read(let read): return show(read)
            }
        case .open:
            context.focus = .detail
            return []
        default:
            return []
        }
    }

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
