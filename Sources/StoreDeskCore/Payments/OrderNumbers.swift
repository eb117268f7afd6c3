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
