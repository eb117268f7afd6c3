import Testing

@testable import StoreDeskCore

@Suite("Calendar periods")
struct CalendarPeriodTests {
    @Test(arguments: [
        ("2026-01-31T10:00:00Z", CalendarPeriod.month, 1, "2026-02-28T10:00:00Z"),
        ("2026-01-31T10:00:00Z", CalendarPeriod.month, 2, "2026-03-31T10:00:00Z"),
        ("2026-01-31T10:00:00Z", CalendarPeriod.month, 3, "2026-04-30T10:00:00Z"),
        ("2028-01-31T10:00:00Z", CalendarPeriod.month, 1, "2028-02-29T10:00:00Z"),
        ("2028-02-29T10:00:00Z", CalendarPeriod.year, 1, "2029-02-28T10:00:00Z"),
        ("2026-08-31T23:30:00Z", CalendarPeriod(6, .month), 1, "2027-02-28T23:30:00Z"),
        ("2026-12-29T00:00:00Z", CalendarPeriod.week, 1, "2027-01-05T00:00:00Z"),
        ("2026-03-30T12:00:00Z", CalendarPeriod(3, .day), 1, "2026-04-02T12:00:00Z"),
        ("2026-05-31T00:00:00Z", CalendarPeriod(2, .month), 1, "2026-07-31T00:00:00Z"),
    ])
    func endsOnTheRealCalendar(_ row: (String, CalendarPeriod, Int, String)) {
        #expect(row.1.end(from: day(row.0), count: row.2) == day(row.3))
    }

    @Test func subscriptionPeriodsAreCalendarPeriods() {
        #expect(SubscriptionPeriod.allCases.map(\.calendarPeriod.iso8601) == SubscriptionPeriod.allCases.map(\.rawValue))
        #expect(SubscriptionPeriod.oneMonth.end(from: day("2026-01-31T10:00:00Z")) == day("2026-02-28T10:00:00Z"))
        #expect(SubscriptionPeriod.oneYear.end(from: day("2026-01-31T10:00:00Z")) == day("2027-01-31T10:00:00Z"))
    }

    @Test func parsesAndNamesISODurations() {
        #expect(CalendarPeriod(iso8601: "P3D") == CalendarPeriod(3, .day))
        #expect(CalendarPeriod(iso8601: "P1W") == .week)
        #expect(CalendarPeriod(iso8601: "P1Y")?.name == "1 year")
        #expect(CalendarPeriod(iso8601: "P2M")?.name == "2 months")
        #expect(CalendarPeriod(iso8601: "P0M") == nil)
        #expect(CalendarPeriod(iso8601: "1M") == nil)
        #expect(CalendarPeriod(iso8601: "PXM") == nil)
    }

    @Test func graceDaysFollowApplesWeeklyCap() {
        #expect(Fixture.app(graceDays: 16).gracePeriodDays(for: .oneWeek) == 6)
        #expect(Fixture.app(graceDays: 28).gracePeriodDays(for: .oneWeek) == 6)
        #expect(Fixture.app(graceDays: 3).gracePeriodDays(for: .oneWeek) == 3)
        #expect(Fixture.app(graceDays: 28).gracePeriodDays(for: .oneMonth) == 28)
        #expect(Fixture.app(graceDays: 0).gracePeriodDays(for: .oneYear) == 0)
    }
}
