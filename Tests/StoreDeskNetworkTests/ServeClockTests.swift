import Foundation
import StoreDeskCore
@testable import StoreDeskSQLite
import Testing

/// `storedesk serve` stamps the callbacks it takes on the store's one time line (its clock, or its latest
/// stamp), as every other writer does, not on the wall clock: the real binary on loopback, answered by curl.
@Suite(.serialized) struct ServeClockTests {
    /// The store's callbacks and grants: (received_at, granted_at or nil), in the order written.
    static func stamps(_ path: String) throws -> (callbacks: [Int64], grants: [Int64]) {
        let store = try AppDatabase.open(path: path, access: .readOnly)
        return try store.reader.read { db in
            (try Int64.fetchAll(db, sql: "SELECT received_at FROM game_server_callback ORDER BY id"),
             try Int64.fetchAll(db, sql: "SELECT granted_at FROM game_server_grant ORDER BY callback_id"))
        }
    }

    static func meta(_ path: String, _ key: StoreMeta.Key) throws -> Int64? {
        let store = try AppDatabase.open(path: path, access: .readOnly)
        return try store.reader.read { db in try StoreMeta.get(key, in: db).flatMap { Int64($0) } }
    }

    static let minute: Int64 = 60_000
    static let day: Int64 = 86_400_000

    @Test("a store whose clock is days behind the wall clock: callbacks stamped at its clock, after another process moved it on too, never back")
    func storeClockBehind() throws {
        let folder = TemporaryFolder()
        let path = try galaxyStore(folder)
        let wall = Instant(Date()).millis
        let clock = try #require(try Self.meta(path, .clock))
        try #require(clock < wall - Self.day, "the demo store's clock is behind the wall clock")
        let serve = try ServeProcess(store: path, folder: folder)
        defer { serve.stop() }
        #expect(try ServeTests.curl(serve.url, ServeTests.callback("20260301000101")) == "success 200")
        #expect(try ServeTests.curl(serve.url, ServeTests.callback("20260301000101")) == "success 200")
        // Another process moves the store's clock a day on while serve runs: the next callback is not
        // stamped before it.
        let later = Instant(millis: try #require(try Self.meta(path, .clock)) + Self.day)
        try AppDatabase.open(path: path, access: .readWriteConcurrent).remember(clock: later)
        #expect(try ServeTests.curl(serve.url, ServeTests.callback("20260301000102")) == "success 200")
        #expect(serve.stop() == 0)
        let (callbacks, grants) = try Self.stamps(path)
        try #require(callbacks.count == 3 && grants.count == 2)
        #expect(callbacks[0] >= clock && callbacks[1] < clock + 5 * Self.minute, "on the store's clock, not the wall's: \(callbacks) clock \(clock) wall \(wall)")
        #expect(callbacks[0] <= callbacks[1] && callbacks[1] <= callbacks[2], "never back: \(callbacks)")
        #expect(callbacks[2] >= later.millis && callbacks[2] < later.millis + 5 * Self.minute, "\(callbacks) after \(later.millis)")
        #expect(grants == [callbacks[0], callbacks[2]])
        #expect(try #require(try Self.meta(path, .clock)) >= callbacks[2], "the store's clock moved up to the stamp")
        #expect(try AppDatabase.open(path: path, access: .readOnly).check().isEmpty)
    }

    @Test("a store without a clock whose latest stamp is a year ahead of the wall clock: callbacks stamped after it, and it moves up")
    func stampedThroughAhead() throws {
        let folder = TemporaryFolder()
        let path = try galaxyStore(folder)
        let ahead = Instant(Date()).millis + 365 * Self.day
        try AppDatabase.open(path: path, access: .readWriteConcurrent).write { db in
            try db.execute(sql: "DELETE FROM store_meta WHERE key = 'clock'")
            try StoreMeta.set(.stampedThrough, String(ahead), in: db)
        }
        let serve = try ServeProcess(store: path, folder: folder)
        defer { serve.stop() }
        #expect(try ServeTests.curl(serve.url, ServeTests.callback("20260301000201")) == "success 200")
        #expect(try ServeTests.curl(serve.url, ServeTests.callback("20260301000202")) == "success 200")
        #expect(serve.stop() == 0)
        let (callbacks, grants) = try Self.stamps(path)
        try #require(callbacks.count == 2)
        #expect(callbacks.allSatisfy { $0 >= ahead && $0 < ahead + 5 * Self.minute }, "after the latest stamp \(ahead): \(callbacks)")
        #expect(callbacks[0] <= callbacks[1])
        #expect(grants == callbacks)
        #expect(try #require(try Self.meta(path, .stampedThrough)) >= callbacks[1])
    }
}
