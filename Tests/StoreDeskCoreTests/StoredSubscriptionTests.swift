import Foundation
import Testing

@testable import StoreDeskCore

/// A stored row without notifications, played forward and back, and mixed with notifications.
@Suite("Stored subscriptions")
struct StoredSubscriptionTests {
    static func row(
        _ state: SubscriptionState, expires: String = "04-01", grace: String? = nil, revoked: String? = nil,
        intent: String? = nil, autoRenew: Bool = true
    ) -> Subscription {
        Subscription(
            id: "row-1", userId: "u1", appId: "1001", productId: Fixture.basic, groupId: Fixture.group, state: state,
            autoRenew: autoRenew, originalPurchaseDate: day("01-01"), purchaseDate: day("03-01"), expiresDate: day(expires),
            gracePeriodExpiresDate: grace.map(day), revocationDate: revoked.map(day),
            revocationReason: revoked == nil ? nil : "refund", expirationIntent: intent)
    }

    @Test func aGraceRowRunsOutIntoBillingRetryThenExpires() {
        let row = Self.row(.gracePeriod, grace: "04-17", intent: "billing_error")
        #expect(row.info(at: day("03-15"))?.state == .active)
        #expect(row.info(at: day("04-05"))?.state == .gracePeriod)
        #expect(row.info(at: day("04-05"))?.gracePeriodExpiresDate == day("04-17"))
        #expect(row.info(at: day("04-17"))?.state == .billingRetry)
        #expect(row.info(at: day("04-17"))?.billingRetryExpiresDate == day("05-31"))
        #expect(row.info(at: day("05-31"))?.state == .expired)
        #expect(row.info(at: day("05-31"))?.expirationIntent == .billingError)
    }

    @Test func aRowIsNothingBeforeItWasBoughtAndRevokedOnlyFromItsDate() {
        let row = Self.row(.revoked, revoked: "03-10", autoRenew: false)
        #expect(row.info(at: day("2025-12-31T00:00:00Z")) == nil)
        #expect(row.info(at: day("03-05"))?.state == .active)
        #expect(row.info(at: day("03-10"))?.state == .revoked)
        #expect(row.info(at: day("03-10"))?.revocation == .refund)
        #expect(row.info(at: day("05-01"))?.state == .revoked)
    }

    @Test func anActiveRowWithAutoRenewOffExpiresAsCancelled() {
        let row = Self.row(.active, autoRenew: false)
        let after = row.info(at: day("04-02"))
        #expect(after?.state == .expired)
        #expect(after?.expirationIntent == .cancelled)
        #expect(Self.row(.expired, intent: "price_increase", autoRenew: false).info(at: day("04-02"))?.expirationIntent
            == .declinedPriceIncrease)
    }

    @Test func everyRowStateReadsBackAsItselfAtItsOwnInstant() {
        let rows = [
            Self.row(.active), Self.row(.gracePeriod, grace: "04-17", intent: "billing_error"),
            Self.row(.billingRetry, intent: "billing_error"), Self.row(.expired, intent: "cancelled", autoRenew: false),
            Self.row(.revoked, revoked: "03-10", autoRenew: false),
        ]
        let instants = [day("03-20"), day("04-05"), day("04-20"), day("04-05"), day("03-20")]
        for (row, instant) in zip(rows, instants) {
            #expect(row.info(at: instant)?.subscription(userId: "u1", appId: "1001") == row, "\(row.state)")
        }
    }

    @Test func notificationsWinOverTheRowOfTheSameChain() {
        let subscribed = notification(
            .subscribed, .initialBuy, uuid: "s1", signed: "03-01", original: "row-1", purchased: "03-01", expires: "04-01")
        var stale = Self.row(.expired, intent: "cancelled", autoRenew: false)
        stale.id = "row-1"
        var other = Self.row(.active, expires: "05-01")
        other.id = "row-2"
        let snapshot = SubscriptionSnapshot(at: day("03-15"), rows: [stale, other], events: [subscribed])
        #expect(snapshot.all.map(\.originalTransactionId) == ["row-2", "row-1"])
        #expect(snapshot.subscription(originalTransactionId: "row-1")?.state == .active)
        #expect(snapshot.groups.map(\.groupId) == [Fixture.group])
        #expect(snapshot.valid.count == 2)
        // Before the first notification was signed, the chain does not exist yet.
        #expect(SubscriptionSnapshot(at: day("02-01"), rows: [stale], events: [subscribed]).all.isEmpty)
    }

    @Test func importRulesSkipWhatIsNotASubscriptionAndRejectWhatContradictsTheStoreOrComesFromTheFuture() {
        let event = notification(.didRenew, uuid: "n1", signed: "04-01", purchased: "04-01", expires: "05-01")
        let monthly = Fixture.products[1]
        let clock = day("04-10")
        #expect(NotificationImport.problem(with: event, product: monthly, bundleId: "com.storedesk.starvoyage", clock: clock, wallClock: clock) == nil)
        #expect(
            NotificationImport.problem(with: event, product: nil, bundleId: nil, clock: clock, wallClock: clock)
                == .rejected("unknown product 'vip.monthly': add it with storedesk catalog import FILE.storekit --app APP"))
        #expect(
            NotificationImport.problem(with: event, product: monthly, bundleId: "com.other", clock: clock, wallClock: clock)
                == .rejected("bundleId 'com.storedesk.starvoyage' is not app 1001's (com.other)"))
        // From the future: signed after both the store's clock and the wall clock.
        #expect(
            NotificationImport.problem(with: event, product: monthly, bundleId: nil, clock: day("03-30"), wallClock: day("03-31"))
                == .rejected(
                    "signed 2026-04-01T08:00:00Z, in the future: after both the store's clock 2026-03-30T08:00:00Z "
                        + "and the wall clock 2026-03-31T08:00:00Z"))
        // A store's clock behind the real world does not refuse what Apple signed since, and a clock ahead
        // of it (a demo's) does not refuse the demo's own.
        #expect(NotificationImport.problem(with: event, product: monthly, bundleId: nil, clock: day("03-20"), wallClock: day("04-01")) == nil)
        #expect(NotificationImport.problem(with: event, product: monthly, bundleId: nil, clock: day("04-02"), wallClock: day("03-20")) == nil)
        #expect(
            NotificationImport.problem(with: event, product: Fixture.products[4], bundleId: nil, clock: clock, wallClock: clock)
                == .skipped("gems.60 is consumable, not an auto-renewable subscription"))
        let test = SubscriptionEvent(notificationType: .test, notificationUUID: "t", signedDate: day("04-01"))
        #expect(NotificationImport.problem(with: test, product: nil, bundleId: nil, clock: clock, wallClock: clock)?.name == "skipped")
        let owner = NotificationImport.newOwner(originalTransactionId: "2000000100000241", firstPurchase: day("03-01"))
        #expect((owner.id, owner.name, owner.site, owner.isGuest) == ("ot-2000000100000241", "2000000100000241", .apple, false))
    }

    /// An id with a control character in it would name a player (`ot-` and the original transaction) and a
    /// chain no terminal shows as they are: the line is rejected, the id shown escaped; and the summary's
    /// "new users:" escapes what it names.
    @Test func idsWithControlCharactersAreRejectedAndNewUsersAreShownEscaped() {
        let clean = notification(.didRenew, uuid: "n1", signed: "04-01", purchased: "04-01", expires: "05-01")
        let monthly = Fixture.products[1]
        let clock = day("04-10")
        func problem(_ edit: (inout TransactionInfo) -> Void) -> NotificationImport.Outcome? {
            var event = clean
            if var transaction = event.transaction {
                edit(&transaction)
                event.transaction = transaction
            }
            return NotificationImport.problem(with: event, product: monthly, bundleId: nil, clock: clock, wallClock: clock)
        }
        #expect(problem { _ in } == nil)
        #expect(problem { $0.originalTransactionId = "2000000100000241\nnew users: everyone" }
            == .rejected("originalTransactionId '2000000100000241\\nnew users: everyone' holds a control character: an id is printable text"))
        #expect(problem { $0.transactionId = "2000000100000242\u{1B}[2J" }
            == .rejected("transactionId '2000000100000242\\e[2J' holds a control character: an id is printable text"))
        #expect(problem { $0.appAccountToken = "9d2c\u{202E}e1" }
            == .rejected("appAccountToken '9d2c\\u{202E}e1' holds a control character: an id is printable text"))
        var report = NotificationImport.Report()
        report.recordNewUser("ot-1\n2")
        report.recordNewUser("ot-3")
        #expect(report.newUsersSummary == "new users: ot-1\\n2, ot-3")
    }
}

@Suite("Dates read aloud")
struct SpokenDateTests {
    @Test func weekdayMonthAndZoneInWords() throws {
        let utc = try #require(TimeZone(identifier: "UTC"))
        let shanghai = try #require(TimeZone(identifier: "Asia/Shanghai"))
        let kolkata = try #require(TimeZone(identifier: "Asia/Kolkata"))
        #expect(day("2026-12-05T09:00:00Z").spokenText(in: utc) == "Saturday 5 December 2026, 09:00 UTC")
        #expect(day("2026-12-05T20:30:00Z").spokenText(in: shanghai) == "Sunday 6 December 2026, 04:30 UTC+8")
        #expect(day("1970-01-01T00:00:00Z").spokenText(in: utc) == "Thursday 1 January 1970, 00:00 UTC")
        #expect(day("1969-12-31T23:00:00Z").spokenText(in: kolkata) == "Thursday 1 January 1970, 04:30 UTC+5:30")
        #expect(day("2028-02-29T12:00:00Z").spokenText(in: utc) == "Tuesday 29 February 2028, 12:00 UTC")
    }

    @Test func howFarFromNow() {
        let now = day("11-20")
        #expect(day("12-05").relativeText(from: now) == "in 15 days")
        #expect(day("11-19").relativeText(from: now) == "1 day ago")
        #expect(day("11-20T10:30").relativeText(from: now) == "in 2 hours")
        #expect(day("11-20T08:00").relativeText(from: now) == "now")
        #expect(Instant.Duration.minutes(5).spokenText == "5 minutes")
    }
}
