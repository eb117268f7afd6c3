import StoreDeskCore

/// A player's subscriptions as timeline bars, one for each original transaction id, made once for a
/// clock and a width and kept in a screen's model: a `TimelineBar` samples the subscription's state
/// once a column, so the view only draws what update made (the Users profile and history).
///
///     bars.update(rows: profile.subscriptions, events: profile.subscriptionEvents, owner: profile.user.id,
///                 clock: context.clock, width: 40)        // in update: the profile came, the clock or size moved
///     bars[chain]                                          // in the view
public struct SubscriptionBars: Sendable, Hashable {
    /// Whose subscriptions, at what clock and how wide the bars are (nil: none made).
    public private(set) var made: Made?
    private var bars: [String: TimelineBar] = [:]

    public struct Made: Sendable, Hashable {
        public var owner: String
        public var clock: Instant
        public var width: Int
    }

    public init() {}

    /// The bar of the subscription with this original transaction id, when it has one.
    public subscript(originalTransactionId: String) -> TimelineBar? { bars[originalTransactionId] }

    /// Makes the bars of `owner`'s subscriptions at `clock`, `width` columns wide, unless they are made
    /// for exactly those already; no bar where the width leaves no room.
    public mutating func update(rows: [Subscription], events: [SubscriptionEvent], owner: String, clock: Instant, width: Int) {
        let wanted = Made(owner: owner, clock: clock, width: width)
        guard made != wanted else { return }
        made = wanted
        bars = [:]
        guard width > 0 else { return }
        var chains = Set(rows.map(\.id))
        for case let chain? in events.map(\.originalTransactionId) { chains.insert(chain) }
        for chain in chains {
            bars[chain] = TimelineBar(rows: rows, events: events, originalTransactionId: chain, clock: clock, width: width)
        }
    }

    /// No player's: nothing is drawn.
    public mutating func clear() {
        made = nil
        bars = [:]
    }
}
