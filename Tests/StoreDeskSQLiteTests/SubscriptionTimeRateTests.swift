import Foundation
import GRDB
import StoreDeskCore
import Testing

@testable import StoreDeskSQLite

/// A demo subscription keeps its time rate in the store, so reading it back ends billing retry when the
/// demo does; real and imported chains keep Apple's 60 real days.
@Suite struct SubscriptionTimeRateTests {
    /// A demo of player 10000004 at `rate` whose renewals fail from `failsAfter` seconds on, recorded
    /// `seconds` after the demo store's clock (as `events simulate` and the screen's `x` leave it).
    static func demo(
        rate: TimeRate, failsAfter: Int64, seconds: Int64
    ) throws -> (store: AppDatabase, simulation: SubscriptionSimulation, id: String, start: Instant) {
        let (store, demo) = try SubscriptionImportTests.demoStore()
        let start = demo.meta.clock
        let setup = try store.subscriptionDemoSetup(userId: "10000004", productId: nil, at: start)
        var simulation = setup.simulation(start: start, rate: rate)
        let id = try simulation.purchase(setup.product.id, at: start, appAccountToken: setup.appAccountToken)
        try simulation.startBillingProblem(id, at: start.adding(.seconds(failsAfter)))
        let end = start.adding(.seconds(seconds))
        try simulation.advance(to: end)
        let report = try store.recordSimulatedNotifications(simulation.timeline.events, at: end, rate: rate)
        #expect(report.rejected == 0)
        return (store, simulation, id, start)
    }

    @Test(arguments: [
        // 5 minutes a month: renewal fails at 08:05, 60 days of 10 s end retry at 08:15.
        (TimeRate.monthEvery5Minutes, Int64(200), Int64(600), "2026-11-20T08:05:00Z", "2026-11-20T08:15:00Z"),
        // 30 seconds a month: renewal fails at 08:00:30, retry ends 60 s later.
        (TimeRate.monthEvery30Seconds, Int64(10), Int64(60), "2026-11-20T08:00:30Z", "2026-11-20T08:01:30Z"),
    ])
    func aDemoStoppedInBillingRetryEndsItAtItsOwnRate(
        rate: TimeRate, failsAfter: Int64, stoppedAfter: Int64, periodEnd: String, retryEnd: String
    ) throws {
        // Given a demo stopped while its renewal is failing
        let (store, simulation, id, _) = try Self.demo(rate: rate, failsAfter: failsAfter, seconds: stoppedAfter)
        let row = try #require(try SubscriptionImportTests.row(store, id))
        // Then the row keeps the demo's rate
        #expect(row.timeRate == rate)
        #expect(row.expiresDate == at(periodEnd))
        // And read back from the store, billing retry ends when the demo's own would, then it is expired
        let records = try store.subscriptionRecords(userId: "10000004")
        let clock = try #require(try store.clock())
        let now = try #require(records.snapshot(at: clock).subscription(originalTransactionId: id))
        #expect(now.state == .billingRetry || now.state == .gracePeriod)
        #expect(now.billingRetryExpiresDate == at(retryEnd))
        let before = at(retryEnd).adding(.seconds(-1))
        #expect(records.snapshot(at: before).subscription(originalTransactionId: id)?.state == .billingRetry)
        let after = records.snapshot(at: at(retryEnd)).subscription(originalTransactionId: id)
        #expect(after?.state == .expired)
        #expect(after?.expirationIntent == .billingError)
        for instant in [clock, before, at(retryEnd)] {
            #expect(
                records.snapshot(at: instant).subscription(originalTransactionId: id)
                    == simulation.snapshot(at: instant).subscription(originalTransactionId: id))
        }
        // And the row alone, played forward, agrees (a chain without notifications, the screens' list)
        #expect(row.info(at: before)?.state == .billingRetry)
        #expect(row.info(at: at(retryEnd))?.state == .expired)
        // And the Subscriptions screen's query files it under retry, then expired, and knows when it moves
        let retrying = SubscriptionSearch(state: .billingRetry, instant: before)
        #expect(try store.subscriptions(retrying, from: .first, limit: 50).map(\.subscription.id).contains(id))
        let expired = SubscriptionSearch(state: .expired, instant: at(retryEnd))
        #expect(try store.subscriptions(expired, from: .first, limit: 50).map(\.subscription.id).contains(id))
        let next = try store.reader.read { try SubscriptionSearch(instant: before).nextChange($0) }
        #expect(next == at(retryEnd))
        #expect(try store.check() == [])
    }

    @Test func importedAndRealTimeChainsKeepSixtyRealDaysOfRetry() throws {
        // Given a real-time demo and the demo store's imported notifications
        let (store, _, id, start) = try Self.demo(rate: .realTime, failsAfter: 10, seconds: 120)
        let row = try #require(try SubscriptionImportTests.row(store, id))
        #expect(row.timeRateMillisPerMonth == nil)
        // The imported chain of 10000007 (billing retry, then expiry) keeps no rate either
        let imported = try store.reader.read {
            try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM subscription WHERE time_rate_month_ms IS NOT NULL")
        }
        #expect(imported == 0)
        // And a failing real-time row is retried for 60 real days after its period
        var failing = row
        failing.state = .billingRetry
        let retryEnd = failing.expiresDate.adding(.days(60))
        #expect(failing.info(at: retryEnd.adding(.seconds(-1)))?.state == .billingRetry)
        #expect(failing.info(at: retryEnd)?.state == .expired)
        #expect(start < failing.expiresDate)
    }
}
