extension SubscriptionSnapshot {
    /// A player's subscriptions at an instant from what the store keeps: a chain the store has
    /// notifications for follows them (signed by `instant`); any other chain is its row played to
    /// `instant` (see `Subscription.info(at:)`). Either way a chain runs at its row's `timeRate`, so a
    /// demo's billing retry ends when the demo's would.
    ///
    ///     let now = SubscriptionSnapshot(at: clock, rows: profile.subscriptions, events: profile.subscriptionEvents)
    ///     now.unlocked
    public init(at instant: Instant, rows: [Subscription], events: [SubscriptionEvent]) {
        let timeline = SubscriptionTimeline(events: events)
        let withEvents = Set(timeline.originalTransactionIds)
        let fromRows = rows.filter { !withEvents.contains($0.id) }.compactMap { $0.info(at: instant) }
        let rates = Dictionary(rows.map { ($0.id, $0.timeRate) }, uniquingKeysWith: { first, _ in first })
        self.init(instant: instant, all: timeline.snapshot(at: instant, timeRates: rates).all + fromRows)
    }

    /// The per-group statuses in group order: what `storedesk subs` and the screens list.
    public var groups: [(groupId: String, state: SubscriptionState)] {
        statusByGroup.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }
}
