/// Why the simulation refused a customer action, as an operator would be told.
public enum SubscriptionSimulationError: Error, Hashable, Sendable, CustomStringConvertible {
    case unknownProduct(String)
    /// Only auto-renewable products with a period and a subscription group can be subscribed to.
    case notAutoRenewable(String)
    case productNotForSale(String)
    case unknownSubscription(String)
    /// The customer already has a live subscription in the group: change plans with upgrade/downgrade.
    case alreadySubscribed(group: String, originalTransactionId: String)
    /// Upgrades and downgrades stay within one subscription group.
    case differentGroup(productId: String, group: String)
    /// The action needs a live (or at least unrevoked) subscription.
    case notActive(originalTransactionId: String, state: SubscriptionState)
    /// Introductory offers are for customers who never subscribed in the group.
    case notEligibleForIntroductoryOffer(group: String)
    case invalidOffer(String)
    case invalidExtension(days: Int)
    /// Simulated time only moves forward.
    case timeWentBackwards(now: Instant, requested: Instant)

    public var description: String {
        switch self {
        case .unknownProduct(let id): "no product \(id) in the catalogue"
        case .notAutoRenewable(let id): "\(id) is not an auto-renewable subscription"
        case .productNotForSale(let id): "\(id) is no longer for sale"
        case .unknownSubscription(let id): "no subscription \(id)"
        case .alreadySubscribed(let group, let id):
            "already subscribed in \(group) (\(id)); upgrade or downgrade instead"
        case .differentGroup(let product, let group): "\(product) is not in subscription group \(group)"
        case .notActive(let id, let state): "subscription \(id) is \(state.name)"
        case .notEligibleForIntroductoryOffer(let group):
            "introductory offers are only for new subscribers to \(group)"
        case .invalidOffer(let reason): "invalid offer: \(reason)"
        case .invalidExtension(let days): "a renewal date extension is 1 to 90 days, not \(days)"
        case .timeWentBackwards(let now, let requested): "simulated time is \(now); cannot go back to \(requested)"
        }
    }
}
