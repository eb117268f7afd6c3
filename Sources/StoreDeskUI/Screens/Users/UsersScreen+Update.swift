import Foundation
import StoreDeskCore
import StoreDeskStoreAPI

/// The Users screen in the console: its commands and its reducer's entry points.
extension UsersScreen {
    public static let id = ScreenID("users")
    public static let title = "Users"

    /// What this screen's keys and verbs ask for.
    public enum Action: Sendable, Equatable {
        /// Show the selected user's phone number in the clear (audited).
        case revealPhone
        /// Select the user with this id.
        case jump(to: String)
    }

    public static let commands: [ScreenCommand<UsersScreen>] = [
        .key(
            .character("p"), action: .revealPhone, help: "reveal", summary: "Reveal the selected user's phone number (audited).",
            permission: .revealPhone, writes: true),
        .verb("user", argument: "ID", summary: "select the user with this id") { id in
            id.isEmpty ? .failure(VerbProblem(":user needs a user id")) : .success(.jump(to: id))
        },
    ]

    public static let footer: [Action] = [.revealPhone]

    public var filterText: String? { filter }

    public mutating func start(_ context: inout ScreenContext) -> [Effect] { reload(pageSize: context.pageSize) }

    public mutating func refresh(_ context: inout ScreenContext) -> [Effect] { refresh(pageSize: context.pageSize) }

    public mutating func setFilter(_ text: String, _ context: inout ScreenContext) -> [Effect] {
        setFilter(text, pageSize: context.pageSize)
    }

    public mutating func select(id: String, _ context: inout ScreenContext) -> [Effect] { jump(to: id, pageSize: context.pageSize) }

    public mutating func perform(_ command: Command, _ context: inout ScreenContext) -> [Effect] {
        switch command {
        case .up, .down, .top, .bottom, .pageUp, .pageDown:
            if context.scrollsDetail(command, &detailScroll) { return [] }
            return move(command, pageSize: context.pageSize)
        case .open:
            context.focus = .detail
            return profileEffect()
        default:
            return []
        }
    }

    public mutating func perform(_ action: Action, _ context: inout ScreenContext) -> [Effect] {
        switch action {
        case .jump(let id):
            return jump(to: id, pageSize: context.pageSize)
        case .revealPhone:
            guard let user = selectedRow?.user else { return [] }
            guard !user.phone.isEmpty else {
                context.status = StatusMessage("\(user.id) has no phone number", .info)
                return []
            }
            let staff = context.session.staff, at = context.clock
            return [Self.write { store in
                try store.recordPhoneReveal(userId: user.id, by: staff, at: at, surface: "the Users screen")
                return .revealed(userId: user.id)
            }]
        }
    }

    public func render(into canvas: inout Canvas, layout: Layout, context: ScreenContext) {
        renderList(
            into: &canvas, rect: layout[.list], focused: context.focus == .list, filter: filter, filtering: context.isFiltering,
            zone: context.timeZone)
        renderDetail(
            into: &canvas, rect: layout[.detail], focused: context.focus == .detail, zone: context.timeZone, now: context.clock,
            glyphs: context.glyphs)
    }
}

extension ScreenID {
    public static let users = UsersScreen.id
}
