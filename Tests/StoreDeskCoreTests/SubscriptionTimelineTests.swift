import Testing

@testable import StoreDeskCore

/// Builds a notification the way Apple would send it, with short dates (see `day`).
func notification(
    _ type: NotificationType, _ subtype: NotificationSubtype? = nil, uuid: String, signed: String,
    transaction: String = "t1", original: String = "o1", product: String = Fixture.basic, group: String = Fixture.group,
    purchased: String, expires: String? = nil, revoked: String? = nil, renewal: RenewalInfo? = nil
) -> SubscriptionEvent {
    SubscriptionEvent(
        notificationType: type, subtype: subtype, notificationUUID: uuid, signedDate: day(signed),
        bundleId: "com.storedesk.starvoyage", environment: "Sandbox",
        transaction: TransactionInfo(
            transactionId: transaction, originalTransactionId: original, productId: product,
            subscriptionGroupIdentifier: group, purchaseDate: day(purchased), originalPurchaseDate: day("03-01"),
            expiresDate: expires.map(day), revocationDate: revoked.map(day), revocationReason: revoked == nil ? nil : .other),
        renewal: renewal)
}

/// A sequence of notifications and the state expected at given instants, whatever the arrival order.
struct EventSequence: Sendable, CustomTestStringConvertible {
    var name: String
    var events: [SubscriptionEvent]
    var expectations: [(at: String, state: SubscriptionState?, expires: String?)]
    var testDescription: String { name }
}

let subscribed = notification(.subscribed, .initialBuy, uuid: "u1", signed: "03-01", purchased: "03-01", expires: "04-01")

let eventSequences: [EventSequence] = [
    EventSequence(
        name: "renewals, then auto-renew off, then expiry with no EXPIRED notification",
        events: [
            subscribed,
            notification(.didRenew, uuid: "u2", signed: "04-01", transaction: "t2", purchased: "04-01", expires: "05-01"),
            notification(
                .didChangeRenewalStatus, .autoRenewDisabled, uuid: "u3", signed: "04-20", transaction: "t2",
                purchased: "04-01", expires: "05-01", renewal: RenewalInfo(autoRenewStatus: 0)),
        ],
        expectations: [
            ("02-01", nil, nil), ("03-15", .active, "04-01"), ("04-15", .active, "05-01"), ("05-01", .expired, "05-01"),
        ]),
    EventSequence(
        name: "grace period learnt from renewal info alone (an import without DID_FAIL_TO_RENEW)",
        events: [
            subscribed,
            notification(
                .didChangeRenewalStatus, .autoRenewEnabled, uuid: "u2", signed: "04-02", purchased: "03-01",
                expires: "04-01",
                renewal: RenewalInfo(
                    autoRenewStatus: 1, isInBillingRetryPeriod: true, gracePeriodExpiresDate: day("04-17"))),
        ],
        expectations: [("04-03", .gracePeriod, "04-01"), ("04-18", .billingRetry, "04-01"), ("05-31", .expired, nil)]),
    EventSequence(
        name: "grace, GRACE_PERIOD_EXPIRED, then recovery in billing retry",
        events: [
            subscribed,
            notification(
                .didFailToRenew, .gracePeriod, uuid: "u2", signed: "04-01", purchased: "03-01", expires: "04-01",
                renewal: RenewalInfo(isInBillingRetryPeriod: true, gracePeriodExpiresDate: day("04-04"))),
            notification(.gracePeriodExpired, uuid: "u3", signed: "04-04", purchased: "03-01", expires: "04-01"),
            notification(
                .didRenew, .billingRecovery, uuid: "u4", signed: "04-09", transaction: "t2", purchased: "04-09",
                expires: "05-09"),
        ],
        expectations: [
            ("04-02", .gracePeriod, "04-01"), ("04-05", .billingRetry, "04-01"), ("04-09", .active, "05-09"),
        ]),
    EventSequence(
        name: "a late refund of an old period leaves the current one alone",
        events: [
            subscribed,
            notification(.didRenew, uuid: "u2", signed: "04-01", transaction: "t2", purchased: "04-01", expires: "05-01"),
            notification(
                .refund, uuid: "u3", signed: "04-10", transaction: "t1", purchased: "03-01", expires: "04-01",
                revoked: "04-10"),
        ],
        expectations: [("04-11", .active, "05-01")]),
    EventSequence(
        name: "refund, then refund reversed",
        events: [
            subscribed,
            notification(.refund, uuid: "u2", signed: "03-10", purchased: "03-01", expires: "04-01", revoked: "03-10"),
            notification(.refundReversed, uuid: "u3", signed: "03-20", purchased: "03-01", expires: "04-01"),
        ],
        expectations: [("03-15", .revoked, nil), ("03-21", .active, "04-01")]),
    EventSequence(
        name: "renewal date extended",
        events: [
            subscribed,
            notification(.renewalExtended, uuid: "u2", signed: "03-20", purchased: "03-01", expires: "04-15"),
        ],
        expectations: [("04-10", .active, "04-15"), ("04-16", .expired, "04-15")]),
    EventSequence(
        name: "an unknown notification type changes nothing",
        events: [
            subscribed,
            notification(NotificationType(rawValue: "METADATA_UPDATE"), uuid: "u2", signed: "03-05", purchased: "03-01"),
            notification(.test, uuid: "u3", signed: "03-06", purchased: "03-01"),
        ],
        expectations: [("03-10", .active, "04-01")]),
    EventSequence(
        name: "an upgrade inside an offer redemption",
        events: [
            subscribed,
            notification(
                .offerRedeemed, .upgrade, uuid: "u2", signed: "03-10", transaction: "t2", product: Fixture.premium,
                purchased: "03-10", expires: "04-10"),
        ],
        expectations: [("03-11", .active, "04-10")]),
]

@Suite("Subscription timeline")
struct SubscriptionTimelineTests {
    @Test(arguments: eventSequences)
    func stateAtEachInstantIgnoresArrivalOrder(_ sequence: EventSequence) {
        var rng = SeededGenerator(seed: 5)
        let orders = [sequence.events, sequence.events.reversed(), sequence.events.shuffled(using: &rng)]
        for arrival in orders {
            let timeline = SubscriptionTimeline(events: arrival + arrival.prefix(1))
            #expect(timeline.duplicatesSkipped == 1)
            for expectation in sequence.expectations {
                let snapshot = timeline.snapshot(at: day(expectation.at))
                let info = snapshot.subscription(originalTransactionId: "o1")
                let context = Comment(rawValue: "\(sequence.name) at \(expectation.at)")
                #expect(info?.state == expectation.state, context)
                if let expires = expectation.expires { #expect(info?.expiresDate == day(expires), context) }
            }
        }
    }

    @Test func ordersBySignedDateThenPurchaseDateNotArrival() {
        let failed = notification(
            .didFailToRenew, uuid: "zz-fail", signed: "04-01", purchased: "03-01", expires: "04-01",
            renewal: RenewalInfo(isInBillingRetryPeriod: true))
        let recovered = notification(
            .didRenew, .billingRecovery, uuid: "aa-recover", signed: "04-01", transaction: "t2", purchased: "04-01",
            expires: "05-01")
        let timeline = SubscriptionTimeline(events: [recovered, failed, subscribed])
        #expect(timeline.events.map(\.notificationUUID) == ["u1", "zz-fail", "aa-recover"])
        #expect(timeline.snapshot(at: day("04-02")).latest?.state == .active)
    }

    @Test func repeatedNotificationIsSkipped() {
        var timeline = SubscriptionTimeline()
        let first = timeline.record(subscribed)
        let again = timeline.record(subscribed)
        #expect(first)
        #expect(!again)
        #expect(timeline.events.count == 1)
        #expect(timeline.duplicatesSkipped == 1)
    }

    @Test func humanTimelineNamesEachEventAsAppleDoes() throws {
        var sim = Fixture.simulation()
        let id = try sim.purchase(Fixture.basic, at: day("03-01"))
        try sim.startBillingProblem(id, at: day("03-02"))
        try sim.advance(to: day("04-02"))
        try sim.setAutoRenew(id, false, at: day("04-03"))
        try sim.advance(to: day("07-01"))
        let entries = sim.timeline.entries(for: id)
        #expect(
            entries.map(\.name) == [
                "SUBSCRIBED/INITIAL_BUY", "DID_FAIL_TO_RENEW/GRACE_PERIOD",
                "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED", "GRACE_PERIOD_EXPIRED", "EXPIRED/BILLING_RETRY",
            ])
        #expect(entries.map(\.date) == [day("03-01"), day("04-01"), day("04-03"), day("04-17"), day("05-31")])
        #expect(entries[0].summary == "subscribed to vip.monthly until 2026-04-01T08:00:00Z")
        #expect(entries[1].summary.contains("grace period until 2026-04-17T08:00:00Z"))
        #expect(entries[4].summary == "expired: billing error")
        #expect(sim.timeline.originalTransactionIds == [id])
    }

    @Test func snapshotAnswersForSeveralSubscriptions() {
        let shared = notification(
            .subscribed, .initialBuy, uuid: "f1", signed: "03-02", transaction: "f1", original: "family",
            product: Fixture.yearly, purchased: "03-02", expires: "2027-03-02T08:00:00Z")
        let revoked = notification(
            .revoke, uuid: "f2", signed: "03-05", transaction: "f1", original: "family", product: Fixture.yearly,
            purchased: "03-02", expires: "2027-03-02T08:00:00Z", revoked: "03-05")
        let timeline = SubscriptionTimeline(events: [subscribed, shared, revoked])
        let before = timeline.snapshot(at: day("03-03"))
        #expect(before.valid.count == 2)
        #expect(before.latest?.originalTransactionId == "family")
        #expect(before.currentExpiresDate == day("2027-03-02T08:00:00Z"))
        #expect(before.isProductValid(Fixture.yearly))
        let after = timeline.snapshot(at: day("03-06"))
        #expect(after.all.count == 2)
        #expect(after.valid.map(\.originalTransactionId) == ["o1"])
        #expect(after.subscription(originalTransactionId: "family")?.revocation == .familySharing)
        #expect(!after.isProductValid(Fixture.yearly))
        #expect(after.appleStatus(group: Fixture.group) == 1)
        #expect(after.originalTransactionDate == day("03-01"))
        let later = timeline.snapshot(at: day("04-02"))
        #expect(!later.unlocked)
        #expect(later.statusByGroup == [Fixture.group: .expired])
        #expect(later.appleStatus(group: "none") == nil)
    }
}
