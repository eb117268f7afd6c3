import Foundation
import StoreDeskCore
import StoreDeskSQLite
import Testing

/// A read-only command on an idle WAL store (no `-wal` or `-shm` beside it, as a console leaves it when it
/// closes) leaves the store's bytes as it found them, succeeding or failing. SQLite's read-only connection
/// makes an empty `-wal` and a `-shm` beside it, as any SQLite reader does, and cannot remove them; removing
/// them with a second connection that may write was tried and cost 3.5 ms a command (a first frame of 6.7 ms
/// became 10.2), every time, since each run then made them afresh.
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

    @Test("read-only commands on an idle WAL store leave its bytes as they were, and write nothing beside it")
    func idleStoreLeftAsFound() throws {
        let home = TemporaryHome()
        let (folder, path) = try Self.idleWALStore(home)
        let before = try Self.listing(folder)
        func unchanged(_ what: String) throws {
            let now = try Self.listing(folder)
            #expect(now["x.sqlite"] == before["x.sqlite"], "\(what) changed the store's bytes")
            // SQLite's own files of a reader, the log empty: nothing written.
            #expect(Set(now.keys).isSubset(of: ["x.sqlite", "x.sqlite-wal", "x.sqlite-shm"]), "\(what): \(now.keys.sorted())")
            let log = (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
            #expect(log == 0, "\(what) wrote \(log ?? 0) bytes to the log")
        }
        for arguments in Self.commands {
            let result = try Binary.run(arguments + ["--db", path], home: home, timeout: 60)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            try unchanged("\(arguments)")
        }
        // A refused read (no such user) too.
        let refused = try Binary.run(["user", "show", "nobody-here", "--db", path], home: home, timeout: 60)
        #expect(refused.status != 0)
        try unchanged("a failed read")
    }
}
