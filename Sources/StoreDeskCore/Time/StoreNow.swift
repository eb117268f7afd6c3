/// Which clock a store is judged by: its own (demo and synthetic stores keep one, and every write moves
/// it on) or the wall clock (a store that keeps none).
public enum ClockSource: String, Sendable, Equatable, Codable {
    case store, wall

    /// How a header or a report names it.
    public var label: String {
        switch self {
        case .store: "store clock"
        case .wall: "wall clock"
        }
    }
}

/// The instant one surface of a store (a command, `snapshot`, `serve`, the console) ages and judges
/// at, and which clock it came from: every surface of one store asks the store for it the same way, so
/// they agree.
///
///     let now = try database.now(wall: Instant(Date()))
///     print("at \(now.label)")   // at store clock 2026-11-20T08:02:00Z
public struct StoreNow: Sendable, Equatable {
    public var instant: Instant
    public var source: ClockSource

    public init(instant: Instant, source: ClockSource) {
        self.instant = instant
        self.source = source
    }

    /// `store clock 2026-11-20T08:02:00Z`: what a report notes it answered at.
    public var label: String { source.label + " " + instant.iso8601 }

    /// The instant a store's surfaces answer at: its own clock when it keeps one; otherwise the wall clock,
    /// never earlier than the latest stamp the store holds (`floor`), so time never runs back.
    public static func resolve(storeClock: Instant?, floor: Instant?, wall: Instant) -> StoreNow {
        if let storeClock { return StoreNow(instant: max(storeClock, floor ?? storeClock), source: .store) }
        return StoreNow(instant: max(wall, floor ?? wall), source: .wall)
    }
}
