import StoreDeskCore

/// A line of the desk's list: the prompt, the app of its transaction (whose ownership rule applies) and
/// the environment it was bought in (a simulation's purchases are Sandbox).
public struct RestoreRow: Hashable, Sendable, Identifiable {
    public var request: RestoreRequest
    public var appId: String
    public var environment: StoreEnvironment

    /// Where the row stands in any of the list's orders.
    public var cursor: RestoreCursor {
        RestoreCursor(createdAt: request.createdAt, userId: request.userId, transactionId: request.transactionId, id: request.id ?? 0)
    }

    public init(request: RestoreRequest, appId: String, environment: StoreEnvironment = .production) {
        self.request = request
        self.appId = appId
        self.environment = environment
    }

    /// The prompt's id.
    public var id: Int64? { request.id }
}

/// The orders the desk's list runs in, each a seek on an index: `prompted` by `(created_at, id)`
/// (`restore_on_created`, `restore_on_status`), `player` by `(user_id, id)` (`restore_on_user`,
/// `restore_on_status_user`), `transaction` by the transaction id (`restore_once`, `restore_on_status_transaction`).
public enum RestoreOrder: String, Sendable, Hashable, CaseIterable {
    case prompted, player, transaction
}

/// Which restore prompts the desk lists, and in which order.
public struct RestoreQuery: Sendable, Hashable {
    /// Only prompts with this status (nil: all).
    public var status: RestoreStatus?
    /// Found in the transaction id, the player's id or the product id.
    public var text: String
    public var order: RestoreOrder
    /// From the end of `order` (newest, last player, last transaction first).
    public var descending: Bool
    /// Only prompts of purchases made in this environment (nil: all); the desk hides Sandbox with Production.
    public var environment: StoreEnvironment?

    public init(
        status: RestoreStatus? = nil, text: String = "", order: RestoreOrder = .prompted, descending: Bool = false,
        environment: StoreEnvironment? = nil
    ) {
        self.environment = environment
        self.status = status
        self.text = text
        self.order = order
        self.descending = descending
    }

    /// Whether `a` comes before `b` in this list's order.
    public func precedes(_ a: RestoreCursor, _ b: RestoreCursor) -> Bool {
        let before: Bool
        switch order {
        case .prompted: before = (a.createdAt, a.id) < (b.createdAt, b.id)
        case .player: before = (a.userId, a.id) < (b.userId, b.id)
        case .transaction: before = a.transactionId < b.transactionId
        }
        return descending ? !before && a != b : before
    }
}

/// Where a prompt stands in the desk's list: the keys of every order it can run in (each pager reads
/// those of its own).
public struct RestoreCursor: Sendable, Hashable {
    public var createdAt: Instant
    public var userId: String
    public var transactionId: String
    public var id: Int64

    public init(createdAt: Instant, userId: String, transactionId: String, id: Int64) {
        self.createdAt = createdAt
        self.userId = userId
        self.transactionId = transactionId
        self.id = id
    }
}
