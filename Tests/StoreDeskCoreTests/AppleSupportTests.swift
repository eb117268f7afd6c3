import Foundation
import Testing

@testable import StoreDeskCore

/// The support desk's Apple decisions: refunds and their reversal folded by the subscription engine,
/// what may not be refunded, consumption information checked as Apple checks it, the 12-hour deadline,
/// the mass extension's request, the app transaction, and the API's token bucket.
struct AppleSupportTests {
    static let app = Fixture.app()

    @Test func aSubscriptionsRefundRevokesItAndItsReversalRestoresItInTheEngine() throws {
        var simulation = Fixture.simulation()
        let id = try simulation.purchase(Fixture.basic, at: day("03-01"))
        try simulation.advance(to: day("03-10"))
        let events = simulation.timeline.events
        let latest = try #require(AppleSupport.latest(of: events))
        #expect(latest.transaction.originalTransactionId == id)
        let refund = AppleSupport.refund(
            latest: latest.transaction, renewal: latest.renewal, appIssue: true, app: Self.app, uuid: "R1", at: day("03-10"))
        #expect(refund.notificationType == .refund && refund.transaction?.revocationReason == .appIssue)
        #expect(refund.transaction?.revocationDate == day("03-10") && refund.renewal?.autoRenewStatus == 0)
        let refunded = SubscriptionTimeline(events: events + [refund])
        #expect(refunded.snapshot(at: day("03-11")).all.first?.state == .revoked)
        let reversed = AppleSupport.refundReversed(
            latest: refund.transaction!, renewal: refund.renewal, app: Self.app, uuid: "R2", at: day("03-12"))
        #expect(reversed.notificationType == .refundReversed && reversed.transaction?.revocationDate == nil)
        let restored = SubscriptionTimeline(events: events + [refund, reversed])
        #expect(restored.snapshot(at: day("03-13")).all.first?.state == .active)
    }

    @Test func aRenewalExtendedNotificationMovesTheExpiryInTheEngine() throws {
        var simulation = Fixture.simulation()
        let id = try simulation.purchase(Fixture.basic, at: day("03-01"))
        try simulation.advance(to: day("03-10"))
        let latest = try #require(AppleSupport.latest(of: simulation.timeline.events))
        let expires = try #require(latest.transaction.expiresDate)
        let done = RenewalExtension(
            originalTransactionId: id, requestIdentifier: "x", extendByDays: 10, extendReasonCode: 1, extendedAt: day("03-10"),
            previousExpiresDate: expires, effectiveDate: expires.adding(.days(10)))
        let event = AppleSupport.renewalExtended(
            latest: latest.transaction, renewal: latest.renewal, done, app: Self.app, uuid: "E1", at: day("03-10"))
        #expect(event.notificationType == .renewalExtended && event.renewal?.renewalDate == done.effectiveDate)
        let timeline = SubscriptionTimeline(events: simulation.timeline.events + [event])
        #expect(timeline.snapshot(at: day("03-11")).currentExpiresDate == done.effectiveDate)
    }

    @Test func aChainsNextNotificationIsSignedAfterItsLatest() throws {
        var simulation = Fixture.simulation()
        _ = try simulation.purchase(Fixture.basic, at: day("03-01"))
        let events = simulation.timeline.events
        #expect(AppleSupport.signingInstant(day("03-05"), after: events) == day("03-05"))
        #expect(AppleSupport.signingInstant(day("03-01"), after: events) == Instant(millis: day("03-01").millis + 1))
        #expect(AppleSupport.signingInstant(day("02-01"), after: []) == day("02-01"))
    }

    @Test func oneTimePurchasesAreRefundedOnceAndOnlyARefundIsReversed() {
        let gems = Fixture.products.first { $0.id == Fixture.gems }!
        let bought = StoreTransaction(
            id: "T1", originalTransactionId: "T1", userId: "u1", appId: "1001", productId: gems.id, state: .purchased, sid: "s1",
            purchaseDate: day("03-01"), finished: true)
        #expect(AppleSupport.refundRefusal(bought, product: gems) == nil)
        #expect(AppleSupport.reversalRefusal(bought) == "transaction T1 is not refunded: no refund to reverse")
        var refunded = bought
        refunded.revocationDate = day("03-02")
        refunded.revocationReason = RevocationKind.refund.rawValue
        #expect(AppleSupport.refundRefusal(refunded, product: gems) == "transaction T1 is already refunded (reverse it with support unrefund)")
        #expect(AppleSupport.reversalRefusal(refunded) == nil)
        var shared = refunded
        shared.revocationReason = RevocationKind.familySharing.rawValue
        #expect(AppleSupport.reversalRefusal(shared) != nil)
        var failed = bought
        failed.state = .failed
        #expect(AppleSupport.refundRefusal(failed, product: gems) == "transaction T1 is failed: only a purchase can be refunded")
        let info = AppleSupport.transactionInfo(refunded, product: gems, app: Self.app, originalPurchaseDate: nil)
        #expect(info.type == "Consumable" && info.price == 6000 && info.currency == "CNY" && info.revocationDate == day("03-02"))
        #expect(info.expiresDate == nil && info.webOrderLineItemId == nil && info.subscriptionGroupIdentifier == nil)
    }

    @Test func reasonsAreOneLineOfAtMost200Characters() {
        #expect(AppleSupport.reasonProblem("charged twice") == nil)
        #expect(AppleSupport.reasonProblem("   ") == "a reason is needed: the audit log keeps why")
        #expect(AppleSupport.reasonProblem(String(repeating: "x", count: 201))?.contains("at most 200") == true)
        #expect(AppleSupport.reasonProblem("two\nlines")?.contains("control character") == true)
    }

    @Test func consumptionRequestsAreForConsumablesOneOpenAtATimeWithTwelveHours() throws {
        let gems = Fixture.products.first { $0.id == Fixture.gems }!
        let monthly = Fixture.products.first { $0.id == Fixture.basic }!
        let bought = StoreTransaction(
            id: "T1", originalTransactionId: "T1", userId: "u1", appId: "1001", productId: gems.id, state: .purchased, sid: "s1",
            purchaseDate: day("03-01"), finished: true)
        let at = day("03-02")
        #expect(AppleSupport.consumptionRefusal(bought, product: gems, earlier: nil, at: at) == nil)
        #expect(AppleSupport.consumptionRefusal(bought, product: monthly, earlier: nil, at: at)?.contains("not a consumable") == true)
        var request = ConsumptionRequestRecord(
            transactionId: "T1", appId: "1001", userId: "u1", reason: "UNINTENDED_PURCHASE", requestedAt: at, requestedBy: "li.na")
        #expect(request.deadline == at.adding(.hours(12)))
        #expect(request.standing(at: at.adding(.hours(1))) == .open(remaining: .hours(11)))
        #expect(request.describe(at: at.adding(.hours(1))) == "open, 11h 0m left")
        #expect(AppleSupport.consumptionRefusal(bought, product: gems, earlier: request, at: at.adding(.hours(1)))?.contains("open until") == true)
        #expect(request.standing(at: at.adding(.hours(12))) == .missed)
        #expect(request.describe(at: at.adding(.hours(13))).hasPrefix("missed (deadline "))
        #expect(AppleSupport.consumptionRefusal(bought, product: gems, earlier: request, at: at.adding(.hours(13))) == nil)
        #expect(AppleSupport.answerRefusal(nil, transactionId: "T1") == "transaction T1 has no consumption request")
        #expect(AppleSupport.answerRefusal(request, transactionId: "T1") == nil)
        request.answeredAt = at.adding(.hours(13))
        request.answer = "{}"
        #expect(request.standing(at: at.adding(.hours(14))) == .answered(late: true))
        #expect(AppleSupport.answerRefusal(request, transactionId: "T1") == "the consumption request of T1 is answered already")
    }

    static let goodConsumption = """
        {"customerConsented":true,"consumptionStatus":2,"platform":1,"sampleContentProvided":false,"deliveryStatus":0,
        "appAccountToken":"7e3fb20b-4cdb-47cc-936d-99d65f608138","accountTenure":3,"playTime":4,"lifetimeDollarsRefunded":0,
        "lifetimeDollarsPurchased":5,"userStatus":1,"refundPreference":2}
        """

    @Test func consumptionInformationIsCheckedFieldByFieldWithApplesCodes() throws {
        let info = try ConsumptionInformation(json: Array(Self.goodConsumption.utf8))
        #expect(info.consumptionStatus == 2 && info.platform == 1 && info.refundPreference == 2 && info.appAccountToken.hasPrefix("7e3f"))
        #expect(info.json.hasPrefix(#"{"accountTenure":3,"appAccountToken":"7e3fb20b"#))
        func with(_ field: String, _ value: Any?) -> [UInt8] {
            var object = try! JSONSerialization.jsonObject(with: Data(Self.goodConsumption.utf8)) as! [String: Any]
            object[field] = value
            return Array(try! JSONSerialization.data(withJSONObject: object))
        }
        for (field, value, error) in [
            ("customerConsented", false, AppStoreAPIError.invalidCustomerConsented), ("customerConsented", nil, .invalidCustomerConsented),
            ("consumptionStatus", 4, .invalidConsumptionStatus), ("platform", 3, .invalidPlatform),
            ("sampleContentProvided", 1, .invalidSampleContentProvided), ("deliveryStatus", 6, .invalidDeliveryStatus),
            ("appAccountToken", "not-a-uuid", .invalidAppAccountToken), ("accountTenure", 8, .invalidAccountTenure),
            ("playTime", -1, .invalidPlayTime), ("lifetimeDollarsRefunded", 8, .invalidLifetimeDollarsRefunded),
            ("lifetimeDollarsPurchased", "5", .invalidLifetimeDollarsPurchased), ("userStatus", 5, .invalidUserStatus),
            ("refundPreference", 4, .generalBadRequest),
        ] as [(String, Any?, AppStoreAPIError)] {
            #expect(throws: error, "\(field)") { try ConsumptionInformation(json: with(field, value)) }
        }
        #expect(throws: AppStoreAPIError.generalBadRequest) { try ConsumptionInformation(json: Array("[]".utf8)) }
        #expect(try ConsumptionInformation(json: with("appAccountToken", "")).appAccountToken == "")
        #expect(AppStoreAPIError.invalidCustomerConsented.errorCode == 4_000_035)
    }

    @Test func massExtensionRequestsAreCheckedAsAppleChecksThem() throws {
        let ok = try MassRenewalExtensionRequest(
            json: Array(#"{"requestIdentifier":"m1","extendByDays":7,"extendReasonCode":3,"productId":"vip.monthly","storefrontCountryCodes":["USA"]}"#.utf8))
        #expect(ok.productId == "vip.monthly" && ok.single.extendByDays == 7 && ok.single.requestIdentifier == "m1")
        for (json, error) in [
            (#"{"requestIdentifier":"m1","extendByDays":7,"extendReasonCode":3}"#, AppStoreAPIError.invalidProductId),
            (#"{"requestIdentifier":"m1","extendByDays":91,"extendReasonCode":3,"productId":"p"}"#, .invalidExtendByDays),
            (#"{"requestIdentifier":"m1","extendByDays":1,"extendReasonCode":3,"productId":"p","storefrontCountryCodes":"USA"}"#, .generalBadRequest),
        ] {
            #expect(throws: error) { try MassRenewalExtensionRequest(json: Array(json.utf8)) }
        }
    }

    @Test func theAppTransactionNamesTheAppAndTheCustomersFirstPurchase() throws {
        let gems = Fixture.products.first { $0.id == Fixture.gems }!
        let first = StoreTransaction(
            id: "2000000000000007", originalTransactionId: "2000000000000007", userId: "u1", appId: "1001", productId: gems.id,
            state: .purchased, environment: .sandbox, sid: "s1", purchaseDate: day("03-01"), finished: true)
        var later = first
        later.id = "2000000000000009"
        later.originalTransactionId = later.id
        later.purchaseDate = day("03-05")
        var app = Self.app
        app.appleAppId = 1234
        let customer = AppStoreCustomer(
            app: app, askedTransactionId: later.id, environment: .sandbox,
            purchases: [later, first].map { AppStorePurchase(transaction: $0, product: gems, appAccountToken: nil) }, subscriptions: [])
        let payload = AppTransactionDecodedPayload.of(customer, at: day("03-09"))
        #expect(payload.receiptType == "Sandbox" && payload.bundleId == app.bundleId && payload.appAppleId == 1234)
        #expect(payload.originalPurchaseDate == day("03-01") && payload.appTransactionId == "7" + AppleOrderId.of(transactionId: first.id))
        let json = String(decoding: try JSONEncoder().encode(payload), as: UTF8.self)
        #expect(json.contains("\"receiptCreationDate\":\(day("03-09").millis)"))
    }

    @Test func theTokenBucketRefusesPastItsBurstAndRefillsWithTime() {
        let start = Instant(millis: 1_000_000)
        var bucket = TokenBucket(capacity: 3, perSecond: 2, at: start)
        var taken: [Bool] = []
        for millis in [0, 0, 0, 0, 400, 500, 500] as [Int64] { taken.append(bucket.take(at: Instant(millis: start.millis + millis))) }
        #expect(taken == [true, true, true, false, false, true, false])
        // A long pause fills it up to its capacity, no further.
        taken = (0..<4).map { _ in bucket.take(at: Instant(millis: start.millis + 60_000)) }
        #expect(taken == [true, true, true, false])
        #expect(AppStoreAPIError.rateLimitExceeded.status == 429 && AppStoreAPIError.rateLimitExceeded.errorCode == 4_290_000)
    }

    @Test func supportActionsNeedTheSupportOrDeveloperRole() {
        #expect(StaffRole.support.may(.actForApple) && StaffRole.developer.may(.actForApple))
        #expect(StaffRole.operator.refusal(.actForApple) == "refunds, extensions and consumption answers need the support or developer role")
    }
}
