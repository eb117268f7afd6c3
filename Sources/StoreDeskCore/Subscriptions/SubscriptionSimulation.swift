/// One customer's subscriptions driven from Core without Apple: what StoreKit testing does in Xcode.
///
/// Each customer action and each passing period end becomes the notification Apple would send, recorded
/// on a `SubscriptionTimeline`, so a simulated customer looks exactly like an imported one (and exports
/// as JSON Lines). Time only moves forward and always comes in as a parameter; `advance(to:)` plays
/// renewals, billing failures, grace and retry ends and expiries up to an instant, and every action
/// advances to its own instant first. A refused action (it throws) changes nothing but the clock:
/// whatever was due by its instant has happened anyway.
///
///     var sim = SubscriptionSimulation(app: app, products: catalogue, start: t0, rate: .monthEvery30Seconds)
///     let id = try sim.purchase("vip.monthly", at: t0, offer: .freeTrial(.week))
///     try sim.startBillingProblem(id, at: t1)
///     try sim.advance(to: t2)
///     sim.snapshot(at: t2).inGracePeriod
///
/// Ids are deterministic: transaction ids count up from `firstTransactionId` and notification UUIDs come
/// from a seeded generator, so the same script gives the same timeline.
public struct SubscriptionSimulation: Sendable {
    public private(set) var app: App
    public private(set) var products: [String: Product]
    public let rate: TimeRate
    public let environment: StoreEnvironment
    /// Everything Apple would have sent so far.
    public private(set) var timeline: SubscriptionTimeline
    /// The simulated clock: the latest instant an action or `advance(to:)` reached.
    public private(set) var now: Instant

    private var fold = SubscriptionChainFold()
    private var plans: [String: RenewalPlan] = [:]
    private var chainByGroup: [String: String] = [:]
    private var notForSale: Set<String> = []
    private var nextTransactionNumber: UInt64
    private var uuidSource: SeededGenerator

    public init(
        app: App, products: [Product], start: Instant, rate: TimeRate = .realTime,
        environment: StoreEnvironment = .sandbox, firstTransactionId: UInt64 = 2_000_000_000_000_001, seed: UInt64 = 0
    ) {
        self.app = app
        self.products = Dictionary(products.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
        self.rate = rate
        self.environment = environment
        self.timeline = SubscriptionTimeline(billingRetryLimit: rate.billingRetryLimit)
        self.now = start
        self.nextTransactionNumber = firstTransactionId
        self.uuidSource = SeededGenerator(seed: seed)
    }

    /// Every subscription's state at an instant; `advance(to:)` first for an instant after `now`.
    public func snapshot(at instant: Instant) -> SubscriptionSnapshot { timeline.snapshot(at: instant) }

    /// One subscription's state at `now`.
    public func subscription(_ originalTransactionId: String) -> SubscriptionInfo? {
        fold.chains[originalTransactionId]?.info(at: now, billingRetryLimit: rate.billingRetryLimit)
    }

    /// The customer's subscription chain in a group, if they ever subscribed there.
    public func originalTransactionId(group: String) -> String? { chainByGroup[group] }

    // MARK: - Time

    /// Plays everything due up to `instant`: renewals at each period end, billing failures into grace
    /// or retry, grace and retry ends, and expiries.
    public mutating func advance(to instant: Instant) throws {
        guard instant >= now else { throw SubscriptionSimulationError.timeWentBackwards(now: now, requested: instant) }
        var last: (Instant, String, Step)?
        while let due = nextDue(through: instant) {
            // A step that changes nothing would repeat forever; every step ends or moves its chain on.
            if let last, last.0 == due.0, last.1 == due.1, last.2 == due.2 { break }
            last = due
            perform(due.2, on: due.1, at: due.0)
        }
        now = instant
    }

    enum Step: Hashable, Sendable { case periodEnds, graceEnds, retryEnds }

    private func nextDue(through instant: Instant) -> (Instant, String, Step)? {
        var best: (Instant, String, Step)?
        for (id, chain) in fold.chains {
            guard chain.revocation == nil, chain.expiration == nil else { continue }
            let due: (Instant, Step)
            if let issue = chain.billingIssue {
                let retryEnds = issue.since.adding(rate.billingRetryLimit)
                if let grace = issue.graceEnds, !issue.graceOver, grace < retryEnds {
                    due = (grace, .graceEnds)
                } else {
                    due = (retryEnds, .retryEnds)
                }
            } else {
                due = (chain.expiresDate, .periodEnds)
            }
            guard due.0 <= instant else { continue }
            if let current = best, (current.0, current.1) <= (due.0, id) { continue }
            best = (due.0, id, due.1)
        }
        return best
    }

    private mutating func perform(_ step: Step, on id: String, at instant: Instant) {
        guard let chain = fold.chains[id] else { return }
        switch step {
        case .graceEnds:
            emit(
                .gracePeriodExpired, nil, current(chain, at: instant),
                renewal(chain, at: instant, retrying: true, grace: chain.billingIssue?.graceEnds), at: instant)
        case .retryEnds:
            expire(chain, .billingError, at: instant)
        case .periodEnds:
            let plan = plans[id] ?? RenewalPlan(anchor: chain.purchaseDate)
            let renewingId = chain.autoRenewProductId ?? chain.productId
            if !chain.autoRenew {
                expire(chain, .cancelled, at: instant)
            } else if notForSale.contains(renewingId) || products[renewingId]?.period == nil {
                expire(chain, .productUnavailable, at: instant)
            } else if plan.priceIncreasePending {
                expire(chain, .declinedPriceIncrease, at: instant)
            } else if plan.billingFails {
                let days = products[chain.productId]?.period.map { app.gracePeriodDays(for: $0) } ?? app.gracePeriodDays
                let grace = days > 0 ? instant.adding(rate.days(days)) : nil
                emit(
                    .didFailToRenew, grace == nil ? nil : .gracePeriod, current(chain, at: instant),
                    renewal(chain, at: instant, retrying: true, grace: grace, intent: .billingError), at: instant)
            } else if let product = products[renewingId] {
                renew(chain, product: product, start: instant, subtype: nil, at: instant)
            }
        }
    }

    // MARK: - Customer actions

    /// Subscribes to a product: a first purchase in its group (`SUBSCRIBED/INITIAL_BUY`), or a
    /// resubscription after the group's subscription expired or was refunded (`.../RESUBSCRIBE`, same
    /// original transaction). Promotional offers and offer codes arrive as `OFFER_REDEEMED`.
    @discardableResult
    public mutating func purchase(
        _ productId: String, at instant: Instant, offer: SubscriptionOffer? = nil, appAccountToken: String? = nil
    ) throws -> String {
        try advance(to: instant)
        let (product, group) = try subscribable(productId)
        let originalId: String
        var resubscribing = false
        var originalPurchase = instant
        if let existing = chainByGroup[group], let chain = fold.chains[existing] {
            let state = chain.info(at: instant, billingRetryLimit: rate.billingRetryLimit).state
            guard state == .expired || state == .revoked else {
                throw SubscriptionSimulationError.alreadySubscribed(group: group, originalTransactionId: existing)
            }
            originalId = existing
            resubscribing = true
            originalPurchase = chain.originalPurchaseDate
        } else {
            originalId = String(nextTransactionNumber)
        }
        if let offer {
            try validate(offer)
            if offer.type == .introductory, chainByGroup[group] != nil {
                throw SubscriptionSimulationError.notEligibleForIntroductoryOffer(group: group)
            }
        }
        var plan = RenewalPlan(anchor: instant)
        if let offer { plan.offer = RenewalPlan.RunningOffer(offer: offer, anchor: instant) }
        let term = plan.nextTerm(product: product, start: instant, rate: rate)
        plans[originalId] = plan
        chainByGroup[group] = originalId
        let transaction = makeTransaction(
            originalId: originalId, originalPurchaseDate: originalPurchase, product: product, start: instant,
            term: term, reason: "PURCHASE", token: appAccountToken, at: instant)
        let redeemed = offer.map { $0.type != .introductory } ?? false
        let renewalInfo = RenewalInfo(
            originalTransactionId: originalId, productId: product.id, autoRenewProductId: product.id,
            autoRenewStatus: 1, isInBillingRetryPeriod: false, environment: environment.rawValue,
            recentSubscriptionStartDate: instant, renewalDate: term.end, renewalPrice: Int64(product.priceCents).clampedMultiplied(by: 10),
            currency: product.currency, signedDate: instant)
        emit(
            redeemed ? .offerRedeemed : .subscribed, resubscribing ? .resubscribe : .initialBuy, transaction,
            renewalInfo, at: instant)
        return originalId
    }

    /// Subscribes with a `Product` value, adding it to the catalogue first.
    @discardableResult
    public mutating func purchase(
        _ product: Product, at instant: Instant, offer: SubscriptionOffer? = nil, appAccountToken: String? = nil
    ) throws -> String {
        products[product.id] = product
        return try purchase(product.id, at: instant, offer: offer, appAccountToken: appAccountToken)
    }

    /// From now on renewals fail to bill, as a card that expired. The next period end enters the
    /// billing grace period when the app has one, else billing retry.
    public mutating func startBillingProblem(_ originalTransactionId: String, at instant: Instant) throws {
        try advance(to: instant)
        _ = try chain(originalTransactionId)
        plans[originalTransactionId, default: RenewalPlan(anchor: instant)].billingFails = true
    }

    /// The customer fixes their payment method. A subscription in grace recovers with no lost days (the
    /// new period starts at the old expiry); one in billing retry starts a new period now.
    public mutating func resolveBillingProblem(_ originalTransactionId: String, at instant: Instant) throws {
        try advance(to: instant)
        let chain = try chain(originalTransactionId)
        plans[originalTransactionId, default: RenewalPlan(anchor: instant)].billingFails = false
        let state = chain.info(at: instant, billingRetryLimit: rate.billingRetryLimit).state
        guard state == .gracePeriod || state == .billingRetry else { return }
        let renewingId = chain.autoRenewProductId ?? chain.productId
        guard let product = products[renewingId] else { return }
        let start = state == .gracePeriod ? chain.expiresDate : instant
        if state == .billingRetry { plans[originalTransactionId]?.restartSeries() }
        renew(chain, product: product, start: start, subtype: .billingRecovery, at: instant)
    }

    /// Turns auto-renew on or off; off means the subscription expires (cancelled) at its period end.
    public mutating func setAutoRenew(_ originalTransactionId: String, _ on: Bool, at instant: Instant) throws {
        try advance(to: instant)
        let chain = try liveChain(originalTransactionId, at: instant)
        guard chain.autoRenew != on else { return }
        var info = renewal(chain, at: instant)
        info.autoRenewStatus = on ? 1 : 0
        emit(
            .didChangeRenewalStatus, on ? .autoRenewEnabled : .autoRenewDisabled, current(chain, at: instant), info,
            at: instant)
    }

    /// Moves to a higher level of service in the same group at once: a new period starts now, and the
    /// old product's remaining time ends (Apple refunds it pro rata).
    public mutating func upgrade(_ originalTransactionId: String, to productId: String, at instant: Instant) throws {
        try advance(to: instant)
        let chain = try liveChain(originalTransactionId, at: instant)
        let product = try sameGroup(productId, as: chain)
        var plan = plans[originalTransactionId] ?? RenewalPlan(anchor: instant)
        plan.offer = nil
        plan.restartSeries()
        let term = plan.nextTerm(product: product, start: instant, rate: rate)
        plans[originalTransactionId] = plan
        let transaction = makeTransaction(
            originalId: originalTransactionId, originalPurchaseDate: chain.originalPurchaseDate, product: product,
            start: instant, term: term, reason: "PURCHASE", token: chain.appAccountToken, at: instant)
        var info = renewal(chain, at: instant)
        info.productId = product.id
        info.autoRenewProductId = product.id
        info.autoRenewStatus = 1
        info.renewalDate = term.end
        emit(.didChangeRenewalPref, .upgrade, transaction, info, at: instant)
    }

    /// Moves to a lower level (or a different period) in the same group from the next renewal; the
    /// current period runs out unchanged. Choosing the current product cancels a waiting downgrade.
    public mutating func downgrade(_ originalTransactionId: String, to productId: String, at instant: Instant) throws {
        try advance(to: instant)
        let chain = try liveChain(originalTransactionId, at: instant)
        let product = try sameGroup(productId, as: chain)
        var info = renewal(chain, at: instant)
        info.autoRenewProductId = product.id
        emit(
            .didChangeRenewalPref, product.id == chain.productId ? nil : .downgrade, current(chain, at: instant), info,
            at: instant)
    }

    /// Apple refunds the current transaction: access ends now, whatever the period had left.
    public mutating func refund(
        _ originalTransactionId: String, at instant: Instant, reason: RevocationReason = .other
    ) throws {
        try revoke(originalTransactionId, type: .refund, reason: reason, at: instant)
    }

    /// The family organiser stops sharing the subscription: this family member loses access now.
    public mutating func revokeFamilySharing(_ originalTransactionId: String, at instant: Instant) throws {
        try revoke(originalTransactionId, type: .revoke, reason: nil, at: instant)
    }

    /// Apple asks the customer to consent to a higher price. Until they consent, the next renewal
    /// expires the subscription (declined price increase).
    public mutating func announcePriceIncrease(_ originalTransactionId: String, at instant: Instant) throws {
        try advance(to: instant)
        let chain = try liveChain(originalTransactionId, at: instant)
        plans[originalTransactionId, default: RenewalPlan(anchor: instant)].priceIncreasePending = true
        var info = renewal(chain, at: instant)
        info.priceIncreaseStatus = 0
        emit(.priceIncrease, .pending, current(chain, at: instant), info, at: instant)
    }

    /// The customer consents to the announced price increase; renewals continue.
    public mutating func consentToPriceIncrease(_ originalTransactionId: String, at instant: Instant) throws {
        try advance(to: instant)
        let chain = try liveChain(originalTransactionId, at: instant)
        plans[originalTransactionId, default: RenewalPlan(anchor: instant)].priceIncreasePending = false
        var info = renewal(chain, at: instant)
        info.priceIncreaseStatus = 1
        emit(.priceIncrease, .accepted, current(chain, at: instant), info, at: instant)
    }

    /// Takes a product off sale: no new purchases, and subscriptions renewing into it expire at their
    /// period end (product unavailable).
    public mutating func removeFromSale(_ productId: String, at instant: Instant) throws {
        try advance(to: instant)
        guard products[productId] != nil else { throw SubscriptionSimulationError.unknownProduct(productId) }
        notForSale.insert(productId)
    }

    /// Redeems a promotional offer or offer code on a live subscription; it prices the next renewal(s).
    public mutating func redeemOffer(
        _ originalTransactionId: String, _ offer: SubscriptionOffer, at instant: Instant
    ) throws {
        try advance(to: instant)
        let chain = try liveChain(originalTransactionId, at: instant)
        try validate(offer)
        guard offer.type != .introductory else {
            throw SubscriptionSimulationError.notEligibleForIntroductoryOffer(group: chain.groupId ?? "")
        }
        plans[originalTransactionId, default: RenewalPlan(anchor: instant)].pendingOffer = offer
        var info = renewal(chain, at: instant)
        info.offerType = offer.type
        info.offerIdentifier = offer.id
        info.offerDiscountType = offer.discount
        emit(.offerRedeemed, nil, current(chain, at: instant), info, at: instant)
    }

    /// The developer extends the current period by 1 to 90 days (to make up for an outage, say).
    public mutating func extendRenewalDate(_ originalTransactionId: String, days: Int, at instant: Instant) throws {
        try advance(to: instant)
        guard (1...90).contains(days) else { throw SubscriptionSimulationError.invalidExtension(days: days) }
        let chain = try chain(originalTransactionId)
        let state = chain.info(at: instant, billingRetryLimit: rate.billingRetryLimit).state
        guard state == .active else {
            throw SubscriptionSimulationError.notActive(originalTransactionId: originalTransactionId, state: state)
        }
        plans[originalTransactionId, default: RenewalPlan(anchor: instant)].restartSeries()
        var transaction = current(chain, at: instant)
        transaction.expiresDate = chain.expiresDate.adding(rate.days(days))
        var info = renewal(chain, at: instant)
        info.renewalDate = transaction.expiresDate
        emit(.renewalExtended, nil, transaction, info, at: instant)
    }

    // MARK: - Building notifications

    private mutating func revoke(
        _ id: String, type: NotificationType, reason: RevocationReason?, at instant: Instant
    ) throws {
        try advance(to: instant)
        let chain = try chain(id)
        let state = chain.info(at: instant, billingRetryLimit: rate.billingRetryLimit).state
        guard state != .revoked else { throw SubscriptionSimulationError.notActive(originalTransactionId: id, state: state) }
        var transaction = current(chain, at: instant)
        transaction.revocationDate = instant
        transaction.revocationReason = reason
        if type == .revoke { transaction.inAppOwnershipType = "FAMILY_SHARED" }
        var info = renewal(chain, at: instant)
        info.autoRenewStatus = 0
        plans[id]?.offer = nil
        emit(type, nil, transaction, info, at: instant)
    }

    private mutating func renew(
        _ chain: SubscriptionChain, product: Product, start: Instant, subtype: NotificationSubtype?, at instant: Instant
    ) {
        let id = chain.originalTransactionId
        var plan = plans[id] ?? RenewalPlan(anchor: start)
        let term = plan.nextTerm(product: product, start: start, rate: rate)
        plans[id] = plan
        let transaction = makeTransaction(
            originalId: id, originalPurchaseDate: chain.originalPurchaseDate, product: product, start: start,
            term: term, reason: "RENEWAL", token: chain.appAccountToken, at: instant)
        var info = renewal(chain, at: instant)
        info.productId = product.id
        info.autoRenewProductId = product.id
        info.renewalDate = term.end
        info.offerType = nil
        info.offerIdentifier = nil
        info.offerDiscountType = nil
        emit(.didRenew, subtype, transaction, info, at: instant)
    }

    private mutating func expire(_ chain: SubscriptionChain, _ intent: ExpirationIntent, at instant: Instant) {
        var info = renewal(chain, at: instant, intent: intent)
        info.autoRenewStatus = 0
        emit(.expired, intent.expiredSubtype, current(chain, at: instant), info, at: instant)
    }

    /// A new transaction for a period starting at `start`.
    private mutating func makeTransaction(
        originalId: String, originalPurchaseDate: Instant, product: Product, start: Instant, term: RenewalPlan.Term,
        reason: String, token: String?, at instant: Instant
    ) -> TransactionInfo {
        let transactionId = String(nextTransactionNumber)
        nextTransactionNumber += 1
        return TransactionInfo(
            transactionId: transactionId, originalTransactionId: originalId, productId: product.id,
            subscriptionGroupIdentifier: product.subscriptionGroup, bundleId: app.bundleId, purchaseDate: start,
            originalPurchaseDate: originalPurchaseDate, expiresDate: term.end, offerType: term.offer?.type,
            offerIdentifier: term.offer?.id, offerDiscountType: term.offer?.discount,
            offerPeriod: term.offer?.offerPeriod, environment: environment.rawValue, appAccountToken: token,
            transactionReason: reason, inAppOwnershipType: "PURCHASED", price: term.price,
            currency: product.currency, signedDate: instant)
    }

    /// The chain's current transaction, as Apple repeats it in notifications that start no new period.
    private func current(_ chain: SubscriptionChain, at instant: Instant) -> TransactionInfo {
        let product = products[chain.productId]
        return TransactionInfo(
            transactionId: chain.transactionId, originalTransactionId: chain.originalTransactionId,
            productId: chain.productId, subscriptionGroupIdentifier: chain.groupId, bundleId: app.bundleId,
            purchaseDate: chain.purchaseDate, originalPurchaseDate: chain.originalPurchaseDate,
            expiresDate: chain.expiresDate, offerType: chain.offerType, offerIdentifier: chain.offerId,
            offerDiscountType: chain.offerDiscountType, environment: environment.rawValue,
            appAccountToken: chain.appAccountToken, inAppOwnershipType: "PURCHASED",
            price: product.map { Int64($0.priceCents).clampedMultiplied(by: 10) }, currency: product?.currency, signedDate: instant)
    }

    /// The chain's renewal info as it stands, before the caller's changes.
    private func renewal(
        _ chain: SubscriptionChain, at instant: Instant, retrying: Bool = false, grace: Instant? = nil,
        intent: ExpirationIntent? = nil
    ) -> RenewalInfo {
        let renewingId = chain.autoRenewProductId ?? chain.productId
        let product = products[renewingId]
        return RenewalInfo(
            originalTransactionId: chain.originalTransactionId, productId: chain.productId,
            autoRenewProductId: renewingId, autoRenewStatus: chain.autoRenew ? 1 : 0, expirationIntent: intent,
            isInBillingRetryPeriod: retrying, gracePeriodExpiresDate: grace, priceIncreaseStatus: chain.priceIncreaseStatus,
            offerType: chain.pendingOfferType, offerIdentifier: chain.pendingOfferId, environment: environment.rawValue,
            renewalDate: chain.expiresDate, renewalPrice: product.map { Int64($0.priceCents).clampedMultiplied(by: 10) },
            currency: product?.currency, signedDate: instant)
    }

    /// Records an event and keeps the simulation's own view of the chains in step with the timeline.
    private mutating func emit(
        _ type: NotificationType, _ subtype: NotificationSubtype?, _ transaction: TransactionInfo,
        _ renewal: RenewalInfo, at instant: Instant
    ) {
        let event = SubscriptionEvent(
            notificationType: type, subtype: subtype, notificationUUID: nextUUID(), signedDate: instant,
            bundleId: app.bundleId, environment: environment.rawValue, transaction: transaction, renewal: renewal,
            provenance: .simulated)
        guard let index = timeline.insert(event) else { return }
        if index == timeline.events.count - 1 {
            fold.apply(event)
        } else {
            // Same instant, earlier in the timeline's order: fold again so both agree.
            fold = timeline.fold()
        }
    }

    /// A version-4 UUID string from the seeded generator.
    private mutating func nextUUID() -> String {
        var bytes: [UInt8] = []
        for word in [uuidSource.next(), uuidSource.next()] {
            for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(shift))) }
        }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let digits = Array("0123456789ABCDEF")
        var text = ""
        for (index, byte) in bytes.enumerated() {
            if [4, 6, 8, 10].contains(index) { text.append("-") }
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return text
    }

    // MARK: - Checks

    private func subscribable(_ productId: String) throws -> (Product, String) {
        guard let product = products[productId] else { throw SubscriptionSimulationError.unknownProduct(productId) }
        guard product.type == .autoRenewable, product.period != nil, let group = product.subscriptionGroup else {
            throw SubscriptionSimulationError.notAutoRenewable(productId)
        }
        guard !notForSale.contains(productId) else { throw SubscriptionSimulationError.productNotForSale(productId) }
        return (product, group)
    }

    private func sameGroup(_ productId: String, as chain: SubscriptionChain) throws -> Product {
        let (product, group) = try subscribable(productId)
        guard group == chain.groupId else {
            throw SubscriptionSimulationError.differentGroup(productId: productId, group: chain.groupId ?? "")
        }
        return product
    }

    private func chain(_ id: String) throws -> SubscriptionChain {
        guard let chain = fold.chains[id] else { throw SubscriptionSimulationError.unknownSubscription(id) }
        return chain
    }

    /// A chain not yet expired or revoked (active, grace period or billing retry); plan changes need one.
    private func liveChain(_ id: String, at instant: Instant) throws -> SubscriptionChain {
        let chain = try chain(id)
        let state = chain.info(at: instant, billingRetryLimit: rate.billingRetryLimit).state
        guard state == .active || state == .gracePeriod || state == .billingRetry else {
            throw SubscriptionSimulationError.notActive(originalTransactionId: id, state: state)
        }
        return chain
    }

    private func validate(_ offer: SubscriptionOffer) throws {
        guard offer.period.value > 0 else { throw SubscriptionSimulationError.invalidOffer("the period must be positive") }
        guard offer.periodCount > 0 else { throw SubscriptionSimulationError.invalidOffer("at least one period") }
        guard offer.priceCents >= 0 else { throw SubscriptionSimulationError.invalidOffer("a negative price") }
    }
}

/// What the simulation knows about a chain's future that notifications do not say: whether billing will
/// fail, which offer prices the next periods, and the anchor that keeps renewals on the same day.
struct RenewalPlan: Hashable, Sendable {
    struct RunningOffer: Hashable, Sendable {
        var offer: SubscriptionOffer
        var anchor: Instant
        var used = 0
    }

    struct Term: Hashable, Sendable {
        var end: Instant
        var offer: SubscriptionOffer?
        var price: Int64
    }

    /// The start of the current series of regular periods; renewals count from it.
    var anchor: Instant
    /// The product of the current series; nil starts a new series at the next regular term.
    var anchorProductId: String?
    var periodsSinceAnchor = 0
    var billingFails = false
    var priceIncreasePending = false
    var offer: RunningOffer?
    var pendingOffer: SubscriptionOffer?

    init(anchor: Instant) { self.anchor = anchor }

    mutating func restartSeries() { anchorProductId = nil }

    /// The next period from `start`: an offer-priced one while an offer runs, else a regular one.
    mutating func nextTerm(product: Product, start: Instant, rate: TimeRate) -> Term {
        if offer == nil, let pending = pendingOffer {
            offer = RunningOffer(offer: pending, anchor: start)
            pendingOffer = nil
        }
        if var running = offer, running.used < running.offer.termCount {
            running.used += 1
            offer = running.used < running.offer.termCount ? running : nil
            anchorProductId = nil
            let end = later(
                rate.end(of: running.offer.termLength, count: running.used, from: running.anchor), than: start)
            return Term(end: end, offer: running.offer, price: running.offer.termPrice)
        }
        offer = nil
        let period = product.period?.calendarPeriod ?? .month
        if anchorProductId != product.id {
            anchor = start
            anchorProductId = product.id
            periodsSinceAnchor = 0
        }
        periodsSinceAnchor += 1
        let end = later(rate.end(of: period, count: periodsSinceAnchor, from: anchor), than: start)
        return Term(end: end, offer: nil, price: Int64(product.priceCents).clampedMultiplied(by: 10))
    }

    /// Every period lasts at least a millisecond, however fast the rate.
    private func later(_ end: Instant, than start: Instant) -> Instant {
        end > start ? end : start.adding(Instant.Duration(millis: 1))
    }
}
