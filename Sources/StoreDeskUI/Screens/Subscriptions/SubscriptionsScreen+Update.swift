import Foundation
import StoreDeskCore
import StoreDeskStoreAPI

extension ScreenID {
    public static let subscriptions = SubscriptionsScreen.id
}

/// The Subscriptions screen in the console: its keys and its reducer's entry points.
extension SubscriptionsScreen: ConsoleScreen {
    public static let id = ScreenID("subscriptions")
    public static let title = "Subscriptions"
    public static let shortTitle = "Subs"

    /// What this screen's keys, verbs and prompts ask for.
    public enum Action: Sendable, Equatable {
        /// Show only the next state.
        case nextState
        /// Ask for a player (and product) to start a demo subscription for.
        case demo
        /// Start a demo subscription: `PLAYER [PRODUCT]`.
        case startDemo(String)
        /// The same, typed at the demo's prompt: a refusal opens the prompt again.
        case startDemoTyped(String)
        /// The next demo's time rate: the next one, or this one.
        case nextRate
        case demoRate(TimeRate)
        /// Customer actions on the running demo.
        case billing, autoRenew, change, refund
        /// Change the demo's plan to this product.
        case changeTo(String)
        case stopDemo
        /// Sort each state by when it ends, either way (`:sort`, `O`).
        case sort(ListSort.Change)
        /// Write the whole list to a file (`:export`).
        case export(ExportRequest)
        /// The support desk's Apple actions on the selected subscription: ask, then do.
        case supportRefund, supportUnrefund, supportExtend, supportToken
        /// What was typed at the action's prompt, bound to the subscription the prompt named (the list may
        /// have moved since): checked, then asked y/n.
        case supportTyped(SupportSubject, SupportStep, String)
        /// The y/n that names the subscription, its player and what will be written; `y` writes it.
        case supportGo(SupportSubject, SupportWrite, answer: String)
    }

    /// Each state's rows run on `(expires_date, original_transaction_id)` (`subscription_on_expiry`,
    /// `subscription_on_state`), either way.
    public static let sortable = ["ends"]

    public static let commands: [ScreenCommand<SubscriptionsScreen>] = [
        .key(
            .character("s"), action: .nextState, help: "state",
            summary: "Show only the next state: all, active, grace period, billing retry, expired, refunded."),
        .reverseSort(.sort(.reverse), sortable: sortable) { .sort(.to($0)) },
    ] + ScreenCommand.export(noun: "subscriptions") { .export($0) } + supportCommands + demoCommands

    public static let footer: [Action] = [.nextState, .demo]

    public var filterText: String? { filter }

    /// The list's rows: the pane less its state bar and column header.
    static func listRows(_ context: ScreenContext) -> Int { max(1, context.pageSize - 1) }

    public mutating func start(_ context: inout ScreenContext) -> [Effect] {
        reload(pageSize: Self.listRows(context), now: context.clock)
    }

    public mutating func refresh(_ context: inout ScreenContext) -> [Effect] {
        refresh(pageSize: Self.listRows(context), now: context.clock)
    }

    /// The clock moved: a demo plays up to it, and states are computed at the new instant, so rows change
    /// group as their dates pass. Until the next such date nothing is fetched (a write refreshes anyway).
    public mutating func tick(_ context: inout ScreenContext) -> [Effect] {
        let demo = tickDemo(&context)
        return isCurrent(at: context.clock) ? demo : demo + refresh(&context)
    }

    public mutating func setFilter(_ text: String, _ context: inout ScreenContext) -> [Effect] {
        guard text != filter else { return [] }
        filter = text
        return reload(pageSize: Self.listRows(context), now: context.clock)
    }

    public mutating func apply(_ event: Event, _ context: inout ScreenContext) -> [Effect] {
        switch event {
        case .demoReady, .demoFailed, .demoWritten: return applyDemo(event, &context)
        case .support(let line): return applySupport(line, &context)
        default: return apply(event)
        }
    }

    /// `:select ID`: the subscription with this original transaction id (or a player's, by user id).
    public mutating func select(id: String, _ context: inout ScreenContext) -> [Effect] {
        filter = id
        state = nil
        return reload(pageSize: Self.listRows(context), now: context.clock)
    }

    public mutating func perform(_ command: Command, _ context: inout ScreenContext) -> [Effect] {
        switch command {
        case .up, .down, .top, .bottom, .pageUp, .pageDown:
            if context.scrollsDetail(command, &detailScroll) { return [] }
            return move(command, pageSize: Self.listRows(context), now: context.clock)
        case .open:
            context.focus = .detail
            return detailEffect()
        default:
            return []
        }
    }

    public var sortColumns: [String] { Self.sortable }

    public mutating func perform(_ action: Action, _ context: inout ScreenContext) -> [Effect] {
        switch action {
        case .nextState:
            nextState()
            context.status = StatusMessage("showing " + (state.map { $0.name } ?? "every state"), .info)
            return reload(pageSize: Self.listRows(context), now: context.clock)
        case .sort(let change):
            return sorted(sort.changed(by: change, sortable: Self.sortable), &context)
        case .export(let request):
            // Each row as the list shows it: its state at the instant the list is read at.
            let now = context.clock
            return request.effects(source(at: now), noun: "subscriptions", fields: SubscriptionListRow.exportFields) {
                $0.exportValues(at: now, time: $1)
            }
        case .supportRefund, .supportUnrefund, .supportExtend, .supportToken, .supportTyped, .supportGo:
            return performSupport(action, &context)
        default:
            return performDemo(action, &context)
        }
    }

    /// The list in this order from its first row (the counts stay: the same subscriptions).
    mutating func sorted(_ order: ListSort, _ context: inout ScreenContext) -> [Effect] {
        sort = order
        context.status = StatusMessage("subscriptions sorted by \(order.label)", .info)
        return [show(list.reload(pageSize: Self.listRows(context), source: source(at: context.clock)))]
    }

    public func render(into canvas: inout Canvas, layout: Layout, context: ScreenContext) {
        renderList(into: &canvas, rect: layout[.list], focused: context.focus == .list, now: context.clock, zone: context.timeZone)
        renderDetail(into: &canvas, rect: layout[.detail], focused: context.focus == .detail, now: context.clock, zone: context.timeZone, glyphs: context.glyphs)
    }
}
