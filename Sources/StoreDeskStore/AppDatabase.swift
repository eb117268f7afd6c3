import Foundation
import GRDB
import StoreDeskCore

/// The StoreDesk store: one SQLite file behind GRDB, with its migrations and named writes.
///
/// Opening never changes a file the user pointed at unless asked: a read-only open leaves it byte for
/// byte as it was, an outdated schema is refused without `--migrate`, and a one-shot command uses a
/// `DatabaseQueue` so the file keeps its journal mode. The console opens a `DatabasePool` (WAL).
///
///     let store = try AppDatabase.open(path: "demo.sqlite", access: .readOnly)
///     let user = try store.user(id: "10000001")
public struct AppDatabase: Sendable {
    /// How the caller means to use the file.
    public enum Access: Sendable, Equatable {
        /// Reads only; the file is opened with SQLite's read-only flag.
        case readOnly
        /// Reads and writes through one connection; keeps the file's journal mode.
        case readWrite
        /// Concurrent reads beside one writer (the console); switches the file to WAL.
        case readWriteConcurrent
    }

    /// The connection or pool; reads go through it too. Private to the store: everything else reads and
    /// writes through the named methods, each keeping its invariants in one transaction.
    let writer: any DatabaseWriter
    public let path: String
    public let isReadOnly: Bool

    var reader: any DatabaseReader { writer }

    init(writer: any DatabaseWriter, path: String, isReadOnly: Bool) {
        self.writer = writer
        self.path = path
        self.isReadOnly = isReadOnly
    }

    /// A fresh, migrated, empty in-memory store for tests.
    public static func inMemory() throws -> AppDatabase {
        let queue = try DatabaseQueue(configuration: configuration(readOnly: false))
        try migrator.migrate(queue)
        return AppDatabase(writer: queue, path: ":memory:", isReadOnly: false)
    }

    static func configuration(readOnly: Bool) -> Configuration {
        var config = Configuration()
        config.readonly = readOnly
        config.foreignKeysEnabled = true
        config.busyMode = .callback(waitForLock)
        config.label = "storedesk"
        if !readOnly {
            // In WAL mode NORMAL is the documented setting: a commit survives a crash of the process
            // (kill -9) and the file is never corrupted; only a power cut may lose the last commits.
            // FULL would sync the WAL on every commit and cost the payment queue most of its speed.
            config.prepareDatabase { db in
                if try String.fetchOne(db, sql: "PRAGMA journal_mode")?.lowercased() == "wal" {
                    try db.execute(sql: "PRAGMA synchronous = NORMAL")
                }
                // The writer's page cache holds every page a batch of the payment queue touches (with
                // SQLite's 2 MB default, a batch spilled pages mid-transaction and read them back), and
                // the WAL is copied into the file every 64 MB instead of every 4 MB (a commit of a few
                // thousand steps triggered a checkpoint of all it wrote). Neither changes durability.
                // Readers (a pool's are read-only) keep the default cache, so a scan of a million users
                // never grows the console's memory.
                if !db.configuration.readonly {
                    try db.execute(sql: "PRAGMA cache_size = -32768")
                    try db.execute(sql: "PRAGMA wal_autocheckpoint = 16384")
                }
            }
        }
        return config
    }

    /// How long a connection waits for another process's lock before it gives up (`StoreError.locked`).
    static let lockWaitMilliseconds = 60_000

    /// SQLite's busy handler: try again every millisecond for up to `lockWaitMilliseconds`. Many
    /// processes write one store (simulations, consoles, the restore desk); a writer that finds the
    /// lock taken waits its turn instead of failing. SQLite's own timeout sleeps up to 100 ms between
    /// tries, and a payment pipeline that commits back to back leaves the lock free for microseconds
    /// at a time, so a waiter that looks rarely can starve; one that looks every millisecond gets in.
    @Sendable static func waitForLock(_ tries: Int) -> Bool {
        guard tries < lockWaitMilliseconds else { return false }
        usleep(1000)
        return true
    }

    /// Opens an existing store, checking that it is one this binary understands before touching it.
    ///
    /// - Parameter migrate: apply pending migrations (only with an explicit `--migrate`, or for the
    ///   default store that StoreDesk itself owns).
    public static func open(path: String, access: Access, migrate: Bool = false) throws -> AppDatabase {
        let fm = FileManager.default
        var isDirectory: ObjCBool = false
        guard fm.fileExists(atPath: path, isDirectory: &isDirectory) else { throw StoreError.missing(path: path) }
        guard !isDirectory.boolValue else { throw StoreError.notSQLite(path: path) }
        guard fm.isReadableFile(atPath: path) else { throw StoreError.database(path: path, message: "cannot read the file (permission denied)") }
        try checkHeader(path: path)

        // Inspect the schema through a read-only connection: this never changes the file.
        if access == .readOnly {
            do {
                let queue = try DatabaseQueue(path: path, configuration: configuration(readOnly: true))
                let pending = try queue.read { try inspect($0, path: path) }
                guard pending.isEmpty else { throw StoreError.olderSchema(path: path, missing: pending) }
                return AppDatabase(writer: queue, path: path, isReadOnly: true)
            } catch let error as DatabaseError {
                throw StoreError(error, path: path)
            }
        }
        let pending = try inspect(path: path)
        if !pending.isEmpty && !(migrate && access != .readOnly) {
            throw StoreError.olderSchema(path: path, missing: pending)
        }
        if access != .readOnly {
            // The permission bits count even for root, who could write anyway: a chmod says "hands off".
            let permissions = (try? fm.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? 0o644
            let directory = (path as NSString).deletingLastPathComponent
            guard permissions & 0o222 != 0, fm.isWritableFile(atPath: path),
                fm.isWritableFile(atPath: directory.isEmpty ? "." : directory)
            else {
                throw StoreError.readOnlyFile(path: path)
            }
        }
        do {
            let writer: any DatabaseWriter
            switch access {
            case .readOnly:
                writer = try DatabaseQueue(path: path, configuration: configuration(readOnly: true))
            case .readWrite:
                writer = try DatabaseQueue(path: path, configuration: configuration(readOnly: false))
            case .readWriteConcurrent:
                writer = try DatabasePool(path: path, configuration: configuration(readOnly: false))
            }
            if !pending.isEmpty { try migrator.migrate(writer) }
            return AppDatabase(writer: writer, path: path, isReadOnly: access == .readOnly)
        } catch let error as DatabaseError {
            throw StoreError(error, path: path)
        }
    }

    /// Creates a new store at `path` with the current schema. Refuses an existing file.
    public static func create(path: String) throws -> AppDatabase {
        guard !FileManager.default.fileExists(atPath: path) else { throw StoreError.exists(path: path) }
        do {
            let pool = try DatabasePool(path: path, configuration: configuration(readOnly: false))
            try migrator.migrate(pool)
            return AppDatabase(writer: pool, path: path, isReadOnly: false)
        } catch let error as DatabaseError {
            throw StoreError(error, path: path)
        }
    }

    /// The first 16 bytes of every SQLite 3 file.
    static func checkHeader(path: String) throws {
        // POSIX, not FileHandle: this runs at the start of every command, and Foundation's file
        // handles cost more than the read.
        let fd = Foundation.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw StoreError.database(path: path, message: "cannot open the file") }
        defer { close(fd) }
        var header = [UInt8](repeating: 0, count: 16)
        let count = header.withUnsafeMutableBytes { read(fd, $0.baseAddress, 16) }
        guard count == 16, header.elementsEqual("SQLite format 3\0".utf8) else { throw StoreError.notSQLite(path: path) }
    }

    /// Returns the migrations this binary knows that the file lacks; throws when the file is not a
    /// store or is newer than this binary.
    static func inspect(path: String) throws -> [String] {
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration(readOnly: true))
            defer { try? queue.close() }
            return try queue.read { try inspect($0, path: path) }
        } catch let error as DatabaseError {
            throw StoreError(error, path: path)
        }
    }

    static func inspect(_ db: Database, path: String) throws -> [String] {
        // A plain query, not `db.tableExists`: GRDB's schema introspection costs a short process dearly.
        let hasMigrations = try Bool.fetchOne(
            db, sql: "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'grdb_migrations'") ?? false
        guard hasMigrations else { throw StoreError.notAStore(path: path) }
        let applied = try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations")
        let known = migrator.migrations
        let unknown = applied.filter { !known.contains($0) }
        if !unknown.isEmpty { throw StoreError.newerSchema(path: path, unknown: unknown) }
        return known.filter { !applied.contains($0) }
    }
}

extension StoreError {
    /// Says what a SQLite error means for the file at `path`.
    init(_ error: DatabaseError, path: String) {
        switch error.resultCode {
        case .SQLITE_BUSY, .SQLITE_LOCKED: self = .locked(path: path)
        case .SQLITE_NOTADB: self = .notSQLite(path: path)
        case .SQLITE_READONLY: self = .readOnlyFile(path: path)
        case .SQLITE_CANTOPEN where !FileManager.default.isWritableFile(atPath: path): self = .readOnlyFile(path: path)
        case .SQLITE_CORRUPT: self = .database(path: path, message: "the database file is corrupt")
        default: self = .database(path: path, message: error.message ?? "\(error.resultCode)")
        }
    }
}
