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
    /// Only purchases made in this environment (nil: all); `env:production` hides a simulation's Sandbox ones.
    public var environment: StoreEnvironment?

    public init(
        state: TransactionState? = nil, userId: String? = nil, product: String? = nil, text: String? = nil, oldestFirst: Bool = false,
        environment: StoreEnvironment? = nil
    ) {
        self.environment = environment
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
    /// The game accounts of a sample of players (in list order), in the apps the store has: the only
    /// roles a simulation buys on.
    public var accounts: [GameAccount]
    /// Ask to Buy and failing transactions, by app, from the apps' StoreKit configuration files.
    public var storeKitTesting: [String: StoreKitPurchaseTesting]

    public init(apps: [App], products: [Product], accounts: [GameAccount], storeKitTesting: [String: StoreKitPurchaseTesting] = [:]) {
        self.apps = apps
        self.products = products
        self.accounts = accounts
        self.storeKitTesting = storeKitTesting
    }

    /// Why a simulation cannot buy anything in this store (no product, or no game account in an app that
    /// sells one), naming the store; nil when it can.
    public func problem(path: String) -> String? {
        let selling = Set(products.map(\.appId))
        if selling.isEmpty { return "\(path) has no products to simulate purchases with" }
        if !accounts.contains(where: { selling.contains($0.appId) }) {
            return "\(path) has no game accounts in an app with products to simulate purchases on"
        }
        return nil
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

/// The queue's recent activity on the store's clock, one bucket of `bucket` a column: what the Queue
/// screen's sparklines draw. Buckets are aligned to multiples of `bucket` since the epoch, so a column
/// keeps its instants from one read to the next and only the newest one grows.
public struct QueueActivity: Sendable, Hashable {
    /// The window read: `count` buckets of `bucket`, the last one holding `until`.
    public struct Window: Sendable, Hashable {
        public var start: Instant
        public var bucket: Instant.Duration
        public var count: Int

        public init(start: Instant, bucket: Instant.Duration, count: Int) {
            self.start = start
            self.bucket = Instant.Duration(millis: max(1, bucket.millis))
            self.count = max(0, count)
        }

        /// The `count` buckets of `bucket` that end with the one `instant` falls in.
        public static func ending(at instant: Instant, bucket: Instant.Duration, count: Int) -> Window {
            let size = max(1, bucket.millis)
            // Floor division, so an instant before 1970 lands in its bucket too.
            let index = instant.millis >= 0 ? instant.millis / size : -(instant.millis.clampedNegated.clampedAdding(size - 1) / size)
            let first = index.clampedAdding(-Int64(max(0, count - 1)))
            return Window(start: Instant(millis: first.clampedMultiplied(by: size)), bucket: Instant.Duration(millis: size), count: count)
        }

        /// Where the window ends (exclusive).
        public var end: Instant { start.adding(Instant.Duration(millis: bucket.millis.clampedMultiplied(by: Int64(count)))) }

        /// The bucket `instant` falls in, or nil outside the window.
        public func index(of instant: Instant) -> Int? {
            guard instant >= start, instant < end else { return nil }
            return Int((instant.millis - start.millis) / bucket.millis)
        }
    }

    /// The series a sparkline draws.
    public enum Series: String, Sendable, Hashable, CaseIterable {
        /// Purchase attempts (`purchasing` events).
        case purchases
        /// Items and currency granted (`granted`).
        case grants
        /// Purchases that failed, and callbacks refused, failed or abandoned.
        case failures
        /// The slowest callback answered in the bucket: from its order to its reply, in milliseconds of
        /// the store's clock (0: none answered).
        case latency
    }

    public var window: Window
    public var purchases: [Int]
    public var grants: [Int]
    public var failures: [Int]
    public var latencyMillis: [Int]

    /// Nothing happened in `window`.
    public init(window: Window) {
        self.window = window
        let zeros = Array(repeating: 0, count: window.count)
        purchases = zeros
        grants = zeros
        failures = zeros
        latencyMillis = zeros
    }

    public subscript(series: Series) -> [Int] {
        switch series {
        case .purchases: purchases
        case .grants: grants
        case .failures: failures
        case .latency: latencyMillis
        }
    }

    /// The event kinds each count series is made of.
    public static func series(of kind: PaymentEvent.Kind) -> Series? {
        switch kind {
        case .purchasing: .purchases
        case .granted: .grants
        case .failed, .callbackRejected, .callbackFailed, .callbackAbandoned: .failures
        default: nil
        }
    }

    /// Callback replies, whose delay after their order is the latency series.
    public static let replyKinds: [PaymentEvent.Kind] = [.callbackAccepted, .callbackRejected, .callbackDuplicate, .callbackFailed]

    /// Every kind the activity reads (the counts' and the replies').
    public static let kinds: [PaymentEvent.Kind] = PaymentEvent.Kind.allCases.filter {
        QueueActivity.series(of: $0) != nil || QueueActivity.replyKinds.contains($0)
    }

    /// Adds `n` events of `kind` in bucket `index` (one grouped row of the store's read); rows outside the
    /// window or of another kind are ignored.
    public mutating func add(_ n: Int, of kind: PaymentEvent.Kind, bucket index: Int) {
        guard window.count > 0, (0..<window.count).contains(index), let series = Self.series(of: kind) else { return }
        switch series {
        case .purchases: purchases[index] += n
        case .grants: grants[index] += n
        case .failures: failures[index] += n
        case .latency: break
        }
    }

    /// Records a reply `millis` after its order in bucket `index`: the bucket keeps the slowest.
    public mutating func reply(after millis: Int, bucket index: Int) {
        guard (0..<window.count).contains(index) else { return }
        latencyMillis[index] = max(latencyMillis[index], max(0, millis))
    }
}
