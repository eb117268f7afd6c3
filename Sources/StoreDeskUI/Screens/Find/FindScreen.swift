import Foundation
import StoreDeskCore
import StoreDeskStoreAPI

extension ScreenID {
    public static let find = FindScreen.id
}

/// The Find screen: `:find TEXT` (or `/` here) looks for the text in every id, name and phone the store
/// keeps (`FindStore.find`), and lists what it found, typed, exact matches first. Enter opens a result
/// where it lives: a transaction, an order or a restore prompt in the Queue, anything else as its
/// player on the Users screen.
public struct FindScreen: ConsoleScreen {
    public static let id = ScreenID("find")
    public static let title = "Find"

    /// The text looked for.
    public var query = ""
    public var results: [FindResult] = []
    public var selected = 0
    /// The query the shown results are for (a newer one may be on its way).
    public var shownQuery = ""
    public var detailScroll = 0
    /// Why the last find failed (a blank query), shown in place of the results.
    public var problem: String?

    /// At most this many results: a ticket's id finds a handful.
    public static let limit = 200

    public init() {}

    public enum Event: Sendable {
        case found(query: String, [FindResult])
    }

    public enum Action: Sendable, Equatable {
        /// Look for this text.
        case find(String)
        /// The selected result's player's history, on Users.
        case history
    }

    public var selectedResult: FindResult? { results.indices.contains(selected) ? results[selected] : nil }
}
