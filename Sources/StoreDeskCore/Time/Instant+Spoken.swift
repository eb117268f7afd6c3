import Foundation

extension Instant {
    /// `Saturday 5 December 2026, 09:00 UTC`: a date an operator can read out to a player on the phone,
    /// with the weekday and the month in words so nobody confuses 05/12 with 12/05.
    public func spokenText(in zone: TimeZone) -> String {
        let offset = Instant.offsetSeconds(of: zone, at: self)
        let local = millis / 1000 + Int64(offset)
        let days = local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
        let secondsOfDay = local - days * 86_400
        let (year, month, day) = Instant.civil(fromDays: days)
        // 1970-01-01 was a Thursday.
        let weekday = Instant.weekdays[Int(((days % 7) + 11) % 7)]
        return "\(weekday) \(day) \(Instant.months[Int(month) - 1]) \(year), "
            + Instant.pad(secondsOfDay / 3600, 2) + ":" + Instant.pad((secondsOfDay % 3600) / 60, 2) + " "
            + Instant.zoneName(offsetSeconds: offset)
    }

    /// `in 13 days`, `2 hours ago`, `now`: how far this instant is from `now`, in the largest whole unit.
    public func relativeText(from now: Instant) -> String {
        let span = duration(since: now)
        guard span.millis.magnitude >= 60_000 else { return "now" }
        let words = span.spokenText
        return span.millis > 0 ? "in " + words : words + " ago"
    }

    /// `UTC`, `UTC+8`, `UTC-3:30`.
    static func zoneName(offsetSeconds: Int) -> String {
        guard offsetSeconds != 0 else { return "UTC" }
        let sign = offsetSeconds > 0 ? "+" : "-"
        let minutes = abs(offsetSeconds) / 60
        return "UTC" + sign + String(minutes / 60) + (minutes % 60 == 0 ? "" : ":" + String(format: "%02d", minutes % 60))
    }

    static let weekdays = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
    static let months = [
        "January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
        "November", "December",
    ]
}

extension Instant.Duration {
    /// `13 days`, `1 hour`, `5 minutes`: the largest whole unit of the span's length (its sign aside), in words.
    public var spokenText: String {
        let minutes = Int64(millis.magnitude / 60_000)
        let (count, unit): (Int64, String) =
            minutes >= 1440 ? (minutes / 1440, "day") : minutes >= 60 ? (minutes / 60, "hour") : (minutes, "minute")
        return "\(count) \(unit)\(count == 1 ? "" : "s")"
    }
}
