import Foundation
import GRDB
import StoreDeskCore
import Testing
@testable import StoreDeskSQLite

/// What is at `--db` is looked at before anything could block or write.
@Suite struct StoreOpeningTests {
    /// The files beside a store: a read must not leave any where nobody may write.
    func sidecars(_ path: String) -> [String] {
        ["-wal", "-shm", "-journal"].filter { FileManager.default.fileExists(atPath: path + $0) }
    }

    /// A WAL store, as the console leaves it (the file stays in WAL mode once a pool opened it), closed.
    func walStore(_ folder: TemporaryFolder, _ name: String = "wal.sqlite") throws -> String {
        let path = folder.path(name)
        try Fixtures.demoStore(at: path).close()
        let pool = try DatabasePool(path: path)
        try pool.close()
        #expect(sidecars(path).isEmpty)
        return path
    }

    /// Before: `open` waited for a writer on the fifo forever. Every access refuses it by its kind.
    @Test func aFifoIsRefusedWithoutOpeningIt() throws {
        let folder = TemporaryFolder()
        let path = folder.path("pipe.sqlite")
        #expect(mkfifo(path, 0o644) == 0)
        for access in [AppDatabase.Access.readOnly, .readWrite, .readWriteConcurrent] {
            #expect(throws: StoreError.notRegularFile(path: path, kind: "a fifo (named pipe)")) {
                try AppDatabase.open(path: path, access: access)
            }
        }
        #expect(
            StoreError.notRegularFile(path: path, kind: "a fifo (named pipe)").description
                == "\(path) is a fifo (named pipe), not a store file: --db takes a SQLite file")
    }

    @Test func aDirectoryOrADeviceIsRefusedByItsKind() throws {
        let folder = TemporaryFolder()
        #expect(throws: StoreError.notRegularFile(path: folder.url.path, kind: "a directory")) {
            try AppDatabase.open(path: folder.url.path, access: .readOnly)
        }
        #expect(throws: StoreError.notRegularFile(path: "/dev/null", kind: "a character device")) {
            try AppDatabase.open(path: "/dev/null", access: .readOnly)
        }
    }

    /// Before: a write refused on a 0444 WAL store had already opened it to read its schema, which left
    /// `-wal` and `-shm` beside it; and every read did the same.
    @Test func aReadOnlyWALStoreIsReadAndRefusedWithoutFilesBesideIt() throws {
        let folder = TemporaryFolder()
        let path = try walStore(folder)
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: path)
        let before = Fixtures.checksum(path)
        for access in [AppDatabase.Access.readWrite, .readWriteConcurrent] {
            #expect(throws: StoreError.notWritable(path: path, reason: "it is read-only (mode 444)")) {
                try AppDatabase.open(path: path, access: access)
            }
            #expect(sidecars(path).isEmpty)
        }
        let store = try AppDatabase.open(path: path, access: .readOnly)
        #expect(try store.user(id: "10000001")?.name == "张伟")
        #expect(try store.check().isEmpty)
        try store.close()
        #expect(sidecars(path).isEmpty)
        #expect(Fixtures.checksum(path) == before)
    }

    /// A WAL store with its log in use is read through the log, not as immutable (which would miss the
    /// newest commits).
    @Test func aReadOnlyWALStoreWithALiveLogShowsItsNewestCommits() throws {
        let folder = TemporaryFolder()
        let path = try walStore(folder)
        let writer = try DatabasePool(path: path)
        try writer.write { try $0.execute(sql: "UPDATE user SET name = 'renamed' WHERE id = '10000001'") }
        #expect(FileManager.default.fileExists(atPath: path + "-wal"))
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: path)
        let store = try AppDatabase.open(path: path, access: .readOnly)
        #expect(try store.user(id: "10000001")?.name == "renamed")
        try writer.close()
    }

    @Test func whyAStoreCannotBeWrittenIsSaid() throws {
        let folder = TemporaryFolder()
        let path = try walStore(folder)
        #expect(try AppDatabase.whyNotWritable(path: path) == nil)
        try FileManager.default.setAttributes([.posixPermissions: 0o400], ofItemAtPath: path)
        #expect(try AppDatabase.whyNotWritable(path: path) == "it is read-only (mode 400)")
        let text = StoreError.notWritable(path: path, reason: "it is read-only (mode 400)").description
        #expect(text.contains("commands that only read it work as they are"))
        #expect(!text.contains("--readonly"))
    }

    /// A relative name that starts with `file:` is a file, not a SQLite URI.
    @Test func aFileNamedLikeAURIIsThatFile() throws {
        let folder = TemporaryFolder()
        try Fixtures.demoStore(at: folder.path("file:demo.sqlite")).close()
        let here = FileManager.default.currentDirectoryPath
        #expect(FileManager.default.changeCurrentDirectoryPath(folder.url.path))
        defer { _ = FileManager.default.changeCurrentDirectoryPath(here) }
        let store = try AppDatabase.open(path: "file:demo.sqlite", access: .readWrite)
        #expect(try store.user(id: "10000001") != nil)
        #expect(!FileManager.default.fileExists(atPath: folder.path("demo.sqlite")))
    }
}
