extension SubscriptionSnapshot {
    /// A player's subscriptions at an instant from what the store keeps: a chain the store has
    /// notifications for follows them (signed by `instant`); any other chain is its row played to
    /// `instant` (see `Subscription.info(at:)`).
    ///
    ///     let now = SubscriptionSnapshot(at: clock, rows: profile.subscriptions, events: profile.subscriptionEvents)
    ///     now.unlocked
    public init(
        at instant: Instant, rows: [Subscription], events: [SubscriptionEvent],
        billingRetryLimit: Instant.Duration = .days(60)
    ) {
        let timeline = SubscriptionTimeline(events: events, billingRetryLimit: billingRetryLimit)
        let withEvents = Set(timeline.originalTransactionIds)
        let fromRows = rows.filter { !withEvents.contains($0.id) }.compactMap {
            $0.info(at: instant, billingRetryLimit: billingRetryLimit)
        }
        self.init(instant: instant, all: timeline.snapshot(at: instant).all + fromRows)
    }

    /// The per-group statuses in group order: what `storedesk subs` and the screens list.
    public var groups: [(groupId: String, state: SubscriptionState)] {
        statusByGroup.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }
}
