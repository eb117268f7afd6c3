import StoreDeskCore

/// A subscription in the Subscriptions list: its row and the name of its player.
public struct SubscriptionListRow: Hashable, Sendable, Identifiable {
    public var subscription: Subscription
    public var userName: String

    public init(subscription: Subscription, userName: String) {
        self.subscription = subscription
        self.userName = userName
    }

    /// The original transaction id.
    public var id: String { subscription.id }

    /// Where the row sits in the list.
    public func cursor(at instant: Instant) -> SubscriptionSearch.Cursor {
        let state = subscription.info(at: instant)?.state ?? .expired
        let end = state == .gracePeriod ? subscription.gracePeriodExpiresDate ?? subscription.expiresDate : subscription.expiresDate
        return SubscriptionSearch.Cursor(state: state, expires: end, id: subscription.id)
    }
}

/// The Subscriptions screen's query: the subscriptions in one state (or all, grouped by state) at an
/// instant, matching a text, in pages by keyset, never by OFFSET.
///
/// A row's state at the instant is its row played forward (`Subscription.info(at:)`), written here as one
/// SQL condition per state so each can use an index: active is `expires_date > now`, grace and retry
/// come from `state, expires_date`, revoked from `state`. `SubscriptionSearchTests` holds the two to the
/// same answer for every row at many instants.
public struct SubscriptionSearch: Sendable, Hashable {
    public var text: String
    /// Only this state, or every state grouped in `SubscriptionSearch.order`.
    public var state: SubscriptionState?
    public var instant: Instant
    /// Within each state, the latest end first (the groups keep their order).
    public var descending: Bool

    public init(text: String = "", state: SubscriptionState? = nil, instant: Instant, descending: Bool = false) {
        self.text = text.trimmingCharacters(in: .whitespaces)
        self.state = state
        self.instant = instant
        self.descending = descending
    }

    /// The groups of the list, in the order an operator acts on them.
    public static let order: [SubscriptionState] = [.active, .gracePeriod, .billingRetry, .expired, .revoked]

    /// A place in the list: a state group, then the end its rows run by (`PagePlan.key`: the period's
    /// end, in grace period the grace period's), then the original transaction id (both either way).
    public struct Cursor: Hashable, Sendable {
        public var state: SubscriptionState
        public var expires: Instant
        public var id: String
    }

    public typealias Anchor = PageAnchor<Cursor>

    /// Where a row sits in the list at this search's instant.
    public func cursor(of row: SubscriptionListRow) -> Cursor { row.cursor(at: instant) }
}

/// What a live subscription demo needs from the store before it starts: the player, their game account's
/// `appAccountToken` (so the simulated notifications land on them as Apple's would), their app's
/// subscription catalogue, and transaction ids no stored subscription uses.
public struct SubscriptionDemoSetup: Sendable, Hashable {
    public var userId: String
    public var userName: String
    public var app: App
    /// The app's auto-renewable products, by id.
    public var catalogue: [Product]
    /// The product the demo subscribes to.
    public var product: Product
    public var appAccountToken: String?
    /// Above every numeric original transaction id in the store, so the demo's never collide.
    public var firstTransactionId: UInt64

    public init(
        userId: String, userName: String, app: App, catalogue: [Product], product: Product, appAccountToken: String?,
        firstTransactionId: UInt64
    ) {
        self.userId = userId
        self.userName = userName
        self.app = app
        self.catalogue = catalogue
        self.product = product
        self.appAccountToken = appAccountToken
        self.firstTransactionId = firstTransactionId
    }

    /// The demo's simulation, started at `start`, its first purchase not yet made.
    public func simulation(start: Instant, rate: TimeRate) -> SubscriptionSimulation {
        SubscriptionSimulation(
            app: app, products: catalogue, start: start, rate: rate, firstTransactionId: firstTransactionId,
            seed: firstTransactionId)
    }
}

/// What a demo's setup decides, every backend's: the product, and the refusal of a player who already has
/// a live subscription in its group. The backend reads what these need.
extension SubscriptionDemoSetup {
    /// The app's catalogue (its auto-renewable products with a period and a group, by id) and the product
    /// the demo subscribes to: `chosen`, else the monthly subscription (what a time rate is stated in),
    /// else the shortest period.
    public static func product(chosen: Product?, app: App, appProducts: [Product]) throws -> (catalogue: [Product], product: Product) {
        let catalogue = appProducts.filter { $0.subscriptionGroup != nil && $0.type == .autoRenewable && $0.period != nil }
            .sorted { $0.id.utf8.lexicographicallyPrecedes($1.id.utf8) }
        guard !catalogue.isEmpty else { throw StoreError.invalidArgument("\(app.name) sells no auto-renewable subscription") }
        if let chosen {
            guard catalogue.contains(chosen) else { throw StoreError.invalidArgument("\(chosen.id) is not an auto-renewable subscription") }
            return (catalogue, chosen)
        }
        let days = { (product: Product) in product.period == .oneMonth ? 0 : product.period?.approximateDays ?? .max }
        return (catalogue, catalogue.min { (days($0), $0.id) < (days($1), $1.id) }!)
    }

    /// The setup for `user`, refused when they already have a live subscription in the product's group
    /// at `instant` (judged as readers see it, at each chain's own rate, from `stored`: their rows in the
    /// group still active, in grace or billing retry, with `events` their notifications). `highest` is the
    /// largest numeric original transaction id stored (of at most 18 digits).
    public static func checked(
        user: User, app: App, catalogue: [Product], product: Product, appAccountToken: String?, stored: [Subscription],
        events: [SubscriptionEvent], highest: UInt64, at instant: Instant
    ) throws -> SubscriptionDemoSetup {
        let live = SubscriptionSnapshot(at: instant, rows: stored, events: events).all
            .filter { [.active, .gracePeriod, .billingRetry].contains($0.state) }
            .min { $0.originalTransactionId < $1.originalTransactionId }
        if let live {
            throw StoreError.invalidArgument(
                "\(user.id) already has subscription \(live.originalTransactionId) in \(product.subscriptionGroup ?? "its group") (\(live.state.name)): pick another player or group")
        }
        return SubscriptionDemoSetup(
            userId: user.id, userName: user.displayName, app: app, catalogue: catalogue, product: product,
            appAccountToken: appAccountToken, firstTransactionId: max(highest, 3_000_000_000_000_000) + 1_000_001)
    }
}
