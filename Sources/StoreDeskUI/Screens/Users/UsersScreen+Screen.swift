import Foundation
import StoreDeskCore
import StoreDeskStoreAPI

/// The Users screen in the console: its keys, its `:` verbs, and its reducer's entry points.
extension UsersScreen {
    public static let id = ScreenID("users")
    public static let title = "Users"

    public static let bindings: [Binding] = [
        Binding(
            [.character("p")], .screen("reveal-phone"), help: "reveal",
            summary: "Reveal the selected user's phone number (audited).", writes: true,
            disabledReason: { state in
                state.session.role == .support ? nil : "revealing a phone number needs the support role"
            }),
    ]

    public static let footer: [Command] = [.screen("reveal-phone")]

    public static let verbs: [ConsoleCommandLine.Verb] = [
        .init(name: "user", argument: "ID", summary: "select the user with this id"),
    ]

    public var filterText: String? { filter }

    public mutating func start(_ context: inout ScreenContext) -> [Effect] { reload(pageSize: context.pageSize) }

    public mutating func refresh(_ context: inout ScreenContext) -> [Effect] { refresh(pageSize: context.pageSize) }

    public mutating func setFilter(_ text: String, _ context: inout ScreenContext) -> [Effect] {
        setFilter(text, pageSize: context.pageSize)
    }

    public mutating func apply(_ event: any Sendable, _ context: inout ScreenContext) -> [Effect] {
        guard let event = event as? Event else { return [] }
        return apply(event, pageSize: context.pageSize)
    }

    public mutating func select(id: String, _ context: inout ScreenContext) -> [Effect] { jump(to: id, pageSize: context.pageSize) }

    public mutating func run(verb: String, argument: String, _ context: inout ScreenContext) -> [Effect] {
        guard !argument.isEmpty else {
            context.status = StatusMessage(":\(verb) needs a user id", .error)
            return []
        }
        return jump(to: argument, pageSize: context.pageSize)
    }

    public mutating func perform(_ command: Command, _ context: inout ScreenContext) -> [Effect] {
        let pageSize = context.pageSize
        switch command {
        case .up, .down, .top, .bottom, .pageUp, .pageDown:
            if context.scrollsDetail(command, &detailScroll) { return [] }
            return move(command, pageSize: pageSize)
        case .open:
            context.focus = .detail
            return profileEffect()
        case .screen("reveal-phone"):
            guard let user = selectedRow?.user else { return [] }
            guard !user.phone.isEmpty else {
                context.status = StatusMessage("\(user.id) has no phone number", .info)
                return []
            }
            let entry = AuditEntry(
                at: context.clock, actor: context.session.actor, role: context.session.role.rawValue, action: "reveal.phone",
                subject: user.id, detail: "phone revealed on the Users screen")
            return [.write { store in
                try store.recordAudit(entry)
                return Self.event(Event.revealed(userId: user.id))
            }]
        default:
            return []
        }
    }

    public func render(into canvas: inout Canvas, layout: Layout, context: ScreenContext) {
        renderList(
            into: &canvas, rect: layout[.list], focused: context.focus == .list, filter: filter, filtering: context.isFiltering)
        renderDetail(
            into: &canvas, rect: layout[.detail], focused: context.focus == .detail, zone: context.timeZone, now: context.clock)
    }
}

extension ScreenID {
    public static let users = UsersScreen.id
}
