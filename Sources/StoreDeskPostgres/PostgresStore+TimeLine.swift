import Foundation
import PostgresNIO
import StoreDeskCore
import StoreDeskStoreAPI

/// The store's time line on PostgreSQL: the same instant the SQLite store answers at (`StoreNow.resolve`
/// over the clock and the latest stamp in `store_meta`), moved up only, under the clock row's lock.
extension PostgresStore: StoreTimeLine {
    public func now(wall: Instant) throws -> StoreNow {
        try session.transaction(readOnly: true) { db in try storeNow(db, wall: wall) }
    }

    public func remember(clock instant: Instant) throws {
        guard instant.isSupported else { return }
        guard !isReadOnly else { throw RestoreRefusal.readOnly }
        try write { db in try advance(to: instant, db) }
    }

    public func sharedClock() throws -> SharedClock? {
        try session.rows("SELECT value FROM store_meta WHERE key = 'console_clock'").first
            .flatMap { SharedClock(stored: try $0.decode(String.self)) }
    }

    /// As the SQLite store's: under the clock rows' lock, so two consoles' writes land in order.
    public func share(clock instant: Instant, wall: Instant) throws {
        guard !isReadOnly else { throw RestoreRefusal.readOnly }
        try write { db in
            _ = try clockRows(db, locking: true)
            let stored = try db.rows("SELECT value FROM store_meta WHERE key = 'console_clock' FOR UPDATE").first?.decode(String.self)
            guard let value = SharedClock.replacing(stored, instant: instant, wall: wall)?.stored else { return }
            try db.run(
                "INSERT INTO store_meta (key, value) VALUES ('console_clock', \(value)) ON CONFLICT (key) DO UPDATE SET value = excluded.value")
            try advance(to: instant, db)
        }
    }
}
