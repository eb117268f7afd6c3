/// A stored subscription row read as a chain, for subscriptions the store has no notifications for
/// (the demo's hand-written rows, a seeded store's).
///
/// A row says what was known at the store's clock: the current period, and whether billing was failing,
/// the subscription had expired or was refunded. Played forward from there it answers exactly as the
/// notifications would (a period ends, grace runs out, billing retry gives up after 60 days); played
/// backward it knows no earlier history, so before the row's own dates it shows the current period
/// as if it had always been so.
///
///     row.info(at: clock)?.state      // .gracePeriod
///     row.info(at: clock.adding(.days(30)))?.state   // .billingRetry
///
/// Billing retry gives up after 60 days of the row's own `timeRate`: a demo chain driven at a month
/// every 30 seconds stops retrying a minute after its period ended, not 60 real days later.
extension Subscription {
    /// The subscription at `instant`, or nil before it was first bought.
    public func info(at instant: Instant) -> SubscriptionInfo? {
        guard instant >= originalPurchaseDate else { return nil }
        return chain(at: instant).info(at: instant, billingRetryLimit: timeRate.billingRetryLimit)
    }

    /// When a refund or family-sharing revoke took effect: its date, or the period's start if the row has none.
    var revokedSince: Instant? {
        state == .revoked ? revocationDate ?? purchaseDate : nil
    }

    func chain(at instant: Instant) -> SubscriptionChain {
        var chain = SubscriptionChain(
            first: TransactionInfo(
                transactionId: id, originalTransactionId: id, productId: productId,
                subscriptionGroupIdentifier: groupId.isEmpty ? nil : groupId, purchaseDate: purchaseDate,
                originalPurchaseDate: originalPurchaseDate, expiresDate: expiresDate,
                offerType: offerType.flatMap(OfferType.init(key:)), offerIdentifier: offerId))
        chain.autoRenew = autoRenew
        chain.autoRenewProductId = productId
        switch state {
        case .active:
            break
        case .gracePeriod:
            chain.billingIssue = .init(since: expiresDate, graceEnds: gracePeriodExpiresDate)
        case .billingRetry:
            chain.billingIssue = .init(since: expiresDate, graceEnds: nil)
        case .expired:
            chain.autoRenew = false
            chain.reportedExpirationIntent = expirationIntent.flatMap(ExpirationIntent.init(key:)) ?? .other
        case .revoked:
            chain.autoRenew = false
            if let since = revokedSince, since <= instant {
                let kind = revocationReason.flatMap(RevocationKind.init(rawValue:)) ?? .refund
                chain.revocation = .init(kind: kind, date: since, reason: appleRevocationReason.map(RevocationReason.init(rawValue:)))
            }
        }
        return chain
    }
}
