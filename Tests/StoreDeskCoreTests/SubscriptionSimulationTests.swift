import Testing

@testable import StoreDeskCore

/// One customer's story, told as actions and the state expected at given instants.
struct Scenario: Sendable, CustomTestStringConvertible {
    enum Step: Sendable {
        case purchase(String, at: String, offer: SubscriptionOffer? = nil)
        case billingProblem(at: String)
        case fixBilling(at: String)
        case autoRenew(Bool, at: String)
        case upgrade(String, at: String)
        case downgrade(String, at: String)
        case refund(at: String)
        case revokeFamilySharing(at: String)
        case announcePriceIncrease(at: String)
        case consentToPriceIncrease(at: String)
        case removeFromSale(String, at: String)
        case redeem(SubscriptionOffer, at: String)
        case expect(at: String, Expect)
    }

    struct Expect: Sendable {
        var state: SubscriptionState
        var product: String?
        var purchased: String?
        var expires: String?
        var grace: String?
        var intent: ExpirationIntent?
        var offer: OfferType??
        var pending: String??

        init(
            _ state: SubscriptionState, product: String? = nil, purchased: String? = nil, expires: String? = nil,
            grace: String? = nil, intent: ExpirationIntent? = nil, offer: OfferType?? = nil, pending: String?? = nil
        ) {
            self.state = state
            self.product = product
            self.purchased = purchased
            self.expires = expires
            self.grace = grace
            self.intent = intent
            self.offer = offer
            self.pending = pending
        }
    }

    var name: String
    var graceDays = 16
    var steps: [Step]
    /// The Apple names of the whole timeline, when the scenario pins them.
    var names: [String]?

    var testDescription: String { name }

    /// Runs the story; returns the simulation and the instants the story checked.
    func run() throws -> (SubscriptionSimulation, [Instant]) {
        var sim = Fixture.simulation(graceDays: graceDays, start: "01-01")
        var id = ""
        var checked: [Instant] = []
        for step in steps {
            switch step {
            case .purchase(let product, let at, let offer): id = try sim.purchase(product, at: day(at), offer: offer)
            case .billingProblem(let at): try sim.startBillingProblem(id, at: day(at))
            case .fixBilling(let at): try sim.resolveBillingProblem(id, at: day(at))
            case .autoRenew(let on, let at): try sim.setAutoRenew(id, on, at: day(at))
            case .upgrade(let product, let at): try sim.upgrade(id, to: product, at: day(at))
            case .downgrade(let product, let at): try sim.downgrade(id, to: product, at: day(at))
            case .refund(let at): try sim.refund(id, at: day(at), reason: .appIssue)
            case .revokeFamilySharing(let at): try sim.revokeFamilySharing(id, at: day(at))
            case .announcePriceIncrease(let at): try sim.announcePriceIncrease(id, at: day(at))
            case .consentToPriceIncrease(let at): try sim.consentToPriceIncrease(id, at: day(at))
            case .removeFromSale(let product, let at): try sim.removeFromSale(product, at: day(at))
            case .redeem(let offer, let at): try sim.redeemOffer(id, offer, at: day(at))
            case .expect(let at, let expect):
                let instant = day(at)
                try sim.advance(to: instant)
                checked.append(instant)
                let snapshot = sim.snapshot(at: instant)
                let info = try #require(snapshot.subscription(originalTransactionId: id), "\(name) at \(at)")
                check(info, snapshot, expect, at)
            }
        }
        return (sim, checked)
    }

    private func check(_ info: SubscriptionInfo, _ snapshot: SubscriptionSnapshot, _ expect: Expect, _ at: String) {
        let context = Comment(rawValue: "\(name) at \(at)")
        #expect(info.state == expect.state, context)
        #expect(info.appleStatus == expect.state.appleStatus, context)
        #expect(snapshot.unlocked == (expect.state == .active || expect.state == .gracePeriod), context)
        #expect(snapshot.inGracePeriod == (expect.state == .gracePeriod), context)
        if let product = expect.product {
            #expect(info.productId == product, context)
            #expect(snapshot.isProductValid(product) == info.isEntitled, context)
        }
        if let purchased = expect.purchased { #expect(info.purchaseDate == day(purchased), context) }
        if let expires = expect.expires {
            #expect(info.expiresDate == day(expires), context)
            #expect(snapshot.currentExpiresDate == day(expires), context)
        }
        if let grace = expect.grace {
            #expect(info.gracePeriodExpiresDate == day(grace), context)
            #expect(snapshot.gracePeriodExpiresDate == day(grace), context)
        }
        if let intent = expect.intent { #expect(info.expirationIntent == intent, context) }
        if let offer = expect.offer { #expect(info.offerType == offer, context) }
        if let pending = expect.pending { #expect(info.pendingProductId == pending, context) }
    }
}

let scenarios: [Scenario] = [
    Scenario(
        name: "grace period, then recovery keeps the renewal date",
        steps: [
            .purchase(Fixture.basic, at: "03-01"),
            .billingProblem(at: "03-20"),
            .expect(at: "03-31", .init(.active, expires: "04-01")),
            .expect(at: "04-05", .init(.gracePeriod, expires: "04-01", grace: "04-17", intent: .billingError)),
            .fixBilling(at: "04-10"),
            .expect(at: "04-10", .init(.active, purchased: "04-01", expires: "05-01")),
            .expect(at: "05-02", .init(.active, purchased: "05-01", expires: "06-01")),
        ],
        names: [
            "SUBSCRIBED/INITIAL_BUY", "DID_FAIL_TO_RENEW/GRACE_PERIOD", "DID_RENEW/BILLING_RECOVERY", "DID_RENEW",
        ]),
    Scenario(
        name: "grace period, then billing retry, then expiry after 60 days",
        steps: [
            .purchase(Fixture.basic, at: "03-01"),
            .billingProblem(at: "03-10"),
            .expect(at: "04-16", .init(.gracePeriod, grace: "04-17")),
            .expect(at: "04-17", .init(.billingRetry, expires: "04-01", intent: .billingError)),
            .expect(at: "05-31T07:59", .init(.billingRetry)),
            .expect(at: "05-31", .init(.expired, expires: "04-01", intent: .billingError)),
            .expect(at: "07-01", .init(.expired, intent: .billingError)),
        ],
        names: [
            "SUBSCRIBED/INITIAL_BUY", "DID_FAIL_TO_RENEW/GRACE_PERIOD", "GRACE_PERIOD_EXPIRED",
            "EXPIRED/BILLING_RETRY",
        ]),
    Scenario(
        name: "no grace period: billing retry at once, recovery starts a new period",
        graceDays: 0,
        steps: [
            .purchase(Fixture.basic, at: "03-01"),
            .billingProblem(at: "03-02"),
            .expect(at: "04-02", .init(.billingRetry, expires: "04-01")),
            .fixBilling(at: "04-10"),
            .expect(at: "04-10", .init(.active, purchased: "04-10", expires: "05-10")),
        ],
        names: ["SUBSCRIBED/INITIAL_BUY", "DID_FAIL_TO_RENEW", "DID_RENEW/BILLING_RECOVERY"]),
    Scenario(
        name: "refund during the grace period revokes at once",
        steps: [
            .purchase(Fixture.basic, at: "03-01"),
            .billingProblem(at: "03-02"),
            .expect(at: "04-03", .init(.gracePeriod, grace: "04-17")),
            .refund(at: "04-05"),
            .expect(at: "04-05", .init(.revoked)),
            .expect(at: "06-01", .init(.revoked)),
        ],
        names: ["SUBSCRIBED/INITIAL_BUY", "DID_FAIL_TO_RENEW/GRACE_PERIOD", "REFUND"]),
    Scenario(
        name: "upgrade takes effect at once and ends the old product",
        steps: [
            .purchase(Fixture.basic, at: "03-01"),
            .upgrade(Fixture.premium, at: "03-15"),
            .expect(at: "03-15", .init(.active, product: Fixture.premium, purchased: "03-15", expires: "04-15")),
            .expect(at: "04-16", .init(.active, product: Fixture.premium, purchased: "04-15", expires: "05-15")),
        ],
        names: ["SUBSCRIBED/INITIAL_BUY", "DID_CHANGE_RENEWAL_PREF/UPGRADE", "DID_RENEW"]),
    Scenario(
        name: "downgrade waits for the next renewal",
        steps: [
            .purchase(Fixture.premium, at: "03-01"),
            .downgrade(Fixture.basic, at: "03-10"),
            .expect(at: "03-20", .init(.active, product: Fixture.premium, expires: "04-01", pending: .some(Fixture.basic))),
            .expect(at: "04-02", .init(.active, product: Fixture.basic, purchased: "04-01", expires: "05-01", pending: .some(nil))),
        ],
        names: ["SUBSCRIBED/INITIAL_BUY", "DID_CHANGE_RENEWAL_PREF/DOWNGRADE", "DID_RENEW"]),
    Scenario(
        name: "a cancelled downgrade keeps the plan",
        steps: [
            .purchase(Fixture.premium, at: "03-01"),
            .downgrade(Fixture.basic, at: "03-10"),
            .downgrade(Fixture.premium, at: "03-12"),
            .expect(at: "04-02", .init(.active, product: Fixture.premium, expires: "05-01", pending: .some(nil))),
        ],
        names: [
            "SUBSCRIBED/INITIAL_BUY", "DID_CHANGE_RENEWAL_PREF/DOWNGRADE", "DID_CHANGE_RENEWAL_PREF", "DID_RENEW",
        ]),
    Scenario(
        name: "a free trial converts to paid",
        steps: [
            .purchase(Fixture.basic, at: "03-01", offer: .freeTrial(.week)),
            .expect(at: "03-05", .init(.active, expires: "03-08", offer: .some(.introductory))),
            .expect(at: "03-09", .init(.active, purchased: "03-08", expires: "04-08", offer: .some(nil))),
        ],
        names: ["SUBSCRIBED/INITIAL_BUY", "DID_RENEW"]),
    Scenario(
        name: "pay as you go for two months, then the regular price",
        steps: [
            .purchase(Fixture.basic, at: "03-01", offer: .payAsYouGo(.month, periods: 2, priceCents: 600)),
            .expect(at: "04-02", .init(.active, expires: "05-01", offer: .some(.introductory))),
            .expect(at: "05-02", .init(.active, expires: "06-01", offer: .some(nil))),
        ]),
    Scenario(
        name: "pay up front covers three months in one transaction",
        steps: [
            .purchase(Fixture.basic, at: "03-01", offer: .payUpFront(CalendarPeriod(3, .month), priceCents: 6800)),
            .expect(at: "05-31", .init(.active, purchased: "03-01", expires: "06-01", offer: .some(.introductory))),
            .expect(at: "06-02", .init(.active, purchased: "06-01", expires: "07-01", offer: .some(nil))),
        ]),
    Scenario(
        name: "turning auto-renew off expires at the period end; resubscribing keeps the chain",
        steps: [
            .purchase(Fixture.basic, at: "03-01"),
            .autoRenew(false, at: "03-10"),
            .expect(at: "03-31", .init(.active)),
            .expect(at: "04-01", .init(.expired, expires: "04-01", intent: .cancelled)),
            .purchase(Fixture.yearly, at: "04-10"),
            .expect(at: "04-10", .init(.active, product: Fixture.yearly, expires: "2027-04-10T08:00:00Z")),
        ],
        names: [
            "SUBSCRIBED/INITIAL_BUY", "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED", "EXPIRED/VOLUNTARY",
            "SUBSCRIBED/RESUBSCRIBE",
        ]),
    Scenario(
        name: "auto-renew turned back on keeps renewing",
        steps: [
            .purchase(Fixture.basic, at: "03-01"),
            .autoRenew(false, at: "03-10"),
            .autoRenew(true, at: "03-20"),
            .expect(at: "04-02", .init(.active, expires: "05-01")),
        ],
        names: [
            "SUBSCRIBED/INITIAL_BUY", "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED",
            "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_ENABLED", "DID_RENEW",
        ]),
    Scenario(
        name: "a declined price increase expires at renewal",
        steps: [
            .purchase(Fixture.basic, at: "03-01"),
            .announcePriceIncrease(at: "03-05"),
            .expect(at: "04-01", .init(.expired, intent: .declinedPriceIncrease)),
        ],
        names: ["SUBSCRIBED/INITIAL_BUY", "PRICE_INCREASE/PENDING", "EXPIRED/PRICE_INCREASE"]),
    Scenario(
        name: "an accepted price increase keeps renewing",
        steps: [
            .purchase(Fixture.basic, at: "03-01"),
            .announcePriceIncrease(at: "03-05"),
            .consentToPriceIncrease(at: "03-06"),
            .expect(at: "04-01", .init(.active, expires: "05-01")),
        ]),
    Scenario(
        name: "a product taken off sale expires at renewal",
        steps: [
            .purchase(Fixture.basic, at: "03-01"),
            .removeFromSale(Fixture.basic, at: "03-15"),
            .expect(at: "03-31", .init(.active)),
            .expect(at: "04-01", .init(.expired, intent: .productUnavailable)),
        ],
        names: ["SUBSCRIBED/INITIAL_BUY", "EXPIRED/PRODUCT_NOT_FOR_SALE"]),
    Scenario(
        name: "family sharing revoked removes access",
        steps: [
            .purchase(Fixture.basic, at: "03-01"),
            .revokeFamilySharing(at: "03-09"),
            .expect(at: "03-09", .init(.revoked)),
        ],
        names: ["SUBSCRIBED/INITIAL_BUY", "REVOKE"]),
    Scenario(
        name: "a weekly subscription's 16-day grace period is capped at 6 days",
        steps: [
            .purchase(Fixture.weekly, at: "03-01"),
            .billingProblem(at: "03-02"),
            .expect(at: "03-10", .init(.gracePeriod, expires: "03-08", grace: "03-14")),
            .expect(at: "03-14", .init(.billingRetry)),
        ]),
    Scenario(
        name: "an offer code redeemed on a live subscription prices the next renewal",
        steps: [
            .purchase(Fixture.basic, at: "03-01"),
            .redeem(.payAsYouGo(.month, periods: 1, priceCents: 1500, type: .offerCode, id: "SPRING"), at: "03-10"),
            .expect(at: "03-20", .init(.active, offer: .some(nil))),
            .expect(at: "04-02", .init(.active, expires: "05-01", offer: .some(.offerCode))),
            .expect(at: "05-02", .init(.active, expires: "06-01", offer: .some(nil))),
        ],
        names: ["SUBSCRIBED/INITIAL_BUY", "OFFER_REDEEMED", "DID_RENEW", "DID_RENEW"]),
    Scenario(
        name: "a lapsed customer comes back on a promotional offer, then pays the full price",
        steps: [
            .purchase(Fixture.basic, at: "01-01"),
            .autoRenew(false, at: "01-10"),
            .expect(at: "02-05", .init(.expired, expires: "02-01", intent: .cancelled)),
            .purchase(
                Fixture.basic, at: "02-10",
                offer: .payAsYouGo(.month, periods: 2, priceCents: 1000, type: .promotional, id: "WINBACK")),
            .expect(at: "02-20", .init(.active, purchased: "02-10", expires: "03-10", offer: .some(.promotional))),
            .expect(at: "03-20", .init(.active, expires: "04-10", offer: .some(.promotional))),
            .expect(at: "04-20", .init(.active, expires: "05-10", offer: .some(nil))),
        ]),
    Scenario(
        name: "renewals keep the anchor day across short months",
        steps: [
            .purchase(Fixture.basic, at: "01-31"),
            .expect(at: "02-28T09:00", .init(.active, purchased: "02-28", expires: "03-31")),
            .expect(at: "04-01", .init(.active, purchased: "03-31", expires: "04-30")),
        ]),
]

@Suite("Subscription simulation")
struct SubscriptionSimulationTests {
    @Test(arguments: scenarios)
    func scenario(_ scenario: Scenario) throws {
        let (sim, _) = try scenario.run()
        if let names = scenario.names {
            #expect(sim.timeline.entries.map(\.name) == names)
        }
        #expect(sim.timeline.events.allSatisfy { $0.provenance == .simulated })
    }

    @Test(arguments: scenarios)
    func shuffledAndRepeatedNotificationsGiveTheSameStates(_ scenario: Scenario) throws {
        let (sim, instants) = try scenario.run()
        var rng = SeededGenerator(seed: 99)
        let events = sim.timeline.events
        let arrivals = (events + events.prefix(3) + events.suffix(2)).shuffled(using: &rng)
        let replayed = SubscriptionTimeline(events: arrivals)
        #expect(replayed.events == events)
        #expect(replayed.duplicatesSkipped == min(3, events.count) + min(2, events.count))
        for instant in instants {
            #expect(replayed.snapshot(at: instant) == sim.snapshot(at: instant), "\(scenario.name) at \(instant)")
        }
    }

    @Test(arguments: scenarios)
    func exportedJSONLinesReadBackToTheSameStates(_ scenario: Scenario) throws {
        let (sim, instants) = try scenario.run()
        let text = try sim.timeline.events.map { try $0.jsonLine() }.joined(separator: "\n")
        let read = SubscriptionEvent.decodeJSONLines(text)
        #expect(read.failures.isEmpty)
        let timeline = SubscriptionTimeline(events: read.events)
        for instant in instants {
            #expect(timeline.snapshot(at: instant) == sim.snapshot(at: instant), "\(scenario.name) at \(instant)")
        }
    }

    @Test func originalPurchaseDateSurvivesResubscription() throws {
        var sim = Fixture.simulation()
        let id = try sim.purchase(Fixture.basic, at: day("03-01"))
        try sim.setAutoRenew(id, false, at: day("03-02"))
        let again = try sim.purchase(Fixture.basic, at: day("05-01"))
        #expect(again == id)
        let snapshot = sim.snapshot(at: day("05-02"))
        #expect(snapshot.originalTransactionDate == day("03-01"))
        #expect(snapshot.latest?.purchaseDate == day("05-01"))
        #expect(snapshot.all.count == 1)
    }

    @Test func refusedActionsSayWhy() throws {
        var sim = Fixture.simulation()
        #expect(throws: SubscriptionSimulationError.unknownProduct("nope")) {
            try sim.purchase("nope", at: day("03-01"))
        }
        #expect(throws: SubscriptionSimulationError.notAutoRenewable(Fixture.gems)) {
            try sim.purchase(Fixture.gems, at: day("03-01"))
        }
        let id = try sim.purchase(Fixture.basic, at: day("03-01"))
        #expect(throws: SubscriptionSimulationError.alreadySubscribed(group: Fixture.group, originalTransactionId: id)) {
            try sim.purchase(Fixture.premium, at: day("03-02"))
        }
        // A refused action still moved the clock: what was due by 03-02 happened anyway.
        #expect(sim.now == day("03-02"))
        #expect(throws: SubscriptionSimulationError.timeWentBackwards(now: day("03-02"), requested: day("02-01"))) {
            try sim.advance(to: day("02-01"))
        }
        try sim.setAutoRenew(id, false, at: day("03-03"))
        #expect(throws: SubscriptionSimulationError.notEligibleForIntroductoryOffer(group: Fixture.group)) {
            try sim.purchase(Fixture.basic, at: day("05-01"), offer: .freeTrial(.week))
        }
        #expect(throws: SubscriptionSimulationError.notActive(originalTransactionId: id, state: .expired)) {
            try sim.upgrade(id, to: Fixture.premium, at: day("05-02"))
        }
        #expect(throws: SubscriptionSimulationError.unknownSubscription("42")) {
            try sim.refund("42", at: day("05-03"))
        }
    }

    @Test func upgradeStaysInItsGroup() throws {
        let other = Product(
            id: "garden.plus", appId: "1002", name: "Garden Plus", type: .autoRenewable, priceCents: 1800,
            currency: "CNY", subscriptionGroup: "garden", period: .oneMonth)
        var sim = SubscriptionSimulation(
            app: Fixture.app(), products: Fixture.products + [other], start: day("03-01"))
        let id = try sim.purchase(Fixture.basic, at: day("03-01"))
        #expect(throws: SubscriptionSimulationError.differentGroup(productId: "garden.plus", group: Fixture.group)) {
            try sim.upgrade(id, to: "garden.plus", at: day("03-02"))
        }
        // A second group is a second, independent chain.
        let garden = try sim.purchase("garden.plus", at: day("03-03"))
        let snapshot = sim.snapshot(at: day("03-04"))
        #expect(snapshot.all.map(\.originalTransactionId) == [id, garden])
        #expect(snapshot.statusByGroup == [Fixture.group: .active, "garden": .active])
        #expect(snapshot.group("garden").latest?.productId == "garden.plus")
    }

    @Test func theSameScriptGivesTheSameIds() throws {
        func script() throws -> [SubscriptionEvent] {
            var sim = Fixture.simulation(seed: 3)
            let id = try sim.purchase(Fixture.basic, at: day("03-01"))
            try sim.advance(to: day("06-01"))
            try sim.refund(id, at: day("06-02"))
            return sim.timeline.events
        }
        let first = try script()
        #expect(try script() == first)
        #expect(Set(first.map(\.notificationUUID)).count == first.count)
        #expect(first.first?.transaction?.transactionId == "2000000000000001")
        #expect(first.map { $0.transaction?.originalTransactionId } == Array(repeating: "2000000000000001", count: first.count))
    }

    @Test func persistsAsTheStoresSubscriptionRow() throws {
        var sim = Fixture.simulation()
        let id = try sim.purchase(Fixture.basic, at: day("03-01"), offer: .freeTrial(.week))
        try sim.startBillingProblem(id, at: day("03-02"))
        try sim.advance(to: day("03-10"))
        let info = try #require(sim.subscription(id))
        let row = info.subscription(userId: "10000001", appId: "1001")
        #expect(row.id == id)
        #expect(row.state == .gracePeriod)
        #expect(row.isEntitled)
        #expect(row.groupId == Fixture.group)
        #expect(row.gracePeriodExpiresDate == day("03-24"))
        #expect(row.expirationIntent == "billing_error")
        #expect(row.offerType == "introductory")
        try sim.refund(id, at: day("03-11"))
        let revoked = try #require(sim.subscription(id)).subscription(userId: "10000001", appId: "1001")
        #expect(revoked.state == .revoked)
        #expect(revoked.revocationReason == "refund")
        #expect(revoked.revocationDate == day("03-11"))
        #expect(revoked.autoRenew == false)
        #expect(revoked.expirationIntent == nil)
    }
}
