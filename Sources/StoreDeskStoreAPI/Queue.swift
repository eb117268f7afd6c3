import StoreDeskCore

/// Which part of the payment queue (the unfinished transactions) to list.
public struct QueueQuery: Sendable, Hashable {
    public var state: TransactionState?
    public var userId: String?
    /// A product id, or a part of one.
    public var product: String?
    /// Matched anywhere in the transaction id, user id or product id.
    public var text: String?
    /// Oldest purchase first (the queue runs newest first otherwise).
    public var oldestFirst: Bool

    public init(
        state: TransactionState? = nil, userId: String? = nil, product: String? = nil, text: String? = nil, oldestFirst: Bool = false
    ) {
        self.state = state
        self.userId = userId
        self.product = product
        self.text = text
        self.oldestFirst = oldestFirst
    }
}

/// Everything the queue screen's detail pane shows about one transaction.
public struct QueueDetail: Sendable, Hashable {
    public var transaction: StoreTransaction
    public var events: [PaymentEvent]
    public var order: PaymentOrder?
    public var callbacks: [CallbackAttempt]
    public var grant: Grant?

    public init(transaction: StoreTransaction, events: [PaymentEvent], order: PaymentOrder?, callbacks: [CallbackAttempt], grant: Grant?) {
        self.transaction = transaction
        self.events = events
        self.order = order
        self.callbacks = callbacks
        self.grant = grant
    }
}

/// What happened in the store since a given event: for the queue's counters and throughput.
public struct EventTally: Sendable, Hashable {
    /// The newest event id seen.
    public var lastEventId: Int64
    public var kinds: [PaymentEvent.Kind: Int]

    public init(lastEventId: Int64, kinds: [PaymentEvent.Kind: Int]) {
        self.lastEventId = lastEventId
        self.kinds = kinds
    }
}

/// What the payment simulator needs from the store.
public struct PaymentCatalogue: Sendable {
    public var apps: [App]
    public var products: [Product]
    public var userIds: [String]
    /// Ask to Buy and failing transactions, by app, from the apps' StoreKit configuration files.
    public var storeKitTesting: [String: StoreKitPurchaseTesting]

    public init(apps: [App], products: [Product], userIds: [String], storeKitTesting: [String: StoreKitPurchaseTesting] = [:]) {
        self.apps = apps
        self.products = products
        self.userIds = userIds
        self.storeKitTesting = storeKitTesting
    }
}

/// Where a transaction stands in the queue: newest first by purchase date, then by id.
public struct QueueCursor: Hashable, Sendable {
    public var purchaseDate: Instant
    public var id: String

    public init(purchaseDate: Instant, id: String) {
        self.purchaseDate = purchaseDate
        self.id = id
    }
}
