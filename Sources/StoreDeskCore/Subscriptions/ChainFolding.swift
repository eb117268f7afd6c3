/// One subscription chain folded a notification at a time, for an import that takes a chain's
/// notifications one line after another: each new one that comes after every one already folded (the
/// usual case: Apple sends them in order) costs one step, not a fold of the whole chain again, and the
/// value keeps the chain's state, not its notifications.
///
/// It folds in the timeline's order (`SubscriptionTimeline.precedes`); one that comes earlier is refused
/// (`append` returns false) and the caller folds the chain again from all its notifications, so any
/// arrival order gives what `SubscriptionTimeline` gives.
///
///     var folding = ChainFolding(events: stored)
///     if !folding.append(event) { folding = ChainFolding(events: stored + [event]) }
///     folding.info(at: now, billingRetryLimit: rate.billingRetryLimit)
public struct ChainFolding: Hashable, Sendable {
    private var chain: SubscriptionChain?
    private var last: Key?

    /// Where an event stands in the timeline's order.
    private struct Key: Hashable, Sendable, Comparable {
        var signedDate: Instant
        var purchaseDate: Instant
        var rank: Int
        var uuid: String

        init(_ event: SubscriptionEvent) {
            signedDate = event.signedDate
            purchaseDate = event.transaction?.purchaseDate ?? Instant(millis: .min)
            rank = SubscriptionEffect(event).rank
            uuid = event.notificationUUID
        }

        static func < (a: Key, b: Key) -> Bool {
            (a.signedDate, a.purchaseDate, a.rank, a.uuid) < (b.signedDate, b.purchaseDate, b.rank, b.uuid)
        }
    }

    /// Folds a chain's notifications, in timeline order (repeats skipped).
    public init(events: [SubscriptionEvent]) {
        for event in SubscriptionTimeline(events: events).events { fold(event) }
    }

    /// Folds `event` in when it comes after every event folded so far; returns false, changing nothing,
    /// when it does not.
    public mutating func append(_ event: SubscriptionEvent) -> Bool {
        if let last, !(last < Key(event)) { return false }
        fold(event)
        return true
    }

    private mutating func fold(_ event: SubscriptionEvent) {
        if var chain {
            chain.apply(event)
            self.chain = chain
        } else if let transaction = event.transaction {
            var chain = SubscriptionChain(first: transaction)
            chain.apply(event)
            self.chain = chain
        }
        last = Key(event)
    }

    /// The chain as it stands at `instant`, from everything folded (all of it signed by then); nil before
    /// any notification with a transaction.
    public func info(at instant: Instant, billingRetryLimit: Instant.Duration) -> SubscriptionInfo? {
        chain?.info(at: instant, billingRetryLimit: billingRetryLimit)
    }
}
