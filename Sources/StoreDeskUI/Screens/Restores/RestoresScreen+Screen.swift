import Foundation
import StoreDeskCore
import StoreDeskStoreAPI

extension ScreenID {
    public static let restores = RestoresScreen.id
}

/// The Restores screen in the console: its keys, its `:` verbs, and its reducer's entry points.
extension RestoresScreen: ConsoleScreen {
    public static let id = ScreenID("restores")
    public static let title = "Restores"

    /// Operators look; support and developers act (the store checks again when it writes).
    static func mayResolve(_ state: AppState) -> String? {
        StaffMember(name: state.session.actor, role: state.session.role.rawValue).mayResolveRestores
            ? nil : "restores need the support or developer role"
    }

    public static let bindings: [Binding] = [
        Binding(
            [.character("c")], .screen("confirm"), help: "confirm",
            summary: "Confirm the selected prompt: choose the account, its Sid and Role_Id, then confirm (order, callback, grant; audited).",
            writes: true, disabledReason: mayResolve),
        Binding(
            [.character("d")], .screen("decline"), help: "decline",
            summary: "Decline the selected prompt with a reason the player can be told (audited).", writes: true,
            disabledReason: mayResolve),
        Binding(
            [.character("s")], .screen("status"), help: "status",
            summary: "Show the next status: open, confirmed, declined, all."),
    ]

    public static let footer: [Command] = [.screen("confirm"), .screen("decline"), .screen("status")]

    public static let verbs: [ConsoleCommandLine.Verb] = [
        .init(name: "status", argument: "open|confirmed|declined|all", summary: "which restore prompts to list"),
        .init(name: "login", argument: "USER", summary: "log a player in: their Apple ID's dropped orders become prompts"),
    ]

    public var filterText: String? { filter }

    public mutating func start(_ context: inout ScreenContext) -> [Effect] { reload(pageSize: Self.listRows(context)) }

    public mutating func refresh(_ context: inout ScreenContext) -> [Effect] { refresh(pageSize: Self.listRows(context)) }

    public mutating func setFilter(_ text: String, _ context: inout ScreenContext) -> [Effect] {
        guard text != filter else { return [] }
        filter = text
        pinned = nil
        return reload(pageSize: Self.listRows(context))
    }

    public mutating func apply(_ event: any Sendable, _ context: inout ScreenContext) -> [Effect] {
        guard let event = event as? Event else { return [] }
        return apply(event, &context)
    }

    /// `:select TXID` (and `snapshot --select`): the prompt of that transaction, whatever its status.
    public mutating func select(id: String, _ context: inout ScreenContext) -> [Effect] {
        status = nil
        filter = id
        pinned = nil
        return reload(pageSize: Self.listRows(context))
    }

    public mutating func run(verb: String, argument: String, _ context: inout ScreenContext) -> [Effect] {
        if verb == "login" { return logIn(argument, &context) }
        guard verb == "status" else { return [] }
        guard let index = Self.statuses.firstIndex(where: { ($0?.rawValue ?? "all") == argument }) else {
            context.status = StatusMessage(":status takes open, confirmed, declined or all, got '\(argument)'", .error)
            return []
        }
        status = Self.statuses[index]
        pinned = nil
        return reload(pageSize: Self.listRows(context))
    }

    public mutating func intercept(_ key: Key, _ context: inout ScreenContext) -> [Effect]? {
        picking == nil ? nil : pick(key, &context)
    }

    public mutating func perform(_ command: Command, _ context: inout ScreenContext) -> [Effect] {
        let pageSize = Self.listRows(context)
        switch command {
        case .up, .down, .top, .bottom, .pageUp, .pageDown:
            if context.scrollsDetail(command, &detailScroll, page: pageSize) { return [] }
            return move(command, pageSize: pageSize)
        case .open:
            context.focus = .detail
            return detailEffect()
        case .back:
            picking = nil
            draft = nil
            return []
        case .screen("status"):
            let index = Self.statuses.firstIndex(of: status) ?? 0
            status = Self.statuses[(index + 1) % Self.statuses.count]
            pinned = nil
            context.status = StatusMessage("showing \(status?.rawValue ?? "all") restore prompts")
            return reload(pageSize: pageSize)
        case .screen("confirm"):
            guard let prompt = openPrompt(&context) else { return [] }
            picking = 0
            detailScroll = 0
            context.focus = .detail
            context.status = StatusMessage(
                "confirm \(prompt.transaction.id): choose the account (j/k, enter), esc cancels")
            return []
        case .screen("decline"):
            guard let prompt = openPrompt(&context) else { return [] }
            context.prompt("reason to decline \(prompt.transaction.id)", action: "decline")
            return []
        case .submit(let action, let text):
            return submit(action, text, &context)
        default:
            return []
        }
    }
}
