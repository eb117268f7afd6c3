import Foundation

/// A moment in time as Apple's servers write it: whole milliseconds since 1970-01-01 UTC.
///
/// Core never reads the wall clock; instants come in from a `Clock` so every rule is testable.
///
///     let start = Instant(iso8601: "2026-03-01T08:00:00Z")
///     start?.adding(.days(3))
public struct Instant: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    public var millis: Int64

    public init(millis: Int64) { self.millis = millis }

    /// The date to the nearest millisecond (held at the ends of `Int64` for a date beyond them).
    public init(_ date: Date) { self.millis = Int64(clamping: date.timeIntervalSince1970 * 1000) }

    /// The instants StoreDesk reads, stores and shows: 1970-01-01 to the last millisecond of 9999, the
    /// years ISO 8601 writes with four digits. Dates from files, stores and the command line are checked
    /// against it (`Instant.check`), so arithmetic on them stays far from `Int64`'s ends.
    public static let supported = Instant(millis: 0)...Instant(millis: 253_402_300_799_999)

    /// Whether the instant is in `supported`.
    public var isSupported: Bool { Instant.supported.contains(self) }

    /// Parses `2026-03-01T08:00:00Z`, `2026-03-01T08:00:00.250+08:00` or a bare date `2026-03-01` (UTC).
    public init?(iso8601 text: String) {
        let full = ISO8601DateFormatter()
        full.formatOptions = [.withInternetDateTime]
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let day = ISO8601DateFormatter()
        day.formatOptions = [.withFullDate]
        guard let date = full.date(from: text) ?? fractional.date(from: text) ?? day.date(from: text) else { return nil }
        self.init(date)
    }

    /// Decodes Apple's milliseconds, or an ISO-8601 string as the hand-written demo data uses.
    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let millis = try? container.decode(Int64.self) {
            self.millis = millis
            return
        }
        // Xcode's StoreKit testing writes fractions of a millisecond (1697679936049.7297): the whole
        // milliseconds are the instant, as Apple's libraries read them.
        if let millis = try? container.decode(Double.self), millis.isFinite,
            millis >= -9.2e18, millis <= 9.2e18
        {
            self.millis = Int64(millis.rounded(.down))
            return
        }
        if let number = try? container.decode(Double.self) {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "\(number) is not a whole number of milliseconds (at most 19 digits)")
        }
        let text = try container.decode(String.self)
        guard let instant = Instant(iso8601: text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "'\(text)' is neither milliseconds nor an ISO-8601 date")
        }
        self = instant
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(millis)
    }

    public var date: Date { Date(timeIntervalSince1970: Double(millis) / 1000) }

    public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.millis < rhs.millis }

    /// The instant `duration` later. Held at the ends of time instead of overflowing, so a date from a
    /// damaged store or a hostile file can give a wrong answer, which checks then refuse, but never a trap.
    public func adding(_ duration: Duration) -> Instant { Instant(millis: millis.clampedAdding(duration.millis)) }

    /// The span from `other` to this instant (held, like `adding`, instead of overflowing).
    public func duration(since other: Instant) -> Duration { Duration(millis: millis.clampedAdding(other.millis.clampedNegated)) }

    /// `2026-03-01T08:00:00Z`: the form used in JSON output.
    public var iso8601: String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }

    public var description: String { iso8601 }

    /// `2026-03-01 16:00` in the given zone: the form shown on screen.
    ///
    /// Plain arithmetic on the civil calendar (Howard Hinnant's days-from-civil), not `Calendar`:
    /// a frame shows dozens of dates, and ICU's calendar costs more than drawing the frame.
    public func shortText(in zone: TimeZone) -> String {
        let local = millis / 1000 + Int64(Instant.offsetSeconds(of: zone, at: self))
        let days = local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
        let secondsOfDay = local - days * 86_400
        let (year, month, day) = Instant.civil(fromDays: days)
        return Instant.pad(year, 4) + "-" + Instant.pad(month, 2) + "-" + Instant.pad(day, 2) + " "
            + Instant.pad(secondsOfDay / 3600, 2) + ":" + Instant.pad((secondsOfDay % 3600) / 60, 2)
    }

    static func pad(_ value: Int64, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }

    /// Year, month, day of a count of days since 1970-01-01.
    static func civil(fromDays z0: Int64) -> (Int64, Int64, Int64) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    /// The zone's offset from UTC at this instant; UTC itself without asking ICU.
    static func offsetSeconds(of zone: TimeZone, at instant: Instant) -> Int {
        if zone.identifier == "UTC" || zone.identifier == "GMT" { return 0 }
        return zone.secondsFromGMT(for: instant.date)
    }

    /// `2026-03-01` in the given zone.
    public func dayText(in zone: TimeZone) -> String { String(shortText(in: zone).prefix(10)) }

    /// `2026-03-01 16:00:05` in the given zone.
    public func secondsText(in zone: TimeZone) -> String {
        let seconds = ((millis / 1000) % 60 + 60) % 60
        return shortText(in: zone) + ":" + Instant.pad(seconds, 2)
    }
}

extension Instant {
    /// A span of time in milliseconds. Calendar months are handled by `SubscriptionPeriod`, not here.
    public struct Duration: Hashable, Comparable, Sendable {
        public var millis: Int64
        public init(millis: Int64) { self.millis = millis }
        public static func seconds(_ n: Int64) -> Duration { Duration(millis: n.clampedMultiplied(by: 1000)) }
        public static func minutes(_ n: Int64) -> Duration { Duration(millis: n.clampedMultiplied(by: 60_000)) }
        public static func hours(_ n: Int64) -> Duration { Duration(millis: n.clampedMultiplied(by: 3_600_000)) }
        public static func days(_ n: Int64) -> Duration { Duration(millis: n.clampedMultiplied(by: 86_400_000)) }
        public static func < (lhs: Duration, rhs: Duration) -> Bool { lhs.millis < rhs.millis }

        /// `3d 4h`, `12m`, `45s`: the largest two units, for ages on screen.
        public var shortText: String {
            let total = millis.magnitude / 1000
            let d = total / 86_400, h = (total % 86_400) / 3600, m = (total % 3600) / 60, s = total % 60
            let sign = millis < 0 ? "-" : ""
            if d > 0 { return "\(sign)\(d)d \(h)h" }
            if h > 0 { return "\(sign)\(h)h \(m)m" }
            if m > 0 { return "\(sign)\(m)m \(s)s" }
            return "\(sign)\(s)s"
        }
    }
}

extension TimeZone {
    /// The machine's zone for showing dates. Where local time is UTC all year (a server's usual
    /// setting, or `TZ=UTC`) this is the fixed GMT zone: the same dates, without loading ICU's
    /// time-zone data, which costs a short command such as `snapshot` more than drawing its frame.
    public static var local: TimeZone {
        tzset()
        var now = time(nil)
        var moment = tm()
        guard localtime_r(&now, &moment) != nil else { return .current }
        // Offsets in January and July: a zone with daylight saving differs in one of them.
        let year = Int(moment.tm_year)
        for month in [0, 6] {
            var probe = tm()
            probe.tm_year = Int32(year)
            probe.tm_mon = Int32(month)
            probe.tm_mday = 1
            probe.tm_isdst = -1
            var seconds = timegm(&probe)
            var local = tm()
            guard localtime_r(&seconds, &local) != nil, local.tm_gmtoff == 0 else { return .current }
        }
        return .gmt
    }
}

extension Int64 {
    /// The sum, held at `-Int64.max...Int64.max` instead of trapping. (Never `Int64.min`, so `abs` and
    /// negation of a result are always safe.)
    public func clampedAdding(_ other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        if overflow { return other > 0 ? .max : -.max }
        return sum == .min ? -.max : sum
    }

    /// The product, held at `-Int64.max...Int64.max` instead of trapping.
    public func clampedMultiplied(by other: Int64) -> Int64 {
        let (product, overflow) = multipliedReportingOverflow(by: other)
        if overflow { return (self < 0) == (other < 0) ? .max : -.max }
        return product == .min ? -.max : product
    }

    /// The negation, `Int64.min` giving `Int64.max`.
    public var clampedNegated: Int64 { self == .min ? .max : -self }

    /// A double rounded to the nearest integer and held at `-Int64.max...Int64.max`; NaN is 0. For rates,
    /// speeds and scaled spans, where `Int64(_:)` traps on a value out of range.
    public init(clamping value: Double) {
        guard !value.isNaN else {
            self = 0
            return
        }
        let rounded = value.rounded()
        // 2^63 is the first double above Int64.max; every double below it converts exactly.
        if rounded >= 9_223_372_036_854_775_807.0 {
            self = .max
        } else if rounded <= -9_223_372_036_854_775_807.0 {
            self = -.max
        } else {
            self = Int64(rounded)
        }
    }
}
