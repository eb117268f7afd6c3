import StoreDeskCore

/// The console's one clock: every screen answers at the same instant, the one the header shows, and
/// it is the instant `storedesk subs`, `snapshot` and the golden frames answer at when the console opens.
///
/// A store that keeps a clock of its own (demo and synthetic stores) is shown at that clock, running on
/// in real time from the moment the console opened, so live simulations still move; when the store's
/// clock moves past it (any write stamps at or after it and moves it on: another console's, a command's,
/// `events import`, a simulation running faster than real time), the console's clock catches up, never
/// back. A store without one is shown at the wall clock, never before the latest stamp it holds.
///
/// Every console open on a store shows one clock: each writes where its clock stands every few seconds
/// (`SharedClock`, which moves the store's clock on too, so commands answer there), and a console opening
/// starts from it, not from the last write's instant, then catches up with the others' as they write.
///
///     var clock = ConsoleClock(store: try store.now(wall: wall), shared: try store.sharedClock(), wall: wall)
///     clock.now(wall: Instant(Date()))   // the store's clock plus the time since
public struct ConsoleClock: Sendable, Equatable {
    /// Which clock the console shows (the header names it).
    public typealias Source = ClockSource

    public let source: Source
    /// The console's instant at `wallAnchor` on the wall clock.
    private var anchor: Instant
    private var wallAnchor: Instant

    public init(storeClock: Instant?, wall: Instant) {
        self.init(store: StoreNow.resolve(storeClock: storeClock, floor: nil, wall: wall), wall: wall)
    }

    /// Starts at the store's instant (`StoreTimeLine.now(wall:)`): where the last write left its clock, so a
    /// console opened again never starts before what an earlier one wrote.
    ///
    ///     var clock = ConsoleClock(store: try store.now(wall: wall), wall: wall)
    public init(store now: StoreNow, wall: Instant) {
        source = now.source
        anchor = now.instant
        wallAnchor = wall
    }

    /// Starts where the consoles already open on the store stand (`shared`, while its lease holds), or
    /// at the store's instant when it is later (a write since) or no console is open.
    ///
    ///     var clock = ConsoleClock(store: try store.now(wall: wall), shared: try store.sharedClock(), wall: wall)
    public init(store now: StoreNow, shared: SharedClock?, wall: Instant) {
        var now = now
        if now.source == .store { now.instant = SharedClock.instant(store: now.instant, shared: shared, wall: wall) }
        self.init(store: now, wall: wall)
    }

    /// The console's instant when the wall clock says `wall`.
    public func now(wall: Instant) -> Instant { anchor.adding(Instant.Duration(millis: wall.millis - wallAnchor.millis)) }

    /// Moves the clock up to `instant` if it is behind it (the store's clock moved on); never back.
    public mutating func catchUp(to instant: Instant, wall: Instant) {
        guard instant > now(wall: wall) else { return }
        anchor = instant
        wallAnchor = wall
    }
}
