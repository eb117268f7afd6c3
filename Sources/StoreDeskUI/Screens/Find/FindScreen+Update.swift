import Foundation
import StoreDeskCore
import StoreDeskStoreAPI

/// The Find screen's update: the `:find` verb, the reads it asks for, and Enter opening a result.
extension FindScreen {
    public static let commands: [ScreenCommand<FindScreen>] = [
        .verb("find", argument: "TEXT", summary: "find players, accounts, orders, transactions, notifications by any id, name or phone") {
            text in text.isEmpty ? .failure(VerbProblem(":find needs the text to look for")) : .success(.find(text))
        },
        .key(
            .character("h"), action: .history, help: "history",
            summary: "The selected result's player's whole story, newest first, on Users (as h there).",
            unavailable: { $0.selectedResult == nil ? "no result selected" : $0.selectedResult?.userId.isEmpty == true ? "this result has no player" : nil }),
    ]

    public var filterText: String? { query }

    public var completionIds: [String] { results.map(\.userId) }

    /// The read for the current query, or none (and the list emptied) for a blank one.
    mutating func search() -> [Effect] {
        let text = query
        guard let request = try? FindQuery(text, limit: Self.limit) else {
            results = []
            shownQuery = text
            return []
        }
        return [Self.read { store in .found(query: text, try store.find(request)) }]
    }

    public mutating func refresh(_ context: inout ScreenContext) -> [Effect] { search() }

    /// Find this text (`/` on Users with no player matching, `:select TEXT` here).
    public mutating func select(id: String, _ context: inout ScreenContext) -> [Effect] {
        query = id
        context.focus = .list
        return search()
    }

    public mutating func setFilter(_ text: String, _ context: inout ScreenContext) -> [Effect] {
        guard text != query else { return [] }
        query = text
        return search()
    }

    public mutating func perform(_ action: Action, _ context: inout ScreenContext) -> [Effect] {
        switch action {
        case .find(let text):
            query = text
            context.focus = .list
            return search()
        case .history:
            guard let userId = selectedResult?.userId, !userId.isEmpty else { return [] }
            return UsersScreen.openHistory(userId: userId)
        }
    }

    public mutating func apply(_ event: Event, _ context: inout ScreenContext) -> [Effect] {
        switch event {
        case .found(let text, let found):
            guard text == query else { return [] }
            if text != shownQuery { (selected, detailScroll) = (0, 0) }
            results = found
            shownQuery = text
            selected = min(selected, max(0, found.count - 1))
            return []
        }
    }

    /// Where Enter opens a result: a restore prompt on Restores, a subscription (or one of its
    /// notifications) on Subscriptions, an unfinished transaction (or its order) in the Queue; a finished
    /// one (which the Queue no longer lists) in its player's history on Users, where it is with its state
    /// changes, callbacks and grants; a player or a game account as the player on Users.
    struct Destination: Equatable {
        var screen: ScreenID
        var id: String
        var history = false

        /// "10000001 on Users", "10000001's history on Users".
        var text: String { (history ? "\(id)'s history" : id) + " on " + screen.title }
    }

    static func destination(_ result: FindResult) -> Destination {
        switch result.kind {
        case .restorePrompt:
            if let transaction = result.transactionId { return Destination(screen: .restores, id: transaction) }
        case .subscription, .notification:
            if let original = result.originalTransactionId { return Destination(screen: .subscriptions, id: original) }
        case .transaction, .order:
            if result.transactionFinished == false, let transaction = result.transactionId { return Destination(screen: .queue, id: transaction) }
            return Destination(screen: .users, id: result.userId, history: true)
        case .player, .gameAccount:
            break
        }
        return Destination(screen: .users, id: result.userId)
    }

    public mutating func perform(_ command: Command, _ context: inout ScreenContext) -> [Effect] {
        switch command {
        case .up, .down, .top, .bottom, .pageUp, .pageDown:
            if context.scrollsDetail(command, &detailScroll) { return [] }
            let moved = ListSelection.moved(selected, by: command, count: results.count, page: context.pageSize)
            if moved != selected { (selected, detailScroll) = (moved, 0) }
            return []
        case .open:
            guard let result = selectedResult else { return [] }
            let destination = Self.destination(result)
            if destination.history { return UsersScreen.openHistory(userId: destination.id) }
            return [.read { _ in .open(destination.screen, id: destination.id) }]
        default:
            return []
        }
    }
}
