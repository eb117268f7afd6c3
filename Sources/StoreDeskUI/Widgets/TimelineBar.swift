import Foundation
import StoreDeskCore

/// A subscription as a bar on a date axis: one column a slice of time, drawn as the state the
/// subscription was in at the slice's middle (paid, free trial, offer, grace period, billing retry,
/// expired, refunded, revoked), with the store's clock marked. A pure value: `cells` and `text` depend
/// only on the segments, the clock and the width, so tests compare columns.
///
///     let bar = TimelineBar(rows: [row], events: events, originalTransactionId: row.id, clock: now, width: 60)
///     bar?.text(width: 60, glyphs: .unicode)   // "████████▓▓▓▓░░░▒▒▒┃     "
public struct TimelineBar: Sendable, Hashable {
    /// What a stretch of the bar shows.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case paid, trial, offer, grace, retry, expired, refunded, revoked

        /// Which kind a column shows when several fall in it: the rarer and shorter first.
        var precedence: Int {
            switch self {
            case .refunded: 0
            case .revoked: 1
            case .grace: 2
            case .retry: 3
            case .trial: 4
            case .offer: 5
            case .paid: 6
            case .expired: 7
            }
        }

        /// The legend's word for it.
        public var name: String {
            switch self {
            case .paid: "paid"
            case .trial: "free trial"
            case .offer: "offer"
            case .grace: "grace period"
            case .retry: "billing retry"
            case .expired: "expired"
            case .refunded: "refunded"
            case .revoked: "revoked"
            }
        }

        /// The state a subscription's info at an instant draws as.
        public init(_ info: SubscriptionInfo) {
            switch info.state {
            case .active:
                if info.offerDiscountType == .freeTrial { self = .trial } else { self = info.offerType == nil ? .paid : .offer }
            case .gracePeriod: self = .grace
            case .billingRetry: self = .retry
            case .expired: self = .expired
            case .revoked: self = info.revocation == .familySharing ? .revoked : .refunded
            }
        }
    }

    /// The characters a bar is drawn with: block elements, or ASCII where they would not show.
    public enum Glyphs: String, Sendable, Hashable, CaseIterable {
        case unicode, ascii

        public func character(_ kind: Kind) -> Character {
            switch (self, kind) {
            case (.unicode, .paid): "█"
            case (.unicode, .offer): "▓"
            case (.unicode, .trial): "▒"
            case (.unicode, .grace): "░"
            case (.unicode, .retry): "▚"
            case (.unicode, .expired): "▁"
            case (.unicode, .refunded): "▀"
            case (.unicode, .revoked): "▔"
            case (.ascii, .paid): "#"
            case (.ascii, .offer): "="
            case (.ascii, .trial): "+"
            case (.ascii, .grace): "-"
            case (.ascii, .retry): "~"
            case (.ascii, .expired): "."
            case (.ascii, .refunded): "R"
            case (.ascii, .revoked): "X"
            }
        }

        /// The store's clock.
        public var clock: Character { self == .unicode ? "┃" : "|" }

        /// ASCII when asked (`--ascii`), when the locale is not UTF-8 (`LC_ALL`, then `LC_CTYPE`, then
        /// `LANG`; none set is the C locale) or on a terminal without the glyphs (`TERM` linux, vt100).
        public static func detect(ascii: Bool = false, environment: [String: String]) -> Glyphs {
            if ascii { return .ascii }
            if let term = environment["TERM"], term == "linux" || term.hasPrefix("vt100") || term == "vt220" { return .ascii }
            let locale = ["LC_ALL", "LC_CTYPE", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty } ?? ""
            let lowered = locale.lowercased()
            return lowered.contains("utf-8") || lowered.contains("utf8") ? .unicode : .ascii
        }
    }

    /// One column of the bar.
    public enum Cell: Sendable, Hashable {
        /// Before the first purchase.
        case none
        case kind(Kind)
        /// The store's clock falls in this column.
        case clock
    }

    /// A stretch of one kind, from `start` up to (not including) `end`.
    public struct Segment: Sendable, Hashable {
        public var kind: Kind
        public var start: Instant
        public var end: Instant
        public init(_ kind: Kind, _ start: Instant, _ end: Instant) {
            self.kind = kind
            self.start = start
            self.end = end
        }
    }

    /// The axis, from `start` to `end` (exclusive).
    public var start: Instant
    public var end: Instant
    public var segments: [Segment]
    public var clock: Instant

    public init(start: Instant, end: Instant, segments: [Segment], clock: Instant) {
        self.start = start
        self.end = max(end, start.adding(.init(millis: 1)))
        self.segments = segments
        self.clock = clock
    }

    /// The instant in the middle of column `column` of `width`.
    func instant(column: Int, width: Int) -> Instant {
        let span = Double(end.millis - start.millis)
        return start.adding(.init(millis: Int64((Double(column) + 0.5) * span / Double(width))))
    }

    /// The column `instant` falls in at `width`, or nil outside the axis.
    public func column(of instant: Instant, width: Int) -> Int? {
        guard width > 0, instant >= start, instant <= end else { return nil }
        let span = Double(end.millis - start.millis)
        return min(width - 1, Int(Double(instant.millis - start.millis) / span * Double(width)))
    }

    /// Every column at `width`: of the segments that fall in its slice of time, the one that matters
    /// most (`Kind.precedence`: a refund, a grace period, a retry before the paid days around them, so a
    /// three-day grace period on a year's axis still shows), the clock's column marked.
    public func cells(width: Int) -> [Cell] {
        guard width > 0 else { return [] }
        let span = Double(end.millis - start.millis)
        func edge(_ column: Int) -> Instant { start.adding(.init(millis: Int64(Double(column) * span / Double(width)))) }
        var cells = (0..<width).map { column -> Cell in
            let (from, to) = (edge(column), edge(column + 1))
            return segments.filter { $0.start < to && $0.end > from }.min { $0.kind.precedence < $1.kind.precedence }
                .map { .kind($0.kind) } ?? .none
        }
        if let mark = column(of: clock, width: width) { cells[mark] = .clock }
        return cells
    }

    /// The bar as text, exactly `width` columns.
    public func text(width: Int, glyphs: Glyphs) -> String {
        String(cells(width: width).map { Self.character($0, glyphs) })
    }

    static func character(_ cell: Cell, _ glyphs: Glyphs) -> Character {
        switch cell {
        case .none: " "
        case .kind(let kind): glyphs.character(kind)
        case .clock: glyphs.clock
        }
    }

    /// The kinds the bar shows at `width`, in legend order.
    public func kinds(width: Int) -> [Kind] {
        let shown = Set(cells(width: width).compactMap { cell -> Kind? in if case .kind(let kind) = cell { kind } else { nil } })
        return Kind.allCases.filter(shown.contains)
    }

    /// The legend: each kind shown with its character and its name, and the clock, e.g.
    /// `█ paid  ░ grace period  ┃ store clock`.
    public func legend(width: Int, glyphs: Glyphs) -> [(Kind?, String)] {
        kinds(width: width).map { ($0, "\(glyphs.character($0)) \($0.name)") } + [(nil, "\(glyphs.clock) store clock")]
    }

    /// The axis under the bar: the first date at the left, the last at the right (when both fit), to
    /// the minute or the second when the axis lasts less than a day (a demo at 30 s a month), so its two
    /// ends never read as the same instant.
    public func axis(width: Int, zone: TimeZone) -> String {
        let formats: [(Instant) -> String] = [{ $0.dayText(in: zone) }, { $0.shortText(in: zone) }, { $0.secondsText(in: zone) }]
        let format = formats.first { $0(start) != $0(end) } ?? formats[0]
        let left = format(start), right = format(end)
        guard width >= left.count + right.count + 1 else { return String(left.prefix(width)) }
        return left + String(repeating: " ", count: width - left.count - right.count) + right
    }

    /// The bar, its axis and its legend as plain lines of `width` (the legend wraps).
    public func lines(width: Int, glyphs: Glyphs, zone: TimeZone) -> [String] {
        var lines = [text(width: width, glyphs: glyphs), axis(width: width, zone: zone)]
        var line = ""
        for (_, entry) in legend(width: width, glyphs: glyphs) {
            if !line.isEmpty, line.count + 2 + entry.count > width {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : "  ") + entry
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }
}

extension TimelineBar {
    /// One subscription's bar from what the store keeps (its row and notifications), sampled once a
    /// column of `width` with the same reading `subs` and the screens use (`SubscriptionSnapshot`). The
    /// axis runs from the first purchase to the later of the clock and the end of what is known (the
    /// period, grace period or billing retry the subscription is in). Nil before the first purchase.
    public init?(rows: [Subscription], events: [SubscriptionEvent], originalTransactionId: String, clock: Instant, width: Int) {
        let row = rows.first { $0.id == originalTransactionId }
        let chainEvents = events.filter { $0.originalTransactionId == originalTransactionId }
        // Folded once, then asked at every sample (as `SubscriptionSnapshot(at:rows:events:)` reads a chain).
        let timeline = SubscriptionTimeline(events: chainEvents)
        let rates = row.map { [originalTransactionId: $0.timeRate] } ?? [:]
        func info(at instant: Instant) -> SubscriptionInfo? {
            guard !chainEvents.isEmpty else { return row?.info(at: instant) }
            return timeline.snapshot(at: instant, timeRates: rates).subscription(originalTransactionId: originalTransactionId)
        }
        let latest = chainEvents.map(\.signedDate).max().map { max($0, clock) } ?? clock
        guard width > 0, let last = info(at: latest) else { return nil }
        let first = chainEvents.compactMap { $0.transaction?.purchaseDate }.min().map { min($0, last.originalPurchaseDate) } ?? last.originalPurchaseDate
        let known = [last.expiresDate, last.gracePeriodExpiresDate, last.billingRetryExpiresDate, last.revocationDate, clock].compactMap { $0 }.max() ?? clock
        // A little room after the last date, so an end is seen as an end.
        let room = max(Int64(1), (known.millis - first.millis) / 20)
        var bar = TimelineBar(start: first, end: known.adding(.init(millis: room)), segments: [], clock: clock)
        // Sampled on a grid of several points a column, so a stretch shorter than a column is still found.
        // Not every point is asked: twice a column, at every date the subscription's data names (where its
        // stretches begin and end) and at the clock; between two asked points that differ, halving finds
        // each change to the grid point. The same segments as asking every point, at a fraction of the cost.
        let samples = width * Self.samplesPerColumn
        var probe = GridProbe<Kind?>(count: samples) { sample in
            let at = bar.instant(column: sample, width: samples)
            // After the clock only what is already known: the period, grace or retry running, not an end
            // a renewal may still prevent.
            guard let kind = info(at: at).map(Kind.init), at <= clock || kind != .expired else { return nil }
            return kind
        }
        var named: [Instant] = [clock, last.originalPurchaseDate, last.purchaseDate, last.expiresDate]
        named += [last.gracePeriodExpiresDate, last.billingRetryExpiresDate, last.revocationDate].compactMap { $0 }
        for event in chainEvents {
            named.append(event.signedDate)
            if let t = event.transaction { named += [t.purchaseDate, t.expiresDate, t.revocationDate].compactMap { $0 } }
            if let r = event.renewal { named += [r.gracePeriodExpiresDate, r.renewalDate].compactMap { $0 } }
        }
        let span = Double(bar.end.millis - bar.start.millis)
        let marks = named.compactMap { instant -> Int? in
            guard instant >= bar.start, instant < bar.end else { return nil }
            // The grid point at or before the date: the point after it is marked with it.
            return Int(Double(instant.millis - bar.start.millis) / span * Double(samples) - 0.5)
        }
        let kinds = probe.resolve(every: Self.samplesPerColumn / 2, marks: marks)
        var segments: [Segment] = []
        for (sample, kind) in kinds.enumerated() {
            guard let kind else { continue }
            let at = bar.instant(column: sample, width: samples)
            let next = bar.instant(column: sample + 1, width: samples)
            if let previous = segments.last, previous.kind == kind, previous.end == at {
                segments[segments.count - 1].end = next
            } else {
                segments.append(Segment(kind, sample == 0 ? bar.start : at, next))
            }
        }
        bar.segments = segments
        self = bar
    }

    static let samplesPerColumn = 8
}

/// What a function of the grid points `0..<count` is at each point, asking it only where it may change:
/// at every `every`th point and at the marks, then, between two asked neighbours that differ, at the
/// middle until the change is pinned to adjacent points. Two asked points that agree are taken to
/// agree between them.
struct GridProbe<Value: Equatable> {
    let count: Int
    let ask: (Int) -> Value
    private var known: [Value?]

    init(count: Int, ask: @escaping (Int) -> Value) {
        self.count = count
        self.ask = ask
        known = Array(repeating: nil, count: max(0, count))
    }

    private mutating func value(_ i: Int) -> Value {
        if let value = known[i] { return value }
        let value = ask(i)
        known[i] = value
        return value
    }

    /// Fills `lower...upper` where the ends differ, halving.
    private mutating func pin(_ lower: Int, _ upper: Int) {
        guard upper - lower > 1 else { return }
        let middle = (lower + upper) / 2
        let m = value(middle)
        if m != value(lower) { pin(lower, middle) } else { fill(lower, middle) }
        if m != value(upper) { pin(middle, upper) } else { fill(middle, upper) }
    }

    private mutating func fill(_ lower: Int, _ upper: Int) {
        guard upper - lower > 1 else { return }
        let v = value(lower)
        for i in (lower + 1)..<upper where known[i] == nil { known[i] = v }
    }

    mutating func resolve(every stride: Int, marks: [Int]) -> [Value] {
        guard count > 0 else { return [] }
        var asked = Set(Swift.stride(from: 0, to: count, by: max(1, stride)))
        asked.insert(count - 1)
        for mark in marks {
            for i in [mark, mark + 1] where (0..<count).contains(i) { asked.insert(i) }
        }
        let points = asked.sorted()
        for i in points { _ = value(i) }
        for (lower, upper) in zip(points, points.dropFirst()) {
            if value(lower) != value(upper) { pin(lower, upper) } else { fill(lower, upper) }
        }
        return known.map { $0! }
    }
}
