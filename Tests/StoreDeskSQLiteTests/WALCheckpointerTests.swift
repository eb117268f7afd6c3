import Foundation
import GRDB
import Testing

@testable import StoreDeskSQLite

/// `serve`'s ledger commits through one connection whose autocheckpoint is off while a thread of its own
/// copies the WAL into the store file: the commits land in the file all the same, and the connection gets
/// its autocheckpoint back when it stops.
@Suite struct WALCheckpointerTests {
    /// A store opened as `serve` opens it (a WAL pool), with a table of page-sized rows.
    private func pool(in folder: TemporaryFolder) throws -> DatabasePool {
        try DemoDatasetLoader.build(Fixtures.demo(), at: folder.path("store.sqlite"))
        let database = try AppDatabase.open(path: folder.path("store.sqlite"), access: .readWriteConcurrent)
        let pool = try #require(database.reader as? DatabasePool)
        try pool.write { try $0.execute(sql: "CREATE TABLE filler (id INTEGER PRIMARY KEY, blob BLOB NOT NULL)") }
        return pool
    }

    private func autocheckpoint(_ pool: DatabasePool) throws -> Int? {
        try pool.writeWithoutTransaction { try Int.fetchOne($0, sql: "PRAGMA wal_autocheckpoint") }
    }

    private func fileSize(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
    }

    @Test("commits reach the store file without the writer checkpointing; its autocheckpoint is back after stop")
    func backgroundCopiesTheWAL() throws {
        let folder = TemporaryFolder()
        let pool = try pool(in: folder)
        let before = try autocheckpoint(pool)
        let checkpointer = try #require(WALCheckpointer(pool: pool, interval: 0.01))
        #expect(try autocheckpoint(pool) == 0)
        let fileBefore = fileSize(folder.path("store.sqlite"))
        for index in 0..<200 {
            try pool.write { try $0.execute(sql: "INSERT INTO filler (id, blob) VALUES (?, zeroblob(3000))", arguments: [index]) }
            checkpointer.committed()
        }
        // The writer never copies a short WAL itself: the file grows only through the background pass.
        var grown = false
        for _ in 0..<500 where !grown {
            Thread.sleep(forTimeInterval: 0.01)
            grown = fileSize(folder.path("store.sqlite")) >= fileBefore + 200 * 3000
        }
        #expect(grown)
        checkpointer.stop()
        #expect(try autocheckpoint(pool) == before)
        #expect(try pool.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM filler") } == 200)
    }
}
