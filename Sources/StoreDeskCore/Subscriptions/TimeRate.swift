/// How fast subscription time runs, as StoreKit testing offers it: real time, or accelerated so that a
/// month renews every 5 minutes or every 30 seconds and a demo shows renewals live.
///
/// Accelerated rates scale everything alike: a period is its nominal days (a month is 30, a year 12
/// months, a week 7 days) times the real length of one day, and so are the grace period and the 60-day
/// billing retry. At one month per 30 seconds a day lasts one second, a 16-day grace period 16 seconds.
/// Real time uses the real calendar instead, so months keep their true lengths.
///
///     let rate = TimeRate.monthEvery30Seconds
///     rate.end(of: .month, from: start)       // start + 30 s
///     rate.days(16)                           // 16 s
///     rate.subscriptionTime(forRealElapsed: .seconds(60))  // 60 days
public struct TimeRate: Hashable, Sendable, Codable, CustomStringConvertible {
    /// Real milliseconds one month of subscription time takes; nil for real time.
    public var realMillisPerMonth: Int64?

    /// Real time: renewals on the real calendar.
    public static let realTime = TimeRate(realMillisPerMonth: nil)
    /// A monthly subscription renews every 5 minutes; a day lasts 10 seconds, a year an hour.
    public static let monthEvery5Minutes = TimeRate(realMillisPerMonth: 300_000)
    /// A monthly subscription renews every 30 seconds; a day lasts 1 second.
    public static let monthEvery30Seconds = TimeRate(realMillisPerMonth: 30_000)

    /// The rates a settings screen offers, slowest first.
    public static let presets: [TimeRate] = [.realTime, .monthEvery5Minutes, .monthEvery30Seconds]

    /// A month of subscription time every `interval` of real time (at least one millisecond).
    public static func monthlyRenewal(every interval: Instant.Duration) -> TimeRate {
        TimeRate(realMillisPerMonth: max(1, interval.millis))
    }

    public init(realMillisPerMonth: Int64?) {
        self.realMillisPerMonth = realMillisPerMonth.map { max(1, $0) }
    }

    public var isRealTime: Bool { realMillisPerMonth == nil }

    /// `real time`, `1 month every 30s`.
    public var name: String {
        guard let month = realMillisPerMonth else { return "real time" }
        return "1 month every " + Instant.Duration(millis: month).shortText
    }

    public var description: String { name }

    /// Subscription milliseconds that pass in one real millisecond: 1 in real time, 86 400 at 30 s a month.
    public var speedup: Double {
        guard let month = realMillisPerMonth else { return 1 }
        return Double(Self.nominalMonthMillis) / Double(month)
    }

    /// How much subscription time a real elapsed duration stands for.
    public func subscriptionTime(forRealElapsed real: Instant.Duration) -> Instant.Duration {
        guard realMillisPerMonth != nil else { return real }
        return Instant.Duration(millis: Int64(clamping: Double(real.millis) * speedup))
    }

    /// How much real time a span of subscription time takes.
    public func realTime(forSubscriptionTime span: Instant.Duration) -> Instant.Duration {
        guard realMillisPerMonth != nil else { return span }
        return Instant.Duration(millis: Int64(clamping: Double(span.millis) / speedup))
    }

    /// The real length of `n` subscription days: grace periods, the billing retry window, extensions.
    public func days(_ n: Int) -> Instant.Duration {
        guard let month = realMillisPerMonth else { return .days(Int64(n)) }
        return Instant.Duration(millis: month.clampedMultiplied(by: Int64(n)) / 30)
    }

    /// The most subscription time one simulated run may cover: ten years of 365 days (120 monthly renewals,
    /// 520 weekly ones). More would only add notifications nobody reads, and at 30 s a month a long
    /// `--for` covers millennia.
    public static let longestRun = Instant.Duration.days(3650)

    /// The longest real span a run at this rate may last (`longestRun` of subscription time).
    public var longestRealRun: Instant.Duration { realTime(forSubscriptionTime: Self.longestRun) }

    /// Apple retries billing for up to 60 days before the subscription expires.
    public var billingRetryLimit: Instant.Duration { days(60) }

    /// The real length of one period at this rate; nil in real time, where months differ in length.
    public func length(of period: CalendarPeriod) -> Instant.Duration? {
        guard let month = realMillisPerMonth else { return nil }
        return Instant.Duration(millis: month.clampedMultiplied(by: period.nominalDays) / 30)
    }

    /// The end of `count` periods from an anchor: the real calendar in real time, fixed lengths otherwise.
    public func end(of period: CalendarPeriod, count: Int = 1, from start: Instant) -> Instant {
        guard let length = length(of: period) else { return period.end(from: start, count: count) }
        return start.adding(Instant.Duration(millis: length.millis.clampedMultiplied(by: Int64(count))))
    }

    /// A subscription month for the speed-up: 30 days.
    private static let nominalMonthMillis: Int64 = 30 * 86_400_000
}
