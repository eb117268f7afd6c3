import GRDB
import GRDBSQLite
import StoreDeskCore
import StoreDeskStoreAPI

/// Small facts about a store kept in `store_meta`: its clock and what it was built from.
public enum StoreMeta {
    public enum Key: String, Sendable {
        /// The store's own "now" in milliseconds: demo and synthetic data are consistent relative to it.
        case clock
        /// What the store was built from: the demo dataset's name, or the generator's parameters.
        case dataset
        /// How many users the store holds, kept by triggers.
        case userCount = "user_count"
        /// The latest instant a write stamped, in milliseconds, in a store that keeps no clock of its own:
        /// the wall clock may go back, the store's time line may not.
        case stampedThrough = "stamped_through"
        /// Where the open consoles' clock stood at a moment of the wall clock (`SharedClock.stored`).
        case consoleClock = "console_clock"
    }

    public static func set(_ key: Key, _ value: String, in db: Database) throws {
        try db.execute(
            sql: "INSERT INTO store_meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            arguments: [key.rawValue, value])
    }

    public static func get(_ key: Key, in db: Database) throws -> String? {
        try String.fetchOne(db, sql: "SELECT value FROM store_meta WHERE key = ?", arguments: [key.rawValue])
    }

    /// The store's clock; nil when it keeps none. A value that is not a date StoreDesk can work with
    /// (text, or milliseconds outside 1970...9999, from a hand edit) is an error, not a clock: every
    /// date the store computes from it would be wrong or overflow.
    public static func clock(in db: Database) throws -> Instant? {
        guard let text = try get(.clock, in: db) else { return nil }
        guard let millis = Int64(text), Instant(millis: millis).isSupported else {
            throw StoreError.damaged(path: db.storePath, detail: "its clock (store_meta 'clock' = '\(text)') \(clockProblem)")
        }
        return Instant(millis: millis)
    }

    /// What is wrong with a clock `clock` refuses, for its error and `storedesk check`.
    static let clockProblem = StoreCheckRules.clockProblem

    /// The latest instant a write stamped in a store without a clock of its own; nil when none did (or
    /// the value is not a date, which `check` reports through the clock's rule's sibling).
    static func stampedThrough(in db: Database) throws -> Instant? {
        guard let text = try get(.stampedThrough, in: db), let millis = Int64(text) else { return nil }
        let instant = Instant(millis: millis)
        return instant.isSupported ? instant : nil
    }

    /// The instant every surface of this store answers at (see `StoreNow.resolve`).
    public static func now(in db: Database, wall: Instant) throws -> StoreNow {
        StoreNow.resolve(storeClock: try clock(in: db), floor: try stampedThrough(in: db), wall: wall)
    }

    /// The instant a write stamps its rows at: `proposed` (the caller's clock: the console's, or
    /// `AppDatabase.now(wall:)`), but never before the store's clock or the latest stamp already written,
    /// and moves the store's clock (or, in a store without one, its high-water mark) up to it, in the
    /// caller's transaction. So nothing written is stamped before anything already in the store, and a
    /// console or command opened later starts from where the last write left the clock, never earlier.
    ///
    ///     try writeImmediate { db in
    ///         let now = try StoreMeta.stamp(proposed, in: db)
    ///         ... rows stamped `now` ...
    ///     }
    static func stamp(_ proposed: Instant, in db: Database) throws -> Instant {
        let now = try Self.now(in: db, wall: proposed)
        let stamp = max(proposed, now.instant)
        try advance(to: stamp, source: now.source, in: db)
        return stamp
    }

    /// The instant `stamp` would stamp at, moving nothing: for a write that learns only at its end whether
    /// it stamped any row (an import whose lines may all be repeats), and then moves the time line up to
    /// it (`advance`), so a store that took nothing stays as it was.
    static func stampInstant(_ proposed: Instant, in db: Database) throws -> Instant {
        max(proposed, try now(in: db, wall: proposed).instant)
    }

    /// Moves the store's clock up to `instant` (a write stamped rows there); never back.
    static func advance(to instant: Instant, in db: Database) throws {
        try advance(to: instant, source: try clock(in: db) == nil ? .wall : .store, in: db)
    }

    private static func advance(to instant: Instant, source: ClockSource, in db: Database) throws {
        let key: Key = source == .store ? .clock : .stampedThrough
        let old = source == .store ? try clock(in: db) : nil
        try db.execute(
            sql: """
                INSERT INTO store_meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value
                WHERE CAST(store_meta.value AS INTEGER) < CAST(excluded.value AS INTEGER)
                """,
            arguments: [key.rawValue, String(instant.millis)])
        // Subscription rows are kept as they stand at the store's clock: the ones whose period, grace
        // period or billing retry ended between the old clock and the new are written again there.
        if let old, instant > old, try subscriptionEnded(between: old, and: instant, in: db) {
            try SQLiteImportRows.settleRows(db, at: instant)
        }
    }

    /// Whether a subscription row's period, grace period or billing retry ends in `(old, new]`: a probe on
    /// `subscription_on_state` within the longest retry's reach, so a write that moves the clock a little
    /// costs an index probe, not a walk of every row in billing retry.
    static func subscriptionEnded(between old: Instant, and new: Instant, in db: Database) throws -> Bool {
        let limit = SubscriptionSettling.billingRetryLimit(), reach = SubscriptionSettling.realRetry
        let retryEnd = "expires_date + \(limit)"
        let graceEnd = "MIN(COALESCE(grace_period_expires_date, expires_date), \(retryEnd))"
        return try Bool.fetchOne(
            db,
            sql: """
                SELECT EXISTS (SELECT 1 FROM subscription WHERE state = 'active' AND expires_date > :old AND expires_date <= :new)
                  OR EXISTS (SELECT 1 FROM subscription WHERE state = 'grace_period'
                    AND expires_date > :old - \(reach) AND expires_date <= :new AND \(graceEnd) > :old AND \(graceEnd) <= :new)
                  OR EXISTS (SELECT 1 FROM subscription WHERE state = 'billing_retry'
                    AND expires_date > :old - \(reach) AND expires_date <= :new AND \(retryEnd) > :old AND \(retryEnd) <= :new)
                """,
            arguments: ["old": old.millis, "new": new.millis]) ?? false
    }
}

extension AppDatabase {
    /// The store's own clock, when it keeps one (demo and synthetic stores do).
    public func clock() throws -> Instant? { try reader.read { try StoreMeta.clock(in: $0) } }

    /// The instant this store's surfaces answer at when the wall clock says `wall`: its own clock when it
    /// keeps one, else the wall clock, never before the latest stamp written.
    public func now(wall: Instant) throws -> StoreNow { try reader.read { try StoreMeta.now(in: $0, wall: wall) } }

    /// Remembers that time reached `instant` (a console closing at the clock its header showed): the
    /// store's clock, or in a store without one its latest stamp, moves up to it, never back. The next
    /// console or command starts there, so time shown never runs back between sessions either.
    public func remember(clock instant: Instant) throws {
        guard instant.isSupported else { return }
        try writeImmediate { db in try StoreMeta.advance(to: instant, in: db) }
    }

    public func sharedClock() throws -> SharedClock? {
        try reader.read { db in try StoreMeta.get(.consoleClock, in: db).flatMap(SharedClock.init(stored:)) }
    }

    public func share(clock instant: Instant, wall: Instant) throws {
        try writeImmediate { db in
            guard let shared = SharedClock.replacing(try StoreMeta.get(.consoleClock, in: db), instant: instant, wall: wall) else { return }
            try StoreMeta.set(.consoleClock, shared.stored, in: db)
            try StoreMeta.advance(to: instant, in: db)
        }
    }
}

extension AppDatabase {
    /// The number of users, read from the counter the triggers keep (no table scan).
    public func userCount() throws -> Int {
        try reader.read { try StoreMeta.get(.userCount, in: $0).flatMap { Int($0) } ?? 0 }
    }
}

extension Database {
    /// The file this connection reads, for errors raised deep inside a read or a write.
    var storePath: String {
        guard let connection = sqliteConnection, let name = sqlite3_db_filename(connection, "main") else { return "the store" }
        let path = String(cString: name)
        return path.isEmpty ? "the store" : path
    }
}
