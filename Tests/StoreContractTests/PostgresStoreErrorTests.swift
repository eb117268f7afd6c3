import Foundation
import PostgresClusterSupport
import StoreDeskCore
import StoreDeskPostgres
import StoreDeskSQLite
import StoreDeskStoreAPI
import Testing

/// What only a server can do wrong, each said in one line that names the store and never the SQL: an
/// address with a password, a port nobody listens on, a wrong password, a database that is missing or
/// holds no store, a write on a read-only store.
@Suite(.serialized) struct PostgresStoreErrorTests {
    static func oneLine(_ body: () throws -> Void) -> String {
        do {
            try body()
            return "(no error)"
        } catch {
            return "\(error)"
        }
    }

    /// A password file of the test's own (mode 600) holding `lines`, removed when the test ends.
    final class Passfile {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("storedesk-pgpass-" + UUID().uuidString)
        var path: String { folder.appendingPathComponent("pgpass").path }

        init(_ lines: String) throws {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try write(lines)
        }

        deinit { try? FileManager.default.removeItem(at: folder) }

        func write(_ lines: String, mode: Int = 0o600) throws {
            try lines.write(toFile: path, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
        }
    }

    /// The server drops the store's connections mid-session (as a restart or a network cut would): the
    /// step that was under way fails in one line that says so, the next one reconnects and works; the
    /// commit watcher counts the loss as a change, never waits on the network to say so, makes its LISTEN
    /// connection again on its own, and hears the next commit.
    @Test func aLostConnectionIsOneLineAndTheNextStepReconnects() throws {
        let stores = try ContractStores.get()
        let store = try stores.postgres()
        let other = try PostgresStore.open(store.address, access: .readWrite)
        let watcher = try store.commitWatcher()
        _ = try watcher.changed()
        #expect(try store.userCount() == 40)
        let database = store.address.database
        try stores.cluster.psql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(database)' AND pid <> pg_backend_pid()")

        // The watcher: the loss is a change, said at once; asking never blocks.
        var lossSeen = false, slowest = 0.0
        for _ in 0..<40 where !lossSeen {
            let start = Date()
            lossSeen = try watcher.changed()
            slowest = max(slowest, Date().timeIntervalSince(start))
            if !lossSeen { Thread.sleep(forTimeInterval: 0.05) }
        }
        #expect(lossSeen, "the watcher did not notice its connection was dropped")
        #expect(slowest < 0.05, "changed() waited \(slowest) s")

        // The store: the step under way fails in one line naming the store; the next reconnects.
        let failed = Self.oneLine { _ = try store.userCount() }
        if failed != "(no error)" {
            #expect(failed.hasPrefix(store.address.description) && failed.hasSuffix("the connection to the server was lost"), "\(failed)")
            #expect(!failed.contains("\n") && !failed.contains("SELECT"), "\(failed)")
        }
        #expect(try store.userCount() == 40)

        // The watcher listens again (its return is a change of its own, taken here once the server shows the
        // new LISTEN) and hears a commit made on another connection.
        func listening() throws -> Bool {
            let n = try stores.cluster.psql("SELECT count(*) FROM pg_stat_activity WHERE datname = '\(database)' AND query ILIKE 'LISTEN%'")
            return (Int(n.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) > 0
        }
        var back = false
        let deadline = Date().addingTimeInterval(10)
        while !back && Date() < deadline {
            back = try watcher.changed() && listening()
            if !back { Thread.sleep(forTimeInterval: 0.02) }
        }
        #expect(back, "the watcher did not listen again")
        _ = Self.oneLine { try other.recordAudit(AuditEntry(at: Instant(millis: 0), actor: "a", role: "support", action: "x", subject: "y", detail: "z")) }
        try other.recordAudit(AuditEntry(at: Instant(millis: 0), actor: "a", role: "support", action: "x", subject: "y", detail: "z"))
        var heard = false
        for _ in 0..<60 where !heard {
            heard = try watcher.changed()
            if !heard { Thread.sleep(forTimeInterval: 0.05) }
        }
        #expect(heard, "a commit after the reconnect was not heard")
    }

    @Test func anAddressIsReadAsLibpqWritesItAndAPasswordInItIsRefused() throws {
        let address = try PostgresAddress("postgres://li.na@db.example:6543/team?sslmode=require&application_name=desk", environment: ["HOME": "/home/li"])
        #expect(address.description == "postgres://li.na@db.example:6543/team")
        #expect(address.tls == .require && address.passfile == "/home/li/.pgpass" && address.applicationName == "desk")
        #expect(try PostgresAddress("postgresql://u@h/d", environment: ["PGPASSFILE": "/p"]).passfile == "/p")
        #expect(try PostgresAddress("postgres://u@h/d", environment: [:]).port == 5432)
        for bad in ["postgres://u:secret@h/d", "postgres://u@h/d?password=secret", "postgres://u@h/d?sslmode=sometimes", "postgres:///d", "postgres://u@h:99999/d", "postgres://u@h/d?colour=red"] {
            let said = Self.oneLine { _ = try PostgresAddress(bad, environment: [:]) }
            #expect(!said.contains("secret") && !said.contains("\n") && said != "(no error)", "\(bad): \(said)")
        }
    }

    @Test func aPassfileIsReadAsLibpqReadsIt() throws {
        let passfile = try Passfile("# team\nother:5432:*:*:nope\nh:5432:d:u:pa\\:ss\\\\word\n*:*:*:*:fallback\n")
        let file = passfile.path
        #expect(try PostgresAddress("postgres://u@h/d?passfile=\(file)").password() == "pa:ss\\word")
        #expect(try PostgresAddress("postgres://x@y/z?passfile=\(file)").password() == "fallback")
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file)
        let said = Self.oneLine { _ = try PostgresAddress("postgres://u@h/d?passfile=\(file)").password() }
        #expect(said.contains("chmod 600") && !said.contains("pa:ss"), "\(said)")
    }

    @Test func aServerThatIsNotThereOrRefusesIsOneLine() throws {
        let stores = try ContractStores.get()
        let cluster = stores.cluster
        let nobody = try PostgresCluster.freePort()
        let refused = Self.oneLine { _ = try PostgresStore.open(try PostgresAddress("postgres://u@127.0.0.1:\(nobody)/d"), access: .readWrite) }
        #expect(refused.hasPrefix("postgres://u@127.0.0.1:\(nobody)/d: cannot reach the server") && !refused.contains("\n"), "\(refused)")

        // A root certificate file that is not there is said in words (it read `noSuchFilesystemObject`).
        let noRoot = Self.oneLine {
            _ = try PostgresStore.open(
                try PostgresAddress("postgres://u@127.0.0.1:\(nobody)/d?sslmode=verify-full&sslrootcert=/nonexistent/root.crt"), access: .readWrite)
        }
        #expect(noRoot.contains("sslrootcert=/nonexistent/root.crt: no such file") && !noRoot.contains("noSuchFilesystemObject"), "\(noRoot)")

        let missing = Self.oneLine { _ = try PostgresStore.open(try PostgresAddress(cluster.url(database: "no_such_db")), access: .readWrite) }
        #expect(missing.hasSuffix("the server has no database 'no_such_db'"), "\(missing)")

        try cluster.psql("CREATE DATABASE not_a_store")
        try cluster.psql("CREATE TABLE notes (id int)", database: "not_a_store")
        let empty = Self.oneLine { _ = try PostgresStore.open(try PostgresAddress(cluster.url(database: "not_a_store")), access: .readWrite) }
        #expect(empty.contains("holds no StoreDesk store") && empty.contains("store copy"), "\(empty)")
        // Refused, and left as it was: still no StoreDesk table.
        #expect(try cluster.psql("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'", database: "not_a_store") == "1\n")
    }

    @Test func aWrongOrMissingPasswordIsOneLineAndNeverShown() throws {
        let stores = try ContractStores.get()
        let cluster = stores.cluster
        try cluster.requirePassword(role: "clerk", password: "right-horse")
        let passfile = try Passfile("*:*:*:clerk:wrong-horse\n")
        let file = passfile.path
        let url = "postgres://clerk@127.0.0.1:\(cluster.port)/postgres"
        let wrong = Self.oneLine { _ = try PostgresStore.open(try PostgresAddress(url + "?passfile=\(file)"), access: .readWrite) }
        #expect(wrong.contains("refused user 'clerk'") && !wrong.contains("wrong-horse") && !wrong.contains("\n"), "\(wrong)")
        let none = Self.oneLine { _ = try PostgresStore.open(try PostgresAddress(url + "?passfile=\(passfile.folder.path)/none"), access: .readWrite) }
        #expect(none.contains("asks a password for user 'clerk'"), "\(none)")
        try passfile.write("*:*:*:clerk:right-horse\n")
        // The right password opens the connection; the database holds no store, which is said next.
        let right = Self.oneLine { _ = try PostgresStore.open(try PostgresAddress(url + "?passfile=\(file)"), access: .readWrite) }
        #expect(right.contains("holds no StoreDesk store"), "\(right)")
    }

    @Test func aReadOnlyStoreRefusesWritesAndACopyIntoAStoreIsRefused() throws {
        let stores = try ContractStores.get()
        let store = try stores.postgres()
        let readOnly = try PostgresStore.open(store.address, access: .readOnly)
        #expect(try readOnly.userCount() == 40)
        let write = Self.oneLine { try readOnly.recordAudit(AuditEntry(at: Instant(millis: 0), actor: "a", role: "support", action: "x", subject: "y", detail: "z")) }
        #expect(write.contains("cannot be written from here") && !write.contains("SQLite"), "\(write)")
        // A connection made again (after a drop) is read-only as the first was.
        readOnly.close()
        #expect(try readOnly.userCount() == 40)
        let after = Self.oneLine { try readOnly.recordAudit(AuditEntry(at: Instant(millis: 0), actor: "a", role: "support", action: "x", subject: "y", detail: "z")) }
        #expect(after.contains("cannot be written from here"), "\(after)")
        let again = Self.oneLine { _ = try store.load(from: try stores.sqlite()) }
        #expect(again.contains("already holds a store"), "\(again)")
        #expect(try store.userCount() == 40)
        // Whether this connection may write: the opener asks before a write command runs.
        #expect(try store.whyNotWritable() == nil)
        #expect(try readOnly.whyNotWritable() == "it is open read-only")
        let cluster = stores.cluster
        let reader = "reader_" + UUID().uuidString.prefix(6).lowercased()
        try cluster.psql("CREATE ROLE \(reader) LOGIN")
        try cluster.psql("GRANT SELECT ON ALL TABLES IN SCHEMA public TO \(reader)", database: store.address.database)
        var address = store.address
        address.user = reader
        let asReader = try PostgresStore.open(address, access: .readWrite)
        #expect(try asReader.userCount() == 40)
        #expect(try asReader.whyNotWritable() == "role '\(reader)' may not write its tables")
        // A database that holds a store is no destination for a new one, replacing or not.
        for replacing in [false, true] {
            let refused = Self.oneLine { try PostgresStore.checkDestination(store.address, replacing: replacing) }
            #expect(refused.contains(store.address.description) && refused.contains("holds a store"), "\(refused)")
        }
        #expect(Self.oneLine { try PostgresStore.checkDestination(try stores.database(), replacing: false) } == "(no error)")
    }

    @Test func aCopyThatFailsLeavesTheDatabaseAsItWas() throws {
        let stores = try ContractStores.get()
        let source = try stores.sqlite()
        // A value PostgreSQL's schema refuses (put in the SQLite file past its CHECK, as a hand edit would): the
        // whole copy is refused, in one line.
        let target = try PostgresStore.open(try stores.database(), access: .create)
        try source.recordAudit(AuditEntry(at: Instant(millis: 0), actor: "a", role: "support", action: "x", subject: "y", detail: "z"))
        let sqlitePath = source.path
        try PostgresCluster.run("/usr/bin/sqlite3", [sqlitePath, "PRAGMA ignore_check_constraints = ON; UPDATE user SET site = 5 WHERE id = (SELECT max(id) FROM user)"])
        let said = Self.oneLine { _ = try target.load(from: try AppDatabase.open(path: sqlitePath, access: .readOnly)) }
        #expect(said != "(no error)" && !said.contains("\n") && !said.contains("INSERT"), "\(said)")
        #expect(try target.userCount() == 0)
        #expect(try target.apps().isEmpty)
    }
}
