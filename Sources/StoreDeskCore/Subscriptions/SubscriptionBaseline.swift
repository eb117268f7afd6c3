/// What the store knew of a subscription before its first notification, told as the notifications that
/// would have said it: a purchase, a renewal (or upgrade) for each paid period the store keeps, and what
/// the row says of now (auto-renew off, billing failing, expired, refunded).
///
/// The store's notifications say how a chain goes on: once a chain has one, its row is folded from them
/// alone. A chain the store kept without any (the demo's, a seeded store's, one bought through the
/// payment queue) would be folded from its first notification alone: a support refund then lost the
/// offer, the first purchase and every paid period before it. So the first notification of a chain that
/// has a row comes after these, written in the same transaction: the fold starts from what the store
/// knew, and every reader of the log (the timeline, the chart, `subs`) sees the chain's past.
///
/// They are never sent and never in Apple's Get Notification History (Apple sent none of them): their
/// UUIDs start with `STORE-RECORD-` and they are kept with the source `store record`.
///
///     let past = SubscriptionBaseline.events(row: row, transactions: stored, products: byId, app: app, at: now)
///     ChainFolding(events: past + [refund]).info(at: now, ...)   // offer and periods kept
public enum SubscriptionBaseline {
    /// The `source` the store keeps them with.
    public static let source = "store record"
    /// How their notification UUIDs start.
    public static let uuidPrefix = "STORE-RECORD-"

    /// The notifications that tell `row` as the store knew it at `now` (none signed after it), from the
    /// chain's stored purchases up to the row's period, in purchase order (the row alone when the store
    /// keeps none). `products` by id: a transaction whose product is missing is told as the row's.
    public static func events(
        row: Subscription, transactions: [StoreTransaction], products: [String: Product], app: App, at now: Instant
    ) -> [SubscriptionEvent] {
        guard let rowProduct = products[row.productId] else { return [] }
        // A period is a purchase (a restore delivers one again, it starts none) up to the row's own.
        var paid = transactions
            .filter { $0.originalTransactionId == row.id && $0.state == .purchased && $0.purchaseDate <= row.purchaseDate }
            .sorted { ($0.purchaseDate, $0.id) < ($1.purchaseDate, $1.id) }
        if paid.isEmpty {
            paid = [
                StoreTransaction(
                    id: row.id, originalTransactionId: row.id, userId: row.userId, appId: row.appId, productId: row.productId,
                    state: .purchased, sid: "", purchaseDate: row.purchaseDate, expiresDate: row.expiresDate, finished: true)
            ]
        }
        var infos = paid.map { stored in
            var info = AppleSupport.transactionInfo(
                stored, product: products[stored.productId] ?? rowProduct, app: app, originalPurchaseDate: row.originalPurchaseDate)
            info.revocationDate = nil
            return info
        }
        // The latest period is the row's: its product, dates and offer as the row keeps them.
        infos[infos.count - 1].productId = row.productId
        infos[infos.count - 1].expiresDate = row.expiresDate
        infos[infos.count - 1].offerType = row.offerType.flatMap(OfferType.init(key:))
        infos[infos.count - 1].offerIdentifier = row.offerId
        if infos.count == 1 { infos[0].purchaseDate = max(infos[0].purchaseDate, row.purchaseDate) }

        var told: [SubscriptionEvent] = []
        func tell(_ type: NotificationType, _ subtype: NotificationSubtype?, _ info: TransactionInfo, renewal: RenewalInfo?, at date: Instant) {
            var info = info
            let signed = min(date, now)
            info.signedDate = signed
            var renewal = renewal
            renewal?.signedDate = signed
            var event = AppleSupport.notification(
                type, info, renewal: renewal, app: app, uuid: uuidPrefix + "\(row.id)-\(told.count + 1)", at: signed)
            event.subtype = subtype
            told.append(event)
        }
        for (index, info) in infos.enumerated() {
            if index == 0 {
                tell(.subscribed, .initialBuy, info, renewal: nil, at: info.purchaseDate)
            } else {
                let before = infos[index - 1]
                let upgrade = info.productId != before.productId && info.purchaseDate < (before.expiresDate ?? info.purchaseDate)
                if upgrade {
                    tell(.didChangeRenewalPref, .upgrade, info, renewal: nil, at: info.purchaseDate)
                } else {
                    tell(.didRenew, nil, info, renewal: nil, at: info.purchaseDate)
                }
            }
        }
        let latest = infos[infos.count - 1]
        let renewal = RenewalInfo(
            originalTransactionId: row.id, productId: row.productId, autoRenewProductId: row.productId,
            autoRenewStatus: row.autoRenew ? 1 : 0, environment: latest.environment)
        let afterLatest = Instant(millis: latest.purchaseDate.millis + 1)
        switch row.state {
        case .active:
            if !row.autoRenew { tell(.didChangeRenewalStatus, .autoRenewDisabled, latest, renewal: renewal, at: afterLatest) }
        case .gracePeriod, .billingRetry:
            var failing = renewal
            failing.isInBillingRetryPeriod = true
            failing.gracePeriodExpiresDate = row.state == .gracePeriod ? row.gracePeriodExpiresDate : nil
            tell(.didFailToRenew, row.state == .gracePeriod ? .gracePeriod : nil, latest, renewal: failing, at: max(row.expiresDate, afterLatest))
        case .expired:
            let intent = row.expirationIntent.flatMap(ExpirationIntent.init(key:)) ?? .other
            var ended = renewal
            ended.autoRenewStatus = 0
            ended.expirationIntent = intent
            tell(.expired, intent.expiredSubtype, latest, renewal: ended, at: max(row.expiresDate, afterLatest))
        case .revoked:
            let kind = row.revocationReason.flatMap(RevocationKind.init(rawValue:)) ?? .refund
            let date = row.revocationDate ?? row.purchaseDate
            var revoked = latest
            revoked.revocationDate = date
            revoked.revocationReason = row.appleRevocationReason.map(RevocationReason.init(rawValue:))
            var off = renewal
            off.autoRenewStatus = 0
            tell(kind == .refund ? .refund : .revoke, nil, revoked, renewal: off, at: max(date, afterLatest))
        }
        return told
    }
}

extension SubscriptionEvent {
    /// One of the notifications that tell what the store knew of a chain before its first
    /// (`SubscriptionBaseline`): never sent, never Apple's.
    public var isStoreRecord: Bool { notificationUUID.hasPrefix(SubscriptionBaseline.uuidPrefix) }
}
