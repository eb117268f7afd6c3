import Foundation

/// A customer's (or an import's) subscription notifications, kept in the order of their own dates, and
/// the state of every subscription at any instant computed from them.
///
/// Notifications arrive late, out of order and more than once, so the timeline never trusts arrival
/// order: it orders by `signedDate`, then the transaction's `purchaseDate`, then the kind of event (a
/// purchase before a renewal before a change before an expiry before a refund) and finally the UUID, so
/// any arrival order gives one result. A repeated `notificationUUID` is skipped.
///
///     var timeline = SubscriptionTimeline(events: decoded)
///     let snapshot = timeline.snapshot(at: now)
///     timeline.entries.map(\.name)   // ["SUBSCRIBED/INITIAL_BUY", "DID_RENEW", ...]
public struct SubscriptionTimeline: Hashable, Sendable {
    /// The accepted events, in timeline order, without repeats.
    public private(set) var events: [SubscriptionEvent] = []
    /// How many events were skipped because their UUID was already recorded.
    public private(set) var duplicatesSkipped = 0
    /// How long Apple retries billing before giving up: 60 days, or less under an accelerated `TimeRate`.
    public var billingRetryLimit: Instant.Duration
    private var seen: Set<String> = []

    public init(billingRetryLimit: Instant.Duration = .days(60)) {
        self.billingRetryLimit = billingRetryLimit
    }

    public init(events: some Sequence<SubscriptionEvent>, billingRetryLimit: Instant.Duration = .days(60)) {
        self.billingRetryLimit = billingRetryLimit
        record(contentsOf: events)
    }

    /// Adds an event in its place by date; returns false and changes nothing for a repeated UUID.
    @discardableResult
    public mutating func record(_ event: SubscriptionEvent) -> Bool {
        insert(event) != nil
    }

    public mutating func record(contentsOf events: some Sequence<SubscriptionEvent>) {
        for event in events { record(event) }
    }

    /// Inserts and returns the event's index, or nil for a repeat.
    mutating func insert(_ event: SubscriptionEvent) -> Int? {
        guard seen.insert(event.notificationUUID).inserted else {
            duplicatesSkipped += 1
            return nil
        }
        var low = 0
        var high = events.count
        while low < high {
            let middle = (low + high) / 2
            if Self.precedes(event, events[middle]) { high = middle } else { low = middle + 1 }
        }
        events.insert(event, at: low)
        return low
    }

    /// The timeline's order: signed date, purchase date, kind of event, UUID.
    public static func precedes(_ a: SubscriptionEvent, _ b: SubscriptionEvent) -> Bool {
        let none = Instant(millis: .min)
        return (a.signedDate, a.transaction?.purchaseDate ?? none, SubscriptionEffect(a).rank, a.notificationUUID)
            < (b.signedDate, b.transaction?.purchaseDate ?? none, SubscriptionEffect(b).rank, b.notificationUUID)
    }

    /// The chains as the events signed up to `instant` describe them (all events when nil).
    func fold(through instant: Instant? = nil) -> SubscriptionChainFold {
        var fold = SubscriptionChainFold()
        for event in events {
            if let instant, event.signedDate > instant { break }
            fold.apply(event)
        }
        return fold
    }

    /// Every subscription's state at `instant`, from the events Apple had signed by then. A chain in
    /// `timeRates` (a demo's, by original transaction id) retries billing for 60 days of its own rate;
    /// any other for `billingRetryLimit`.
    public func snapshot(at instant: Instant, timeRates: [String: TimeRate] = [:]) -> SubscriptionSnapshot {
        let fold = fold(through: instant)
        return SubscriptionSnapshot(
            instant: instant,
            all: fold.chains.map { id, chain in
                chain.info(at: instant, billingRetryLimit: timeRates[id]?.billingRetryLimit ?? billingRetryLimit)
            })
    }

    /// The original transaction ids in order of first appearance.
    public var originalTransactionIds: [String] {
        var seen: Set<String> = []
        return events.compactMap { event in
            guard let id = event.originalTransactionId, seen.insert(id).inserted else { return nil }
            return id
        }
    }

    /// The human timeline: every event with its Apple name, date and a short sentence.
    public var entries: [TimelineEntry] { events.map(TimelineEntry.init) }

    /// The human timeline of one subscription chain.
    public func entries(for originalTransactionId: String) -> [TimelineEntry] {
        events.filter { $0.originalTransactionId == originalTransactionId }.map(TimelineEntry.init)
    }
}

/// One line of the human timeline: `2026-03-01T08:00:00Z  DID_RENEW  renewed vip.monthly until ...`.
public struct TimelineEntry: Hashable, Sendable, Identifiable {
    /// The notification UUID.
    public var id: String
    public var date: Instant
    /// Apple's name: `SUBSCRIBED/INITIAL_BUY`, `DID_FAIL_TO_RENEW/GRACE_PERIOD`, `REFUND`.
    public var name: String
    public var originalTransactionId: String?
    public var productId: String?
    /// What happened, in a few plain words.
    public var summary: String

    public init(_ event: SubscriptionEvent) {
        id = event.notificationUUID
        date = event.signedDate
        name = event.appleName
        originalTransactionId = event.originalTransactionId
        productId = event.transaction?.productId
        summary = Self.summary(of: event)
    }

    private static func summary(of event: SubscriptionEvent) -> String {
        let transaction = event.transaction
        let renewal = event.renewal
        let product = transaction?.productId ?? "?"
        let until = transaction?.expiresDate.map { " until " + $0.iso8601 } ?? ""
        let offer = transaction?.offerType.map { " with \($0.key.replacingOccurrences(of: "_", with: " ")) offer" } ?? ""
        switch (event.notificationType, event.subtype) {
        case (.subscribed, .resubscribe?): return "resubscribed to \(product)\(offer)\(until)"
        case (.subscribed, _): return "subscribed to \(product)\(offer)\(until)"
        case (.didRenew, .billingRecovery?): return "billing recovered; renewed \(product)\(until)"
        case (.didRenew, _): return "renewed \(product)\(offer)\(until)"
        case (.didFailToRenew, .gracePeriod?):
            let grace = renewal?.gracePeriodExpiresDate.map { " until " + $0.iso8601 } ?? ""
            return "renewal failed; access kept in the billing grace period\(grace)"
        case (.didFailToRenew, _): return "renewal failed; billing retry, no access"
        case (.gracePeriodExpired, _): return "grace period ended without recovery; access removed"
        case (.expired, let subtype):
            let intent = subtype.flatMap(intentName) ?? renewal?.expirationIntent.map(\.key) ?? "other"
            return "expired: " + intent.replacingOccurrences(of: "_", with: " ")
        case (.didChangeRenewalStatus, .autoRenewEnabled?): return "auto-renew turned on"
        case (.didChangeRenewalStatus, .autoRenewDisabled?): return "auto-renew turned off"
        case (.didChangeRenewalPref, .upgrade?), (.offerRedeemed, .upgrade?):
            return "upgraded to \(product) at once\(until)"
        case (.didChangeRenewalPref, .downgrade?), (.offerRedeemed, .downgrade?):
            return "will change to \(renewal?.autoRenewProductId ?? "?") at the next renewal"
        case (.didChangeRenewalPref, _): return "pending change cancelled; renews \(renewal?.autoRenewProductId ?? product)"
        case (.offerRedeemed, .initialBuy?): return "subscribed to \(product)\(offer)\(until)"
        case (.offerRedeemed, .resubscribe?): return "resubscribed to \(product)\(offer)\(until)"
        case (.offerRedeemed, _):
            let id = renewal?.offerIdentifier ?? transaction?.offerIdentifier ?? ""
            return "offer \(id) redeemed; applies from the next renewal"
        case (.refund, _):
            let reason = transaction?.revocationReason.map { " (\($0))" } ?? ""
            return "refunded\(reason); access removed"
        case (.revoke, _): return "family sharing ended; access removed"
        case (.refundReversed, _): return "refund reversed; access restored"
        case (.refundDeclined, _): return "refund request declined"
        case (.priceIncrease, .accepted?): return "customer accepted the price increase"
        case (.priceIncrease, _): return "price increase awaiting the customer's consent"
        case (.renewalExtended, _): return "renewal date extended\(until)"
        default: return event.appleName.lowercased().replacingOccurrences(of: "_", with: " ")
        }
    }

    private static func intentName(_ subtype: NotificationSubtype) -> String? {
        switch subtype {
        case .voluntary: ExpirationIntent.cancelled.key
        case .billingRetry: ExpirationIntent.billingError.key
        case .priceIncrease: ExpirationIntent.declinedPriceIncrease.key
        case .productNotForSale: ExpirationIntent.productUnavailable.key
        default: nil
        }
    }
}
