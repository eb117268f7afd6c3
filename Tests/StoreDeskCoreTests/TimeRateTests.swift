import Testing

@testable import StoreDeskCore

@Suite("Time rate")
struct TimeRateTests {
    @Test func thirtySecondMonthsScaleEverythingAlike() {
        let rate = TimeRate.monthEvery30Seconds
        let start = day("03-01")
        #expect(rate.end(of: .month, from: start) == start.adding(.seconds(30)))
        #expect(rate.end(of: .month, count: 3, from: start) == start.adding(.seconds(90)))
        #expect(rate.end(of: .week, from: start) == start.adding(.seconds(7)))
        #expect(rate.end(of: .year, from: start) == start.adding(.minutes(6)))
        #expect(rate.end(of: SubscriptionPeriod.sixMonths.calendarPeriod, from: start) == start.adding(.minutes(3)))
        #expect(rate.days(16) == .seconds(16))
        #expect(rate.billingRetryLimit == .seconds(60))
        #expect(rate.speedup == 86_400)
        #expect(rate.subscriptionTime(forRealElapsed: .seconds(30)) == .days(30))
        #expect(rate.realTime(forSubscriptionTime: .days(1)) == .seconds(1))
        #expect(rate.name == "1 month every 30s")
    }

    @Test func fiveMinuteMonthsMatchTheSandboxYear() {
        let rate = TimeRate.monthEvery5Minutes
        let start = day("03-01")
        #expect(rate.end(of: .month, from: start) == start.adding(.minutes(5)))
        #expect(rate.end(of: .year, from: start) == start.adding(.hours(1)))
        #expect(rate.days(1) == .seconds(10))
        #expect(rate.days(3) == .seconds(30))
        #expect(rate.subscriptionTime(forRealElapsed: .minutes(10)) == .days(60))
    }

    @Test func realTimeUsesTheCalendar() {
        let rate = TimeRate.realTime
        #expect(rate.isRealTime)
        #expect(rate.speedup == 1)
        #expect(rate.end(of: .month, from: day("01-31")) == day("02-28"))
        #expect(rate.days(16) == .days(16))
        #expect(rate.billingRetryLimit == .days(60))
        #expect(rate.length(of: .month) == nil)
        #expect(rate.subscriptionTime(forRealElapsed: .hours(5)) == .hours(5))
        #expect(TimeRate.presets.map(\.name) == ["real time", "1 month every 5m 0s", "1 month every 30s"])
    }

    @Test func acceleratedSimulationRenewsLive() throws {
        let start = day("03-01")
        var sim = Fixture.simulation(start: "03-01", rate: .monthEvery30Seconds)
        let id = try sim.purchase(Fixture.basic, at: start)
        try sim.advance(to: start.adding(.seconds(95)))
        #expect(sim.timeline.entries.map(\.name) == ["SUBSCRIBED/INITIAL_BUY", "DID_RENEW", "DID_RENEW", "DID_RENEW"])
        #expect(sim.subscription(id)?.expiresDate == start.adding(.seconds(120)))
        // Billing fails at the 2-minute renewal: 16 grace days are 16 seconds, retry ends 60 seconds on.
        try sim.startBillingProblem(id, at: start.adding(.seconds(100)))
        try sim.advance(to: start.adding(.seconds(130)))
        let grace = sim.snapshot(at: start.adding(.seconds(130)))
        #expect(grace.inGracePeriod)
        #expect(grace.gracePeriodExpiresDate == start.adding(.seconds(136)))
        #expect(sim.snapshot(at: start.adding(.seconds(135))).latest?.state == .gracePeriod)
        #expect(sim.snapshot(at: start.adding(.seconds(136))).latest?.state == .billingRetry)
        try sim.advance(to: start.adding(.seconds(150)))
        #expect(sim.snapshot(at: start.adding(.seconds(150))).latest?.state == .billingRetry)
        try sim.advance(to: start.adding(.seconds(180)))
        let expired = sim.snapshot(at: start.adding(.seconds(180)))
        #expect(expired.latest?.state == .expired)
        #expect(expired.latest?.expirationIntent == .billingError)
        #expect(sim.timeline.billingRetryLimit == .seconds(60))
    }

    @Test func anAbsurdlyFastRateStillMovesForward() throws {
        let rate = TimeRate.monthlyRenewal(every: .seconds(0))
        #expect(rate.realMillisPerMonth == 1)
        var sim = Fixture.simulation(start: "03-01", rate: rate)
        let id = try sim.purchase(Fixture.weekly, at: day("03-01"))
        try sim.advance(to: day("03-01").adding(.millis(20)))
        #expect(sim.subscription(id)?.state == .active)
        #expect(sim.timeline.events.count == 21)
    }
}

extension Instant.Duration {
    fileprivate static func millis(_ n: Int64) -> Instant.Duration { Instant.Duration(millis: n) }
}
