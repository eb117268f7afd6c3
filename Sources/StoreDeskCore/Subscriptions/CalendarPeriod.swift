import Foundation

/// A length on the calendar (3 days, 1 week, 2 months, 1 year), as ISO 8601 durations write it (`P3D`).
///
/// Subscription periods and offer periods are calendar lengths, not fixed durations: a month from
/// January 31 ends on February 28 (29 in a leap year), and a renewal series keeps its anchor day, so
/// the next one ends March 31, not March 28. Arithmetic is on the Gregorian calendar in UTC so it never
/// depends on the machine's zone.
///
///     CalendarPeriod.month.end(from: jan31)            // Feb 28
///     CalendarPeriod.month.end(from: jan31, count: 2)  // Mar 31
public struct CalendarPeriod: Hashable, Sendable, Codable, CustomStringConvertible {
    public enum Unit: String, Hashable, Sendable, Codable, CaseIterable {
        case day, week, month, year

        /// The ISO 8601 designator.
        var letter: Character {
            switch self {
            case .day: "D"
            case .week: "W"
            case .month: "M"
            case .year: "Y"
            }
        }
    }

    public var value: Int
    public var unit: Unit

    public init(_ value: Int, _ unit: Unit) {
        self.value = value
        self.unit = unit
    }

    public static let day = CalendarPeriod(1, .day)
    public static let week = CalendarPeriod(1, .week)
    public static let month = CalendarPeriod(1, .month)
    public static let year = CalendarPeriod(1, .year)

    /// The most units a period or a calendar step counts (a million days is 2,700 years): beyond it an
    /// `offerPeriod` is refused as unreadable, and a calendar step falls back to nominal days.
    static let largestCount = 1_000_000

    /// Parses `P3D`, `P1W`, `P2M`, `P1Y` (one designator, as Apple's `offerPeriod` uses).
    public init?(iso8601 text: String) {
        guard text.count >= 3, text.first == "P", let letter = text.last,
            let unit = Unit.allCases.first(where: { $0.letter == letter }),
            let value = Int(text.dropFirst().dropLast()), value > 0, value <= Self.largestCount
        else { return nil }
        self.init(value, unit)
    }

    /// `P1M`.
    public var iso8601: String { "P\(value)\(unit.letter)" }

    /// `1 month`, `3 days`.
    public var name: String { "\(value) \(unit.rawValue)\(value == 1 ? "" : "s")" }

    public var description: String { iso8601 }

    /// Length in days when every month counts 30 and every year 12 months: how an accelerated `TimeRate`
    /// scales a period, so that a year is twelve renewals of a month.
    public var nominalDays: Int64 {
        switch unit {
        case .day: Int64(value)
        case .week: Int64(value).clampedMultiplied(by: 7)
        case .month: Int64(value).clampedMultiplied(by: 30)
        case .year: Int64(value).clampedMultiplied(by: 360)
        }
    }

    /// The end of `count` consecutive periods starting at `start` (the anchor of a renewal series).
    ///
    /// Counting from the anchor, rather than adding one period to the previous end, keeps the day of the
    /// month: Jan 31 → Feb 28 → Mar 31.
    public func end(from start: Instant, count: Int = 1) -> Instant {
        let product = value.multipliedReportingOverflow(by: count)
        guard !product.overflow, product.partialValue.magnitude <= Self.largestCount else {
            return start.adding(.days(nominalDays.clampedMultiplied(by: Int64(count))))
        }
        let n = product.partialValue
        var components = DateComponents()
        switch unit {
        case .day: components.day = n
        case .week: components.day = n * 7
        case .month: components.month = n
        case .year: components.year = n
        }
        guard let date = utcCalendar.date(byAdding: components, to: start.date) else {
            return start.adding(.days(nominalDays.clampedMultiplied(by: Int64(count))))
        }
        return Instant(date)
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let period = CalendarPeriod(iso8601: text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "'\(text)' is not an ISO 8601 period such as P1M")
        }
        self = period
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(iso8601)
    }
}

/// The Gregorian calendar in UTC: subscription dates never depend on the operator's zone.
private let utcCalendar: Calendar = {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = .gmt
    return calendar
}()

extension SubscriptionPeriod {
    /// The same length as a `CalendarPeriod`, for arithmetic.
    public var calendarPeriod: CalendarPeriod {
        switch self {
        case .oneWeek: CalendarPeriod(1, .week)
        case .oneMonth: CalendarPeriod(1, .month)
        case .twoMonths: CalendarPeriod(2, .month)
        case .threeMonths: CalendarPeriod(3, .month)
        case .sixMonths: CalendarPeriod(6, .month)
        case .oneYear: CalendarPeriod(1, .year)
        }
    }

    /// The end of `count` periods from `start` on the real calendar (Jan 31 + 1 month = Feb 28).
    public func end(from start: Instant, count: Int = 1) -> Instant {
        calendarPeriod.end(from: start, count: count)
    }
}

extension App {
    /// The billing grace period for a subscription of this length, in days (0 when off).
    ///
    /// Apple caps the 16- and 28-day settings at 6 days for weekly subscriptions; 3 stays 3.
    public func gracePeriodDays(for period: SubscriptionPeriod) -> Int {
        guard gracePeriodDays > 0 else { return 0 }
        return period == .oneWeek ? min(gracePeriodDays, 6) : gracePeriodDays
    }
}
