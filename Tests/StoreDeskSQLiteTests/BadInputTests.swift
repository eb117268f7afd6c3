import Foundation
import GRDB
import StoreDeskCore
import Testing
@testable import StoreDeskSQLite

/// Each bad input gets one clear error naming the file or value, and the file stays byte for byte.
@Suite struct BadInputTests {
    @Test func aFileThatIsNotSQLite() throws {
        let folder = TemporaryFolder()
        let path = folder.path("notes.txt")
        try Data("hello, not a database\n".utf8).write(to: URL(fileURLWithPath: path))
        let before = Fixtures.checksum(path)
        for access in [AppDatabase.Access.readOnly, .readWrite, .readWriteConcurrent] {
            #expect(throws: StoreError.notSQLite(path: path)) { try AppDatabase.open(path: path, access: access, migrate: true) }
        }
        #expect(Fixtures.checksum(path) == before)
        #expect(StoreError.notSQLite(path: path).description == "\(path) is not a SQLite database")
    }

    @Test func aSQLiteFileThatIsNotAStore() throws {
        let folder = TemporaryFolder()
        let path = folder.path("other.sqlite")
        let queue = try DatabaseQueue(path: path)
        try queue.write { try $0.execute(sql: "CREATE TABLE t(x)") }
        try queue.close()
        let before = Fixtures.checksum(path)
        #expect(throws: StoreError.notAStore(path: path)) { try AppDatabase.open(path: path, access: .readWrite, migrate: true) }
        #expect(Fixtures.checksum(path) == before)
    }

    @Test func aStoreFromANewerStoreDesk() throws {
        let folder = TemporaryFolder()
        let path = folder.path("future.sqlite")
        let store = try Fixtures.demoStore(at: path)
        try store.write { try $0.execute(sql: "INSERT INTO grdb_migrations VALUES ('v99-from-the-future')") }
        try store.close()
        let before = Fixtures.checksum(path)
        #expect(throws: StoreError.newerSchema(path: path, unknown: ["v99-from-the-future"])) {
            try AppDatabase.open(path: path, access: .readWriteConcurrent, migrate: true)
        }
        #expect(Fixtures.checksum(path) == before)
    }

    @Test func aStoreWithAnOlderSchemaIsNotMigratedWithoutTheFlag() throws {
        let folder = TemporaryFolder()
        let path = folder.path("old.sqlite")
        let queue = try DatabaseQueue(path: path)
        try queue.write { try $0.execute(sql: "CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)") }
        try queue.close()
        let before = Fixtures.checksum(path)
        #expect(throws: StoreError.olderSchema(path: path, missing: SQLiteMigrations.migrator.migrations)) {
            try AppDatabase.open(path: path, access: .readWrite)
        }
        #expect(throws: StoreError.olderSchema(path: path, missing: SQLiteMigrations.migrator.migrations)) {
            try AppDatabase.open(path: path, access: .readOnly)
        }
        #expect(Fixtures.checksum(path) == before)
        // With the flag it is upgraded, by a command that only reads too (`check --migrate`, which the
        // refusal's "rerun with --migrate" sends the user to), and that command still only reads.
        let upgraded = try AppDatabase.open(path: path, access: .readOnly, migrate: true)
        #expect(upgraded.isReadOnly)
        #expect(try upgraded.check().isEmpty)
        #expect(try AppDatabase.inspect(StorePath(path: path)).isEmpty)
    }

    @Test func aReadOnlyFileIsNotOpenedForWriting() throws {
        let folder = TemporaryFolder()
        let path = folder.path("ro.sqlite")
        try Fixtures.demoStore(at: path).close()
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: path)
        let before = Fixtures.checksum(path)
        #expect(throws: StoreError.notWritable(path: path, reason: "it is read-only (mode 444)")) {
            try AppDatabase.open(path: path, access: .readWriteConcurrent)
        }
        // Reading it is fine.
        #expect(try AppDatabase.open(path: path, access: .readOnly).user(id: "10000001") != nil)
        #expect(Fixtures.checksum(path) == before)
    }

    @Test func aFileLockedByAnotherWriter() throws {
        let folder = TemporaryFolder()
        let path = folder.path("locked.sqlite")
        try Fixtures.demoStore(at: path).close()
        // A rollback-journal file mid-write, as `sqlite3 FILE` inside BEGIN EXCLUSIVE leaves it.
        let holder = try DatabaseQueue(path: path)
        try holder.writeWithoutTransaction { try $0.execute(sql: "PRAGMA journal_mode = DELETE") }
        let before = Fixtures.checksum(path)
        try holder.inTransaction(.exclusive) { db in
            try db.execute(sql: "UPDATE store_meta SET value = value WHERE key = 'clock'")
            // Each open waits its turn (here 0.2 s, not the minute a command waits) before it says so.
            AppDatabase.$lockWait.withValue(200) {
                #expect(throws: StoreError.locked(path: path)) { try AppDatabase.open(path: path, access: .readOnly) }
                #expect(throws: StoreError.locked(path: path)) { try AppDatabase.open(path: path, access: .readWrite) }
            }
            return .rollback
        }
        #expect(Fixtures.checksum(path) == before)
        #expect(StoreError.locked(path: path).description == "\(path) is locked by another process: try again when it is done")
    }

    @Test func aWALFileHeldInExclusiveLockingMode() throws {
        let folder = TemporaryFolder()
        let path = folder.path("held.sqlite")
        try Fixtures.demoStore(at: path).close()
        var config = Configuration()
        config.prepareDatabase { try $0.execute(sql: "PRAGMA locking_mode = EXCLUSIVE") }
        let holder = try DatabaseQueue(path: path, configuration: config)
        try holder.write { try $0.execute(sql: "UPDATE store_meta SET value = value WHERE key = 'clock'") }
        AppDatabase.$lockWait.withValue(200) {
            #expect(throws: StoreError.locked(path: path)) { try AppDatabase.open(path: path, access: .readOnly) }
        }
        try holder.close()
        #expect(try AppDatabase.open(path: path, access: .readOnly).user(id: "10000001") != nil)
    }

    @Test func aMissingStore() throws {
        let path = TemporaryFolder().path("nowhere.sqlite")
        #expect(throws: StoreError.missing(path: path)) { try AppDatabase.open(path: path, access: .readOnly) }
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func anUnknownUser() throws {
        let folder = TemporaryFolder()
        let store = try Fixtures.demoStore(at: folder.path("demo.sqlite"))
        #expect(throws: StoreError.unknownUser(id: "nobody")) { try store.profile(userId: "nobody") }
        #expect(StoreError.unknownUser(id: "nobody").description == "no user with id 'nobody'")
    }

    /// A copy of the demo dataset to break.
    func copyOfDemoData(_ folder: TemporaryFolder) throws -> URL {
        let source = try DemoDatasetLoader.embeddedDirectory(environment: [:])
        let copy = folder.url.appendingPathComponent("Data")
        try FileManager.default.copyItem(at: source, to: copy)
        return copy
    }

    @Test func aMissingDataFile() throws {
        let folder = TemporaryFolder()
        let data = try copyOfDemoData(folder)
        try FileManager.default.removeItem(at: data.appendingPathComponent("users.json"))
        let store = folder.path("default.sqlite")
        #expect(throws: StoreError.dataFile(path: data.appendingPathComponent("users.json").path, message: "missing or unreadable")) {
            try DefaultStore.ensure(at: store, environment: ["STOREDESK_DATA": data.path])
        }
        #expect(!FileManager.default.fileExists(atPath: store))
    }

    @Test func aMalformedDataFileNamesTheFileAndThePlace() throws {
        let folder = TemporaryFolder()
        let data = try copyOfDemoData(folder)
        let users = data.appendingPathComponent("users.json")
        var text = try String(contentsOf: users, encoding: .utf8)
        text = text.replacingOccurrences(of: "\"site\": 8", with: "\"site\": \"WeChat\"")
        try text.write(to: users, atomically: true, encoding: .utf8)
        let store = folder.path("default.sqlite")
        do {
            try DefaultStore.ensure(at: store, environment: ["STOREDESK_DATA": data.path])
            Issue.record("a malformed file was accepted")
        } catch let error as StoreError {
            guard case .dataFile(let path, let message) = error else { throw error }
            #expect(path == users.path)
            #expect(message.contains("site"))
            #expect(!error.description.contains("\n"))
        }
        try "[ {".write(to: users, atomically: true, encoding: .utf8)
        #expect(throws: StoreError.self) { try DefaultStore.ensure(at: store, environment: ["STOREDESK_DATA": data.path]) }
        #expect(!FileManager.default.fileExists(atPath: store))
    }

    @Test func aDataFileThatBreaksTheSchemaLeavesNoHalfBuiltStore() throws {
        let folder = TemporaryFolder()
        let data = try copyOfDemoData(folder)
        let grants = data.appendingPathComponent("grants.json")
        let text = try String(contentsOf: grants, encoding: .utf8).replacingOccurrences(of: "\"kind\": \"product\"", with: "\"kind\": \"gift\"")
        try text.write(to: grants, atomically: true, encoding: .utf8)
        let store = folder.path("default.sqlite")
        #expect(throws: (any Error).self) { try DefaultStore.ensure(at: store, environment: ["STOREDESK_DATA": data.path]) }
        #expect(!FileManager.default.fileExists(atPath: store))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0.contains("building") }
        #expect(leftovers.isEmpty)
    }
}
