/// Where the clock of the consoles open on a store stood at a moment of the wall clock: every open console
/// writes it a few seconds apart (`interval`), and a console opening on the same store starts from it, so
/// two consoles on one store show one clock, not the second one the last write's instant.
///
/// It holds for `lease` after it was written: a console that closed (or died) stops renewing it, and the
/// next console, minutes later, starts at the store's clock again, where the last console left it.
///
///     let shared = SharedClock(instant: consoleNow, wall: Instant(Date()))
///     shared.now(wall: later)   // consoleNow + (later - wall), while the lease holds
public struct SharedClock: Sendable, Equatable {
    /// The consoles' instant when the wall clock said `wall`.
    public var instant: Instant
    public var wall: Instant

    /// How often an open console writes where its clock stands.
    public static let interval: Instant.Duration = .seconds(5)
    /// How long after it was written a shared clock still tells an opening console where the others are:
    /// three intervals, so one late write (a busy store) does not break it.
    public static let lease: Instant.Duration = .seconds(15)

    public init(instant: Instant, wall: Instant) {
        self.instant = instant
        self.wall = wall
    }

    /// The open consoles' instant when the wall clock says `wall`; nil once the lease is over, or when the
    /// wall clock reads before the moment it was written (it went back: no console can be trusted to it).
    public func now(wall now: Instant) -> Instant? {
        let elapsed = now.millis - wall.millis
        guard elapsed >= 0, elapsed <= Self.lease.millis else { return nil }
        return instant.adding(Instant.Duration(millis: elapsed))
    }

    /// The later of the store's clock and the open consoles' (`shared`, while its lease holds): where a
    /// console opening, or one learning the store changed, stands.
    public static func instant(store clock: Instant, shared: SharedClock?, wall: Instant) -> Instant {
        guard let running = shared?.now(wall: wall), running > clock else { return clock }
        return running
    }

    /// What a console at `instant` when the wall clock says `wall` writes over the `stored` value: itself,
    /// unless the stored one is ahead of it at `wall` (another console's, never taken back), or either
    /// instant is not one a store keeps (nil: write nothing). Every backend's `share(clock:wall:)` asks this.
    public static func replacing(_ stored: String?, instant: Instant, wall: Instant) -> SharedClock? {
        guard instant.isSupported, wall.isSupported else { return nil }
        if let ahead = stored.flatMap(SharedClock.init(stored:))?.now(wall: wall), ahead > instant { return nil }
        return SharedClock(instant: instant, wall: wall)
    }

    /// How the store keeps it: `INSTANT WALL` in milliseconds.
    public var stored: String { "\(instant.millis) \(wall.millis)" }

    /// A stored value read back; nil for one that is not two supported instants (nothing to start from).
    public init?(stored: String) {
        let parts = stored.split(separator: " ")
        guard parts.count == 2, let instant = Int64(parts[0]), let wall = Int64(parts[1]) else { return nil }
        let (i, w) = (Instant(millis: instant), Instant(millis: wall))
        guard i.isSupported, w.isSupported else { return nil }
        self.init(instant: i, wall: w)
    }
}
