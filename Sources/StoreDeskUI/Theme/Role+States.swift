import StoreDeskCore

extension Role {
    /// The theme role of a transaction state.
    public static func of(_ state: TransactionState) -> Role {
        switch state {
        case .purchasing: .statePurchasing
        case .purchased: .statePurchased
        case .failed: .stateFailed
        case .restored: .stateRestored
        case .deferred: .stateDeferred
        }
    }

    /// The theme role of a subscription state.
    public static func of(_ state: SubscriptionState) -> Role {
        switch state {
        case .active: .subscriptionActive
        case .gracePeriod: .subscriptionGrace
        case .billingRetry: .subscriptionRetry
        case .expired: .subscriptionExpired
        case .revoked: .subscriptionRevoked
        }
    }
}
