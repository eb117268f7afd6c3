/// One original transaction's history as the notifications told it, before the clock is applied.
///
/// Kept apart from `SubscriptionInfo` because a chain says what Apple reported (expires on the 3rd,
/// billing failed, grace until the 19th) while the state at an instant also depends on which of those
/// dates have passed. `SubscriptionTimeline` and `SubscriptionSimulation` both fold events into chains.
struct SubscriptionChain: Hashable, Sendable {
    struct BillingIssue: Hashable, Sendable {
        /// The expiry of the period that failed to renew: the 60-day retry window counts from here.
        var since: Instant
        var graceEnds: Instant?
        /// `GRACE_PERIOD_EXPIRED` arrived: access ends even if the grace date says otherwise.
        var graceOver = false
    }

    struct Expiration: Hashable, Sendable {
        var intent: ExpirationIntent
        var date: Instant
    }

    struct Revocation: Hashable, Sendable {
        var kind: RevocationKind
        var date: Instant
        var reason: RevocationReason?
    }

    var originalTransactionId: String
    var groupId: String?
    var productId: String
    var transactionId: String
    var originalPurchaseDate: Instant
    var purchaseDate: Instant
    var expiresDate: Instant
    var autoRenew = true
    var autoRenewProductId: String?
    var offerType: OfferType?
    var offerId: String?
    var offerDiscountType: OfferDiscountType?
    var environment: String?
    var appAccountToken: String?
    var billingIssue: BillingIssue?
    var expiration: Expiration?
    var revocation: Revocation?
    /// What the latest renewal info said about an expiry, used when no `EXPIRED` came.
    var reportedExpirationIntent: ExpirationIntent?
    var priceIncreaseStatus: Int?
    /// An offer redeemed for an active subscription, waiting for the next renewal.
    var pendingOfferType: OfferType?
    var pendingOfferId: String?

    init(first transaction: TransactionInfo) {
        originalTransactionId = transaction.originalTransactionId
        groupId = transaction.subscriptionGroupIdentifier
        productId = transaction.productId
        transactionId = transaction.transactionId
        originalPurchaseDate = transaction.originalPurchaseDate ?? transaction.purchaseDate
        purchaseDate = transaction.purchaseDate
        expiresDate = transaction.expiresDate ?? transaction.purchaseDate
        offerType = transaction.offerType
        offerId = transaction.offerIdentifier
        offerDiscountType = transaction.offerDiscountType
        environment = transaction.environment
        appAccountToken = transaction.appAccountToken
    }

    /// Whether a transaction is this chain's current one or a later one, rather than an old period
    /// that a late notification (a refund of last month, say) mentions.
    func isCurrentOrLater(_ transaction: TransactionInfo) -> Bool {
        transaction.transactionId == transactionId || transaction.purchaseDate >= purchaseDate
    }

    /// Makes a transaction the current period.
    mutating func adopt(_ transaction: TransactionInfo) {
        if transaction.transactionId != transactionId || transaction.expiresDate != nil {
            expiresDate = transaction.expiresDate ?? transaction.purchaseDate
        }
        productId = transaction.productId
        transactionId = transaction.transactionId
        purchaseDate = transaction.purchaseDate
        if let original = transaction.originalPurchaseDate { originalPurchaseDate = min(originalPurchaseDate, original) }
        if let group = transaction.subscriptionGroupIdentifier { groupId = group }
        if let environment = transaction.environment { self.environment = environment }
        if let token = transaction.appAccountToken { appAccountToken = token }
        if transaction.offerType != nil, transaction.offerType == pendingOfferType {
            pendingOfferType = nil
            pendingOfferId = nil
        }
        offerType = transaction.offerType
        offerId = transaction.offerIdentifier
        offerDiscountType = transaction.offerDiscountType
    }

    /// Applies one notification. Events must come in timeline order.
    mutating func apply(_ event: SubscriptionEvent) {
        let transaction = event.transaction
        let renewal = event.renewal
        let current = transaction.map(isCurrentOrLater) ?? false
        let type = event.notificationType
        let subtype = event.subtype

        switch SubscriptionEffect(event) {
        case .purchase:
            expiration = nil
            revocation = nil
            billingIssue = nil
            autoRenew = true
            if let transaction { adopt(transaction) }
            autoRenewProductId = productId
        case .renewal:
            if let transaction, current { adopt(transaction) }
            billingIssue = nil
            expiration = nil
        case .billingFailure:
            let grace = renewal?.gracePeriodExpiresDate ?? billingIssue?.graceEnds
            billingIssue = BillingIssue(since: expiresDate, graceEnds: grace)
        case .graceExpiry:
            var issue = billingIssue ?? BillingIssue(since: expiresDate, graceEnds: event.signedDate)
            issue.graceOver = true
            billingIssue = issue
        case .expiry:
            let intent = subtypeIntent(subtype) ?? renewal?.expirationIntent ?? .other
            expiration = Expiration(intent: intent, date: event.signedDate)
            billingIssue = nil
        case .autoRenewChange:
            if subtype == .autoRenewEnabled {
                autoRenew = true
            } else if subtype == .autoRenewDisabled {
                autoRenew = false
            } else if let on = renewal?.autoRenews {
                autoRenew = on
            }
        case .upgrade:
            if let transaction, current { adopt(transaction) }
            billingIssue = nil
            autoRenewProductId = productId
        case .downgrade:
            autoRenewProductId = renewal?.autoRenewProductId ?? autoRenewProductId
        case .downgradeCancelled:
            autoRenewProductId = renewal?.autoRenewProductId ?? productId
        case .offerForNextRenewal:
            pendingOfferType = renewal?.offerType ?? transaction?.offerType
            pendingOfferId = renewal?.offerIdentifier ?? transaction?.offerIdentifier
        case .refund, .revoke:
            guard transaction == nil || current else { break }
            revocation = Revocation(
                kind: type == .refund ? .refund : .familySharing,
                date: transaction?.revocationDate ?? event.signedDate, reason: transaction?.revocationReason)
            billingIssue = nil
        case .refundReversed:
            revocation = nil
        case .extension:
            if let transaction, current { adopt(transaction) }
        case .priceIncrease:
            priceIncreaseStatus = renewal?.priceIncreaseStatus ?? (subtype == .accepted ? 1 : 0)
        case .informational:
            // Types this engine does not act on still carry Apple's latest view of the transaction.
            if let transaction, current, transaction.purchaseDate > purchaseDate { adopt(transaction) }
        }

        if let renewal { merge(renewal, from: event) }
    }

    /// Renewal info is Apple's view at the signed date; the type-specific rules above win where set.
    private mutating func merge(_ renewal: RenewalInfo, from event: SubscriptionEvent) {
        if SubscriptionEffect(event) != .autoRenewChange, revocation == nil, let on = renewal.autoRenews {
            autoRenew = on
        }
        let effect = SubscriptionEffect(event)
        if let product = renewal.autoRenewProductId, effect != .downgrade, effect != .downgradeCancelled {
            autoRenewProductId = product
        }
        if let intent = renewal.expirationIntent { reportedExpirationIntent = intent }
        if let status = renewal.priceIncreaseStatus { priceIncreaseStatus = status }
        // An import that lacks DID_FAIL_TO_RENEW still learns of billing trouble from the renewal info.
        if renewal.isInBillingRetryPeriod == true, billingIssue == nil, expiration == nil, revocation == nil,
            SubscriptionEffect(event) != .renewal
        {
            billingIssue = BillingIssue(since: expiresDate, graceEnds: renewal.gracePeriodExpiresDate)
        }
        if let grace = renewal.gracePeriodExpiresDate, billingIssue?.graceEnds == nil {
            billingIssue?.graceEnds = grace
        }
    }

    private func subtypeIntent(_ subtype: NotificationSubtype?) -> ExpirationIntent? {
        switch subtype {
        case .voluntary?: .cancelled
        case .billingRetry?: .billingError
        case .priceIncrease?: .declinedPriceIncrease
        case .productNotForSale?: .productUnavailable
        default: nil
        }
    }

    /// The chain at an instant: which reported dates have passed decides between active, grace period,
    /// billing retry and expired.
    func info(at instant: Instant, billingRetryLimit: Instant.Duration) -> SubscriptionInfo {
        var state = SubscriptionState.expired
        var intent: ExpirationIntent?
        var grace: Instant?
        var retryEnds: Instant?
        if revocation != nil {
            state = .revoked
        } else if let expiration {
            intent = expiration.intent
        } else if expiresDate > instant {
            state = .active
        } else if let issue = billingIssue {
            let ends = issue.since.adding(billingRetryLimit)
            intent = .billingError
            if instant < ends {
                retryEnds = ends
                if let graceEnds = issue.graceEnds, !issue.graceOver, instant < graceEnds {
                    state = .gracePeriod
                    grace = graceEnds
                } else {
                    state = .billingRetry
                }
            }
        } else {
            intent = reportedExpirationIntent ?? (autoRenew ? nil : .cancelled)
        }
        return SubscriptionInfo(
            originalTransactionId: originalTransactionId, transactionId: transactionId, productId: productId,
            groupId: groupId, state: state, autoRenew: autoRenew && state != .revoked && state != .expired,
            autoRenewProductId: autoRenewProductId ?? productId, originalPurchaseDate: originalPurchaseDate,
            purchaseDate: purchaseDate, expiresDate: expiresDate, gracePeriodExpiresDate: grace,
            billingRetryExpiresDate: retryEnds, expirationIntent: intent, revocation: revocation?.kind,
            revocationDate: revocation?.date, revocationReason: revocation?.reason, offerType: offerType,
            offerId: offerId, offerDiscountType: offerDiscountType, environment: environment,
            appAccountToken: appAccountToken)
    }
}

/// Every chain a set of events describes, keyed by original transaction id.
struct SubscriptionChainFold: Hashable, Sendable {
    var chains: [String: SubscriptionChain] = [:]

    mutating func apply(_ event: SubscriptionEvent) {
        guard let key = event.originalTransactionId else { return }
        if var chain = chains[key] {
            chain.apply(event)
            chains[key] = chain
        } else if let transaction = event.transaction {
            var chain = SubscriptionChain(first: transaction)
            chain.apply(event)
            chains[key] = chain
        }
    }
}

/// What a notification does to a chain, from its type and subtype: one place decides that
/// `OFFER_REDEEMED/UPGRADE` is an upgrade and `OFFER_REDEEMED/INITIAL_BUY` a purchase.
enum SubscriptionEffect: Hashable, Sendable {
    case purchase, renewal, billingFailure, graceExpiry, expiry, autoRenewChange
    case upgrade, downgrade, downgradeCancelled, offerForNextRenewal
    case refund, revoke, refundReversed, `extension`, priceIncrease, informational

    init(_ event: SubscriptionEvent) {
        let subtype = event.subtype
        switch event.notificationType {
        case .subscribed: self = .purchase
        case .didRenew: self = .renewal
        case .didFailToRenew: self = .billingFailure
        case .gracePeriodExpired: self = .graceExpiry
        case .expired: self = .expiry
        case .didChangeRenewalStatus: self = .autoRenewChange
        case .didChangeRenewalPref:
            self = subtype == .upgrade ? .upgrade : subtype == .downgrade ? .downgrade : .downgradeCancelled
        case .offerRedeemed:
            switch subtype {
            case .initialBuy?, .resubscribe?: self = .purchase
            case .upgrade?: self = .upgrade
            case .downgrade?: self = .downgrade
            default: self = .offerForNextRenewal
            }
        case .refund: self = .refund
        case .revoke: self = .revoke
        case .refundReversed: self = .refundReversed
        case .renewalExtended: self = .extension
        case .priceIncrease: self = .priceIncrease
        default: self = .informational
        }
    }

    /// Within one instant, things happen in the order a customer can cause them.
    var rank: Int {
        switch self {
        case .purchase: 0
        case .renewal: 1
        case .billingFailure: 2
        case .graceExpiry: 3
        case .expiry: 5
        case .refund, .revoke: 6
        case .refundReversed: 7
        default: 4
        }
    }
}
