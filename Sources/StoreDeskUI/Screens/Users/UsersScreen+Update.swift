import Foundation
import StoreDeskCore
import StoreDeskStoreAPI

/// The Users screen in the console: its commands and its reducer's entry points.
extension UsersScreen {
    public static let id = ScreenID("users")
    public static let title = "Users"

    /// What this screen's keys and verbs ask for.
    public enum Action: Sendable, Equatable {
        /// Show the selected user's phone number in the clear (audited): asks why first.
        case revealPhone
        /// The reason typed for a reveal, bound to the player the prompt named.
        case revealBecause(userId: String, reason: String)
        /// Select the user with this id.
        case jump(to: String)
        /// Show the selected player's history in the detail pane, or the profile again.
        case toggleHistory
        /// The next page of the history (older), or the one before (newer).
        case olderHistory, newerHistory
        /// Show this player's history (whoever is selected: `openHistory` selects them first).
        case history(of: String)
        /// Sort the list so (`:sort`), by the next sortable column (`o`), or the other way (`O`).
        case sort(ListSort.Change)
        /// Write the whole list to a file (`:export`).
        case export(ExportRequest)
    }

    /// What another screen's `h` returns to open a player's history here: Users shown with the player
    /// selected (`Message.open`), then their history's first page in the detail pane.
    public static func openHistory(userId: String) -> [Effect] {
        [.read { _ in .open(.users, id: userId) }, .read { _ in .screen(ScreenMessage(UsersScreen.self, action: .history(of: userId))) }]
    }

    /// The columns the store can seek on: the creation sequence, the id, the login name.
    public static let sortable = UserOrder.allCases.map(\.rawValue)

    /// Why a filtered list does not sort: its matches come in the order they came into the store.
    static func sortRefusal(_ screen: UsersScreen) -> String? {
        screen.filter.isEmpty ? nil : "a filtered list is in the order its players came into the store; clear the filter (/ then esc) to sort"
    }

    public static let commands: [ScreenCommand<UsersScreen>] = [
        .key(
            .character("p"), action: .revealPhone, help: "reveal", summary: "Reveal the selected user's phone number, with a reason (audited).",
            permission: .revealPhone, writes: true),
        .key(
            .character("h"), action: .toggleHistory, help: "history",
            summary: "The selected player's whole story, newest first, in the detail pane (again: the profile).",
            unavailable: { $0.selectedRow == nil ? "no user selected" : nil }),
        .key(
            .character(">"), action: .olderHistory, help: "older", summary: "The history's next page (older).",
            unavailable: { $0.history?.hasOlder == true ? nil : "no older history" }),
        .key(
            .character("<"), action: .newerHistory, help: "newer", summary: "The history's page before (newer).",
            unavailable: { ($0.history?.starts.count ?? 0) > 1 ? nil : "no newer history" }),
        .nextSort(.sort(.next), noun: "users", sortable: sortable, unavailable: sortRefusal),
        .reverseSort(.sort(.reverse), sortable: sortable, unavailable: sortRefusal) { .sort(.to($0)) },
        .verb("user", argument: "ID", summary: "select the user with this id") { id in
            id.isEmpty ? .failure(VerbProblem(":user needs a user id")) : .success(.jump(to: id))
        },
    ] + ScreenCommand.export(noun: "users") { .export($0) }

    public static let footer: [Action] = [.revealPhone, .sort(.next)]

    public var filterText: String? { filter }

    public mutating func start(_ context: inout ScreenContext) -> [Effect] { reload(pageSize: context.pageSize) }

    public mutating func refresh(_ context: inout ScreenContext) -> [Effect] { refresh(pageSize: context.pageSize) }

    public mutating func tick(_ context: inout ScreenContext) -> [Effect] {
        updateBars(context)
        return []
    }

    public mutating func resized(_ context: inout ScreenContext) -> [Effect] {
        updateBars(context)
        return []
    }

    /// The profile's subscription bars at the console's clock, as wide as the detail pane draws them
    /// (inside its frame, a margin and the bar's indent each side): made here so a frame only draws them.
    mutating func updateBars(_ context: ScreenContext) {
        guard let profile else { return }
        subscriptionBars.update(
            rows: profile.subscriptions, events: profile.subscriptionEvents, owner: profile.user.id, clock: context.clock,
            width: Self.barWidth(context.layout))
    }

    /// How wide the detail pane's bars are: its text's width (inside the frame, a column of margin each
    /// side) less the bar's indent.
    static func barWidth(_ layout: Layout) -> Int { layout[.detail].inset.width - 4 }

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
        case .sort(let change):
            return sorted(sort.changed(by: change, sortable: Self.sortable), &context)
        case .export(let request):
            return request.effects(source, noun: "users")
        case .toggleHistory:
            guard let id = selectedRow?.user.id else { return [] }
            if history?.userId == id {
                history = nil
                detailScroll = 0
                return profileEffect()
            }
            return historyEffect(userId: id, before: nil, starts: [nil])
        case .history(let id):
            detailScroll = 0
            return historyEffect(userId: id, before: nil, starts: [nil])
        case .olderHistory:
            guard let view = history, view.hasOlder, let last = view.entries.last else { return [] }
            return historyEffect(userId: view.userId, before: last.cursor, starts: view.starts + [last.cursor])
        case .newerHistory:
            guard let view = history, view.starts.count > 1 else { return [] }
            let starts = Array(view.starts.dropLast())
            return historyEffect(userId: view.userId, before: starts.last ?? nil, starts: starts)
        case .revealPhone:
            guard let user = selectedRow?.user else { return [] }
            guard !user.phone.isEmpty else {
                context.status = StatusMessage("\(user.id) has no phone number", .info)
                return []
            }
            let id = user.id
            Self.prompt(
                "reveal the phone of \(id) (\(user.displayName)): reason, e.g. a ticket", history: "reveal reason", &context,
                refuse: { AppleSupport.reasonProblem($0) }
            ) { .revealBecause(userId: id, reason: $0) }
            return []
        case .revealBecause(let userId, let reason):
            // The player the prompt named, whoever is selected now.
            let staff = context.session.staff, at = context.clock
            return [Self.write { store in
                try store.recordPhoneReveal(userId: userId, by: staff, at: at, surface: "the Users screen", reason: reason)
                return .revealed(userId: userId)
            }]
        }
    }

    /// The list in this order from its first row (the count stays: the same users).
    mutating func sorted(_ order: ListSort, _ context: inout ScreenContext) -> [Effect] {
        sort = order
        context.status = StatusMessage("users sorted by \(order.label)", .info)
        return [show(list.reload(pageSize: context.pageSize, source: source))]
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
