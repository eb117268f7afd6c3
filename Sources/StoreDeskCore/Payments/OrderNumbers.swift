/// The platform's order ids, which its callback field table types as a number: each writer that
/// creates orders numbers them in a block of its own, so ids from processes running at the same time
/// never meet, and a run's ids follow from its seed alone once its block is known.
///
/// The store hands out blocks as run numbers (`payment_run`, AUTOINCREMENT, never handed out twice).
/// Run N's orders are `N × 10^10 + 1`, `+ 2`, … in the order the run creates them. Block 0 (ids below
/// 10^10) belongs to no run: the demo data's orders (`2611190001`: the day, then its sequence) and a
/// seeded store's.
///
///     var numbers = OrderNumbers(run: 3)
///     numbers?.next()   // "30000000001"
public struct OrderNumbers: Hashable, Sendable {
    /// The span of one block: run N's ids are N × 10^10 + 1 through N × 10^10 + 9,999,999,999.
    public static let blockSize: Int64 = 10_000_000_000
    /// The largest run number whose block still fits an Int64.
    public static let maxRun: Int64 = Int64.max / blockSize - 1

    public let run: Int64
    /// How many ids this block has handed out so far.
    public private(set) var issued: Int64

    /// Ids above the last run's block, which no run ever hands out: `callback check`'s batteries and the
    /// serve benchmark's load number their orders here, so a game server (`serve` on the same store among
    /// them) that saw them never takes a later run's genuine callback for a repeat. 6.8 billion ids, still
    /// within PHP's and SQLite's 64-bit integers.
    public static let outsideRuns: ClosedRange<Int64> = (maxRun + 1) * blockSize...Int64.max

    /// Ids a check takes at most (`outsideRuns(at:)`).
    public static let checkSlot: Int64 = 32

    /// The first of `checkSlot` fresh ids outside every run's block for a check started at `millis`
    /// (wall clock): the slot moves on every millisecond, so re-runs against the same game server use new
    /// ids (for about two and a half days of millisecond slots before they come round again).
    ///
    ///     OrderNumbers.outsideRuns(at: 1_772_352_000_000)   // 9223372030000000000 + slot × 32
    public static func outsideRuns(at millis: Int64) -> Int64 {
        let slots = (outsideRuns.upperBound - outsideRuns.lowerBound) / checkSlot
        return outsideRuns.lowerBound + abs(millis % slots) * checkSlot
    }

    /// Nil when `run` has no block (below 1, or past `maxRun`) or `issued` is outside it.
    public init?(run: Int64, issued: Int64 = 0) {
        guard run >= 1, run <= Self.maxRun, issued >= 0, issued < Self.blockSize else { return nil }
        self.run = run
        self.issued = issued
    }

    /// The block's next id, or nil once all of them are used.
    public mutating func next() -> String? {
        guard issued < Self.blockSize - 1 else { return nil }
        issued += 1
        return String(run * Self.blockSize + issued)
    }
}
