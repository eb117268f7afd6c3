import Foundation
import GRDB
import StoreDeskCore
import Testing
@testable import StoreDeskSQLite

/// `check` finds what the reads refuse: a column the migrations make and a hand edit
/// dropped, a table gone, an enum column holding a value its decoder does not take. And a write open
/// refuses such a store before it writes a byte.
@Suite struct StoreCheckDecodingTests {
    /// A demo store at its own path, edited through a connection of its own as a hand edit would.
    func store(_ folder: TemporaryFolder, edit: String) throws -> String {
        let path = folder.path("store.sqlite")
        try Fixtures.demoStore(at: path).close()
        let queue = try DatabaseQueue(path: path)
        try queue.writeWithoutTransaction { try $0.execute(sql: edit) }
        try queue.close()
        return path
    }

    /// The `user` table without its CHECK constraints (and without `dropping`): renamed away and copied
    /// back with `CREATE TABLE ... AS`, in rowid order (references in other tables keep naming `user`).
    func rebuildUser(dropping: [String] = []) -> String {
        let columns = StoreCheck.expectedSchema.first { $0.table == "user" }?.names ?? []
        let kept = columns.filter { $0 != "rowid" && !dropping.contains($0) }.joined(separator: ", ")
        return "PRAGMA foreign_keys = OFF; PRAGMA legacy_alter_table = ON; ALTER TABLE user RENAME TO user_before_edit; "
            + "CREATE TABLE user AS SELECT \(kept) FROM user_before_edit ORDER BY rowid; DROP TABLE user_before_edit; "
            + "CREATE UNIQUE INDEX user_id_key ON user(id);"
    }

    @Test func theExpectedSchemaIsTheMigrations() throws {
        let tables = Dictionary(StoreCheck.expectedSchema.map { ($0.table, $0.names) }, uniquingKeysWith: { $1 })
        #expect(tables["user"]?.contains("phone") == true)
        #expect(tables["item_grant"] != nil)
        #expect(tables["grdb_migrations"] != nil)
        // The full-text index's inner tables are SQLite's, not the schema's.
        #expect(!tables.keys.contains { $0.hasPrefix("user_search") })
        // A fresh store is clean by these rules too.
        let queue = try DatabaseQueue()
        try SQLiteMigrations.migrator.migrate(queue)
        #expect(try queue.read { try StoreCheck.decodingViolations($0) } == [])
    }

    @Test func findsAnEnumValueNoDecoderTakes() throws {
        let folder = TemporaryFolder()
        let path = try store(
            folder,
            edit: rebuildUser()
                + "UPDATE user SET site = 'x' WHERE id = '10000001'; UPDATE user SET adult_type = NULL WHERE id = '10000002';"
                + "UPDATE user SET site = 5 WHERE id = '10000003'; UPDATE user SET created_at = 'abc' WHERE id = '10000004';"
                + "PRAGMA ignore_check_constraints = ON; UPDATE store_transaction SET state = 'lost' WHERE id = (SELECT MIN(id) FROM store_transaction);")
        let database = try AppDatabase.open(path: path, access: .readOnly)
        // The read says damaged ...
        #expect(throws: (any Error).self) { try database.user(id: "10000001") }
        // ... and check says where.
        let found = try database.check().filter { $0.kind == "value_unreadable" }
        #expect(found.contains { $0.subject == "10000001" && $0.message == "user '10000001': site 'x' is not a whole number" })
        #expect(found.contains { $0.subject == "10000003" && $0.message == "user '10000003': site 5 is not one StoreDesk reads (0, 1, 3, 8, 9, 10)" })
        #expect(found.contains { $0.subject == "10000004" && $0.message == "user '10000004': created_at 'abc' is not a whole number" })
        #expect(found.contains { $0.subject == "10000002" && $0.message == "user '10000002': adult_type is NULL" })
        #expect(found.contains { $0.message.contains("state 'lost'") && $0.message.contains("'purchasing'") })
        #expect(found.count == 5)
    }

    @Test func findsAJSONListAReadRefuses() throws {
        let folder = TemporaryFolder()
        for (stored, shown) in [("'not json'", "'not json'"), ("'[\"APPLE_LOGIN\",\"BOGUS\"]'", "'[\"APPLE_LOGIN\",\"BOGUS\"]'"), ("'{}'", "'{}'")] {
            let path = try store(folder, edit: "UPDATE login_entry_configuration SET entries = \(stored) WHERE app_id = '1001';")
            let database = try AppDatabase.open(path: path, access: .readOnly)
            // The read says damaged, through the store's own error, naming the table ...
            #expect(throws: StoreError.damaged(path: path, detail: "a value in table login_entry_configuration (stored as JSON) cannot be read")) {
                try database.loginEntrySetup(appId: "1001")
            }
            #expect(
                StoreError(failure: UnreadableValue(detail: "d"), path: path) == .damaged(path: path, detail: "d"))
            // ... and check names the row.
            let found = try database.check()
            #expect(found.count == 1 && found.first?.kind == "value_unreadable" && found.first?.subject == "1001", "\(found)")
            #expect(found.first?.message.hasPrefix("login_entry_configuration '1001': entries \(shown) is not a JSON list of 'APPLE_LOGIN'") == true)
            try FileManager.default.removeItem(atPath: path)
            for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
    }

    @Test func findsADroppedColumnAndTableAndRefusesToWriteThere() throws {
        let folder = TemporaryFolder()
        let path = try store(folder, edit: rebuildUser(dropping: ["phone"]) + "PRAGMA foreign_keys = OFF; DROP TABLE item_grant;")
        let before = Fixtures.checksum(path)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        for access in [AppDatabase.Access.readWrite, .readWriteConcurrent] {
            #expect(throws: StoreError.damaged(path: path, detail: "table item_grant is missing (the schema was changed outside StoreDesk)")) {
                try AppDatabase.open(path: path, access: access)
            }
        }
        #expect(Fixtures.checksum(path) == before)
        for suffix in ["-wal", "-shm"] { #expect(!FileManager.default.fileExists(atPath: path + suffix)) }
        let violations = try AppDatabase.open(path: path, access: .readOnly).check()
        #expect(violations.contains { $0.kind == "schema_column_missing" && $0.subject == "user.phone" })
        #expect(violations.contains { $0.kind == "schema_table_missing" && $0.subject == "item_grant" })
    }

    @Test func aGarbageClockIsRefusedBeforeAWriterTouchesTheFile() throws {
        let folder = TemporaryFolder()
        let path = try store(folder, edit: "UPDATE store_meta SET value = 'garbage-clock' WHERE key = 'clock'; PRAGMA journal_mode = DELETE;")
        let before = Fixtures.checksum(path)
        #expect(throws: StoreError.self) { try AppDatabase.open(path: path, access: .readWriteConcurrent) }
        #expect(Fixtures.checksum(path) == before)
        for suffix in ["-wal", "-shm"] { #expect(!FileManager.default.fileExists(atPath: path + suffix)) }
        // `check` still opens it, and names the clock.
        #expect(try AppDatabase.open(path: path, access: .readOnly).check().contains { $0.kind == "store_clock_invalid" })
    }

    @Test func aStoreDestinationMustBeNothingOrAFile() throws {
        let folder = TemporaryFolder()
        let fifo = folder.path("fifo"), loop = folder.path("loop"), dangling = folder.path("dangling"), file = folder.path("file")
        #expect(mkfifo(fifo, 0o644) == 0)
        #expect(symlink(loop, loop) == 0)
        #expect(symlink(folder.path("none/x"), dangling) == 0)
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        for replacing in [false, true] {
            #expect(throws: StoreError.notRegularFile(path: "/dev/null", kind: "a character device")) {
                try StoreDestination.check("/dev/null", replacing: replacing)
            }
            #expect(throws: StoreError.notRegularFile(path: fifo, kind: "a fifo (named pipe)")) { try StoreDestination.check(fifo, replacing: replacing) }
            #expect(throws: StoreError.notRegularFile(path: loop, kind: "a symbolic link loop")) { try StoreDestination.check(loop, replacing: replacing) }
            #expect(throws: StoreError.notRegularFile(path: dangling, kind: "a dangling symbolic link (to \(folder.path("none/x")))")) {
                try StoreDestination.check(dangling, replacing: replacing)
            }
            #expect(throws: StoreError.notRegularFile(path: folder.url.path, kind: "a directory")) {
                try StoreDestination.check(folder.url.path, replacing: replacing)
            }
        }
        #expect(throws: StoreError.exists(path: file)) { try StoreDestination.check(file, replacing: false) }
        try StoreDestination.check(file, replacing: true)
        try StoreDestination.check(folder.path("new.sqlite"), replacing: false)
        // Opening them says the same.
        #expect(throws: StoreError.notRegularFile(path: loop, kind: "a symbolic link loop")) { try AppDatabase.open(path: loop, access: .readOnly) }
        #expect(throws: StoreError.notRegularFile(path: dangling, kind: "a dangling symbolic link (to \(folder.path("none/x")))")) {
            try AppDatabase.open(path: dangling, access: .readWrite)
        }
    }
}
