import Foundation
import StoreDeskCore
import StoreDeskStore
import Testing

/// A read-only command on an idle WAL store (no `-wal` or `-shm` beside it, as a console leaves it when it
/// closes) leaves the folder as it found it: the same files, the same bytes. Before, SQLite's read-only
/// connection made `-wal` and `-shm` and could not remove them.
@Suite(.serialized) struct ReadOnlyCommandsTests {
    /// Every file in the folder with the sha256 of its bytes, by name.
    static func listing(_ folder: URL) throws -> [String: String] {
        var files: [String: String] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() where !name.hasPrefix("std") {
            let path = folder.appendingPathComponent(name).path
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue else { continue }
            files[name] = String(try shell("sha256sum \(RestoreCommandTests.quote(path))").output.prefix(64))
        }
        return files
    }

    /// A demo store in WAL mode, idle, alone in a folder of its own.
    static func idleWALStore(_ home: TemporaryHome) throws -> (folder: URL, path: String) {
        let demo = try HardeningTests.demoStore(home)
        let folder = home.url.appendingPathComponent("stores")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("x.sqlite").path
        try FileManager.default.moveItem(atPath: demo, toPath: path)
        #expect(try shell("sqlite3 \(RestoreCommandTests.quote(path)) 'PRAGMA journal_mode = wal;'").output.contains("wal"))
        try #require(try listing(folder).keys.sorted() == ["x.sqlite"], "idle: no -wal, no -shm")
        return (folder, path)
    }

    static let commands: [[String]] = [
        ["user", "search", "zhang"], ["user", "show", "10000001"], ["user", "history", "10000001", "--json"], ["check"], ["audit"],
        ["restore", "list"], ["find", "10000001"], ["apps", "list"], ["subs", "10000001"], ["snapshot"], ["snapshot", "--screen", "queue"],
    ]

    @Test("read-only commands on an idle WAL store leave the folder's files and their bytes as they were")
    func idleStoreLeftAsFound() throws {
        let home = TemporaryHome()
        let (folder, path) = try Self.idleWALStore(home)
        let before = try Self.listing(folder)
        for arguments in Self.commands {
            let result = try Binary.run(arguments + ["--db", path], home: home, timeout: 60)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            #expect(try Self.listing(folder) == before, "\(arguments) left the folder changed")
        }
        // A refused read (no such user) too.
        let refused = try Binary.run(["user", "show", "nobody-here", "--db", path], home: home, timeout: 60)
        #expect(refused.status != 0)
        #expect(try Self.listing(folder) == before, "a failed read left the folder changed")
    }

    @Test("while another connection holds the store open, a read-only command leaves its -wal and -shm, and that connection still writes")
    func storeInUseKeepsItsFiles() throws {
        let home = TemporaryHome()
        let (folder, path) = try Self.idleWALStore(home)
        let other = try AppDatabase.open(path: path, access: .readWriteConcurrent)
        let clock = try #require(try other.clock())
        try other.remember(clock: clock.adding(.seconds(1)))
        #expect(Set(try Self.listing(folder).keys) == ["x.sqlite", "x.sqlite-wal", "x.sqlite-shm"])
        let result = try Binary.run(["user", "search", "zhang", "--db", path], home: home, timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Set(try Self.listing(folder).keys) == ["x.sqlite", "x.sqlite-wal", "x.sqlite-shm"], "the files the other connection uses stay")
        try other.remember(clock: clock.adding(.seconds(2)))
        #expect(try other.clock() == clock.adding(.seconds(2)))
        let check = try Binary.run(["check", "--db", path], home: home, timeout: 60)
        #expect(check.status == 0, "\(check.stdout) \(check.stderr)")
    }
}
