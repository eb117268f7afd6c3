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
    public static let shortTitle = "Restore"

    /// What this screen's keys, verbs and prompts ask for.
    public enum Action: Sendable, Equatable {
        /// Confirm the selected prompt: choose the account, then its Sid and Role_Id.
        case confirm
        /// Decline the selected prompt with a reason.
        case decline
        /// List the next status: open, confirmed, declined, all.
        case nextStatus
        /// List the prompts with this status (nil: all).
        case status(RestoreStatus?)
        /// Hide the prompts of Sandbox purchases, or show them again (nil: the other way).
        case sandbox(hidden: Bool?)
        /// A player logs in at the desk.
        case logIn(userId: String)
        /// The answers to the confirm's and the decline's prompts.
        case confirmSid(String), confirmRole(String), confirmGo(String), declineReason(String)
        /// The decline's confirmation: the reason shown, then `y` writes it.
        case declineGo(reason: String, answer: String)
        /// The selected prompt's player's history, on Users.
        case history
        /// Sort the list so (`:sort`), by the next sortable column (`o`), or the other way (`O`).
        case sort(ListSort.Change)
        /// Write the whole list to a file (`:export`).
        case export(ExportRequest)
    }

    /// The columns the store can seek on, each with the status first: `(created_at, id)`, `(user_id, id)`,
    /// the transaction id.
    public static let sortable = RestoreOrder.allCases.map(\.rawValue)

    /// Operators look; support and developers act (the store checks again when it writes).
    public static let commands: [ScreenCommand<RestoresScreen>] = [
        .key(
            .character("c"), action: .confirm, help: "confirm",
            summary: "Confirm the selected prompt: choose the account, its Sid and Role_Id, then confirm (order, callback, grant; audited).",
            permission: .resolveRestores, writes: true),
        .key(
            .character("d"), action: .decline, help: "decline",
            summary: "Decline the selected prompt with a reason the player can be told (audited).", permission: .resolveRestores,
            writes: true),
        .key(
            .character("s"), action: .nextStatus, help: "status", summary: "Show the next status: open, confirmed, declined, all.",
            verb: ScreenVerb("status", argument: "open|confirmed|declined|all", summary: "which restore prompts to list") { text in
                guard let status = RestoresScreen.statuses.first(where: { ($0?.rawValue ?? "all") == text }) else {
                    return .failure(VerbProblem(":status takes open, confirmed, declined or all, got '\(text)'"))
                }
                return .success(.status(status))
            }),
        .key(
            .character("b"), action: .sandbox(hidden: nil), help: "sandbox",
            summary: "Hide the prompts of Sandbox purchases (a simulation's test money), or show them again; the title counts them.",
            verb: ScreenVerb("sandbox", argument: "hide|show", summary: "hide or show the prompts of Sandbox purchases") { text in
                RestoresScreen.sandboxChoice(text).map { .success(.sandbox(hidden: $0)) }
                    ?? .failure(VerbProblem(":sandbox takes hide or show, got '\(text)'"))
            }),
        .key(
            .character("h"), action: .history, help: "history",
            summary: "The selected prompt's player's whole story, newest first, on Users (as h there).",
            unavailable: { $0.selectedRow == nil ? "no restore prompt selected" : nil }),
        .verb(
            "login", argument: "USER", summary: "log a player in: their Apple ID's dropped orders become prompts",
            permission: .resolveRestores, writes: true
        ) { user in user.isEmpty ? .failure(VerbProblem(":login needs a user id")) : .success(.logIn(userId: user)) },
        .nextSort(.sort(.next), noun: "restore prompts", sortable: sortable),
        .reverseSort(.sort(.reverse), sortable: sortable) { .sort(.to($0)) },
    ] + ScreenCommand.export(noun: "restore prompts") { .export($0) }

    public static let footer: [Action] = [.confirm, .decline, .nextStatus, .sandbox(hidden: nil)]

    /// `:sandbox hide` or `:sandbox show`: whether Sandbox prompts are hidden; nil for anything else.
    static func sandboxChoice(_ text: String) -> Bool? {
        switch text.trimmingCharacters(in: .whitespaces).lowercased() {
        case "hide": true
        case "show": false
        default: nil
        }
    }

    public var filterText: String? { filter }

    public mutating func start(_ context: inout ScreenContext) -> [Effect] { reload(pageSize: Self.listRows(context)) }

    public mutating func refresh(_ context: inout ScreenContext) -> [Effect] { refresh(pageSize: Self.listRows(context)) }

    public mutating func setFilter(_ text: String, _ context: inout ScreenContext) -> [Effect] {
        guard text != filter else { return [] }
        filter = text
        pinned = nil
        return reload(pageSize: Self.listRows(context))
    }

    /// `:select TXID` (and `snapshot --select`): the prompt of that transaction, whatever its status.
    public mutating func select(id: String, _ context: inout ScreenContext) -> [Effect] {
        status = nil
        filter = id
        pinned = nil
        return reload(pageSize: Self.listRows(context))
    }

    public var sortColumns: [String] { Self.sortable }

    /// The list in this order from its first row (the count stays: the same prompts).
    mutating func sorted(_ order: ListSort, _ context: inout ScreenContext) -> [Effect] {
        sort = order
        pinned = nil
        context.status = StatusMessage("restore prompts sorted by \(order.label)", .info)
        return show(list.reload(pageSize: Self.listRows(context), source: source))
    }

    public mutating func intercept(_ key: Key, _ context: inout ScreenContext) -> [Effect]? {
        picking == nil ? nil : pick(key, &context)
    }

    public mutating func perform(_ command: Command, _ context: inout ScreenContext) -> [Effect] {
        let pageSize = Self.listRows(context)
        switch command {
        case .up, .down, .top, .bottom, .pageUp, .pageDown:
            if context.scrollsDetail(command, &detailScroll, page: pageSize) { return [] }
            waiting = nil
            return move(command, pageSize: pageSize)
        case .open:
            context.focus = .detail
            return detailEffect()
        case .back:
            picking = nil
            draft = nil
            underway = nil
            waiting = nil
            return []
        default:
            return []
        }
    }

    public mutating func perform(_ action: Action, _ context: inout ScreenContext) -> [Effect] {
        let pageSize = Self.listRows(context)
        switch action {
        case .nextStatus:
            let index = Self.statuses.firstIndex(of: status) ?? 0
            status = Self.statuses[(index + 1) % Self.statuses.count]
            pinned = nil
            context.status = StatusMessage("showing \(status?.rawValue ?? "all") restore prompts")
            return reload(pageSize: pageSize)
        case .status(let chosen):
            status = chosen
            pinned = nil
            return reload(pageSize: pageSize)
        case .sandbox(let hidden):
            hidesSandbox = hidden ?? !hidesSandbox
            pinned = nil
            context.status = StatusMessage(hidesSandbox ? "Sandbox restore prompts hidden (b shows them)" : "Sandbox restore prompts shown")
            return reload(pageSize: pageSize)
        case .confirm, .decline:
            guard !loading else {
                waiting = action
                context.status = StatusMessage("\(action == .confirm ? "confirm" : "decline") waits for the selected prompt to load", .info)
                return []
            }
            return action == .confirm ? startConfirm(&context) : startDecline(&context)
        case .logIn(let userId):
            return logIn(userId, &context)
        case .history:
            guard let userId = selectedRow?.request.userId else { return [] }
            return UsersScreen.openHistory(userId: userId)
        case .sort(let change):
            return sorted(sort.changed(by: change, sortable: Self.sortable), &context)
        case .export(let request):
            return request.effects(source, noun: "restore prompts")
        case .confirmSid, .confirmRole, .confirmGo, .declineReason, .declineGo:
            return answer(action, &context)
        }
    }
}

extension RestoresScreen {
    /// `c` on the selected prompt, loaded: choose the account, then its Sid and Role_Id.
    mutating func startConfirm(_ context: inout ScreenContext) -> [Effect] {
        guard let prompt = openPrompt(&context) else { return [] }
        begin(prompt)
        picking = 0
        detailScroll = 0
        context.focus = .detail
        context.status = Self.pickingHint(prompt)
        return []
    }

    /// `d` on the selected prompt, loaded: the reason, then y/n.
    mutating func startDecline(_ context: inout ScreenContext) -> [Effect] {
        guard let prompt = openPrompt(&context) else { return [] }
        begin(prompt)
        Self.prompt(
            "reason to decline \(prompt.transaction.id)", history: "decline reason", &context, refuse: Self.reasonRefusal
        ) { .declineReason($0) }
        return []
    }
}
