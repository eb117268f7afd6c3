/// Every subscription of a timeline at one instant, and the answers an app asks of them: is content
/// unlocked, until when, is billing in trouble.
///
///     let now = timeline.snapshot(at: clock)
///     if now.unlocked { ... }
///     now.isProductValid("com.example.vip.monthly")
///     now.appleStatus(group: "vip")   // 4: billing grace period
public struct SubscriptionSnapshot: Hashable, Sendable {
    public var instant: Instant
    /// Every chain the events describe, oldest first.
    public var all: [SubscriptionInfo]

    public init(instant: Instant, all: [SubscriptionInfo]) {
        self.instant = instant
        self.all = all.sorted {
            ($0.originalPurchaseDate, $0.originalTransactionId) < ($1.originalPurchaseDate, $1.originalTransactionId)
        }
    }

    /// The subscriptions that give access now: active or in the billing grace period.
    public var valid: [SubscriptionInfo] { all.filter(\.isEntitled) }

    /// Some subscription is not expired, or is within its grace period.
    public var unlocked: Bool { all.contains(where: \.isEntitled) }

    /// The one that counts: among those giving access, the one that runs longest; otherwise the one that
    /// ended last. An active subscription therefore wins over one in grace.
    public var latest: SubscriptionInfo? {
        let pool = valid.isEmpty ? all : valid
        return pool.max { ($0.expiresDate, $0.purchaseDate) < ($1.expiresDate, $1.purchaseDate) }
    }

    /// Access is kept only by the billing grace period: time to ask the player to fix their payment.
    public var inGracePeriod: Bool { latest?.state == .gracePeriod }

    /// When the latest subscription was first bought.
    public var originalTransactionDate: Instant? { latest?.originalPurchaseDate }

    /// When the latest subscription's current period ends.
    public var currentExpiresDate: Instant? { latest?.expiresDate }

    /// When the grace period that keeps access ends; nil unless `inGracePeriod`.
    public var gracePeriodExpiresDate: Instant? { latest?.gracePeriodExpiresDate }

    /// Whether a subscription to this product gives access now. After an upgrade only the new product
    /// does; a downgrade does not count until it takes effect at renewal.
    public func isProductValid(_ productId: String) -> Bool {
        all.contains { $0.productId == productId && $0.isEntitled }
    }

    public func subscription(originalTransactionId: String) -> SubscriptionInfo? {
        all.first { $0.originalTransactionId == originalTransactionId }
    }

    /// Only the subscriptions of one group, with every answer above restricted to it.
    public func group(_ groupId: String) -> SubscriptionSnapshot {
        SubscriptionSnapshot(instant: instant, all: all.filter { $0.groupId == groupId })
    }

    /// The state per subscription group, taking the best when a group has several chains (a purchase and
    /// a family-shared one): active, then grace period, billing retry, expired, revoked.
    public var statusByGroup: [String: SubscriptionState] {
        var result: [String: SubscriptionState] = [:]
        for info in all {
            let group = info.groupId ?? ""
            if let held = result[group], Self.rank(held) <= Self.rank(info.state) { continue }
            result[group] = info.state
        }
        return result
    }

    /// Apple's status for a group (1 active, 2 expired, 3 billing retry, 4 grace period, 5 revoked), as
    /// Get All Subscription Statuses reports it; nil when the group has no subscription.
    public func appleStatus(group groupId: String) -> Int? { statusByGroup[groupId]?.appleStatus }

    private static func rank(_ state: SubscriptionState) -> Int {
        switch state {
        case .active: 0
        case .gracePeriod: 1
        case .billingRetry: 2
        case .expired: 3
        case .revoked: 4
        }
    }
}
