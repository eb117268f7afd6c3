import StoreDeskCore

/// The console's one clock: every screen answers at the same instant, the one the header shows, and
/// it is the instant `storedesk subs`, `snapshot` and the golden frames answer at when the console opens.
///
/// A store that keeps a clock of its own (demo and synthetic stores) is shown at that clock, running on
/// in real time from the moment the console opened, so live simulations still move; when the store's
/// clock moves past it (`events import`, a demo subscription another console drives), the console's
/// clock catches up, never back. A store without one is shown at the wall clock.
///
///     var clock = ConsoleClock(storeClock: try store.clock(), wall: Instant(Date()))
///     clock.now(wall: Instant(Date()))   // the store's clock plus the time since
public struct ConsoleClock: Sendable, Equatable {
    /// Which clock the console shows.
    public enum Source: String, Sendable, Equatable {
        case store, wall

        /// How the header names it.
        public var label: String {
            switch self {
            case .store: "store clock"
            case .wall: "wall clock"
            }
        }
    }

    public let source: Source
    /// The console's instant at `wallAnchor` on the wall clock.
    private var anchor: Instant
    private var wallAnchor: Instant

    public init(storeClock: Instant?, wall: Instant) {
        source = storeClock == nil ? .wall : .store
        anchor = storeClock ?? wall
        wallAnchor = wall
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
