import Foundation
import GRDB
import StoreDeskCore
import StoreDeskStoreAPI

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
    public typealias Access = StoreAccess

    /// The connection or pool. Private: every write of the store's areas goes through `write`,
    /// `writeWithoutTransaction` or `writeImmediate` below, each a transaction of the named method that
    /// called it; nothing else in the module (the ledger, the importer, the seeders) holds the writer.
    private let writer: any DatabaseWriter
    public let path: String
    public let isReadOnly: Bool

    /// What reads go through (the pool's readers beside the writer, or the one queue).
    var reader: any DatabaseReader { writer }

    /// One write transaction.
    func write<T>(_ updates: (Database) throws -> T) throws -> T { try writer.write(updates) }

    /// A write that opens its own transactions (`BEGIN IMMEDIATE`, or several in a row).
    func writeWithoutTransaction<T>(_ updates: (Database) throws -> T) throws -> T { try writer.writeWithoutTransaction(updates) }

    /// `writeWithoutTransaction`, awaited (GRDB's async access): it runs on the writer's queue while the
    /// caller's thread goes on; a task cancelled before or during it has GRDB interrupt it.
    func writeWithoutTransaction<T: Sendable>(_ updates: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await writer.writeWithoutTransaction(updates)
    }

    /// Copies the WAL into the file off the writer's thread, for a store open as a pool; nil otherwise.
    func walCheckpointer() -> WALCheckpointer? { (writer as? DatabasePool).flatMap { WALCheckpointer(pool: $0) } }

    /// Closes the file (a store built and handed over, as the demo loader does).
    func close() throws { try writer.close() }

    /// Calls `onChange` after every commit this process makes to the store (GRDB observation).
    /// Returns a token that stops observing when released; nil for a read-only store.
    public func observeCommits(_ onChange: @escaping @Sendable () -> Void) -> AnyObject? {
        guard !isReadOnly else { return nil }
        let observation = DatabaseRegionObservation(tracking: .fullDatabase)
        return observation.start(in: writer, onError: { _ in }, onChange: { _ in onChange() }) as AnyObject
    }

    init(writer: any DatabaseWriter, path: String, isReadOnly: Bool) {
        self.writer = writer
        self.path = path
        self.isReadOnly = isReadOnly
    }

    /// A fresh, migrated, empty in-memory store for tests.
    public static func inMemory() throws -> AppDatabase {
        let queue = try DatabaseQueue(configuration: configuration(readOnly: false))
        try SQLiteMigrations.migrator.migrate(queue)
        return AppDatabase(writer: queue, path: ":memory:", isReadOnly: false)
    }

    static func configuration(readOnly: Bool) -> Configuration {
        var config = Configuration()
        config.readonly = readOnly
        // A connection that cannot write has no use for foreign keys (one statement less at every open).
        config.foreignKeysEnabled = !readOnly
        let limit = lockWait ?? lockWaitMilliseconds
        config.busyMode = .callback { tries in waitForLock(tries, limit: limit) }
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

    /// How long a connection waits for another process's lock before it gives up (`StoreError.locked`):
    /// 60 s, or `STOREDESK_LOCK_WAIT` (`LockWait`).
    static let lockWaitMilliseconds: Int = LockWait.read(ProcessInfo.processInfo.environment).milliseconds ?? 60_000

    /// The lock wait, in milliseconds, of the connections opened within `AppDatabase.$lockWait.withValue(…)`
    /// (read when each connection is configured): the tests of a locked store, which would otherwise wait
    /// out the minute for each refusal they check. Nil: `lockWaitMilliseconds`.
    @TaskLocal public static var lockWait: Int?

    /// SQLite's busy handler: try again every millisecond for up to `lockWaitMilliseconds`. Many
    /// processes write one store (simulations, consoles, the restore desk); a writer that finds the
    /// lock taken waits its turn instead of failing. SQLite's own timeout sleeps up to 100 ms between
    /// tries, and a payment pipeline that commits back to back leaves the lock free for microseconds
    /// at a time, so a waiter that looks rarely can starve; one that looks every millisecond gets in.
    @Sendable static func waitForLock(_ tries: Int, limit: Int) -> Bool {
        guard tries < limit else { return false }
        usleep(1000)
        return true
    }

    /// Opens an existing store, checking that it is one this binary understands before touching it.
    ///
    /// Nothing that could block or write comes first: `StorePath` refuses a fifo or a device by its kind
    /// and reads the header without blocking; a write is refused before SQLite opens the file when the
    /// file or its folder cannot be written, so a refused write leaves no `-wal` or `-shm` beside it.
    ///
    /// - Parameter migrate: apply pending migrations (only with an explicit `--migrate`, or for the
    ///   default store that StoreDesk itself owns). A command that only reads honours it too: the
    ///   upgrade is done through a writing connection that is closed again, then the store is opened
    ///   read-only, so `check --migrate` does what the "rerun with --migrate" message promised.
    ///
    /// - Parameter verify: what the caller needs of the store before it uses it (the console and `snapshot`
    ///   read its clock). It runs first on a probe that leaves no trace (an `immutable` read of a WAL file
    ///   no one has open, which makes no `-wal` and `-shm` beside it), so a store it refuses is left as
    ///   it was, its folder too; then the store is opened as asked.
    public static func open(
        path: String, access: Access, migrate: Bool = false, verifying verify: ((AppDatabase) throws -> Void)? = nil
    ) throws -> AppDatabase {
        let file = try StorePath(path: path)
        if let verify, file.inspectionPath != file.sqlitePath {
            do {
                let probe = try DatabaseQueue(path: file.inspectionPath, configuration: configuration(readOnly: true))
                defer { try? probe.close() }
                // An older schema is left to the open below (it migrates with `--migrate`).
                if try probe.read({ try inspect($0, path: file.path) }).isEmpty {
                    try naming(file.path) { try verify(AppDatabase(writer: probe, path: file.path, isReadOnly: true)) }
                }
            } catch let error as DatabaseError {
                throw StoreError(error, path: file.path)
            }
        }
        let database = try open(file, access: access, migrate: migrate)
        try verify?(database)
        return database
    }

    private static func open(_ file: StorePath, access: Access, migrate: Bool) throws -> AppDatabase {
        let path = file.path
        if access == .readOnly {
            do {
                return try openReadOnly(file)
            } catch StoreError.olderSchema where migrate {
                // The writing connection closes when the value it returns goes away, before the reopen.
                _ = try open(path: path, access: .readWrite, migrate: true)
                return try openReadOnly(file)
            }
        }
        if let reason = file.whyNotWritable { throw StoreError.notWritable(path: path, reason: reason) }
        // Inspect the schema through a read-only connection: this never changes the file. A store that is
        // damaged where every write needs it (a table or column gone, a clock that is no date) is refused
        // here, before a writer switches it to WAL or a command commits its first step and fails the next.
        let pending = try inspect(file, forWriting: true)
        if !pending.isEmpty && !migrate {
            throw StoreError.olderSchema(path: path, missing: pending)
        }
        do {
            let writer: any DatabaseWriter
            switch access {
            case .readOnly, .readWrite:
                writer = try DatabaseQueue(path: file.sqlitePath, configuration: configuration(readOnly: false))
            case .readWriteConcurrent:
                writer = try DatabasePool(path: file.sqlitePath, configuration: configuration(readOnly: false))
            }
            if !pending.isEmpty { try SQLiteMigrations.migrator.migrate(writer) }
            return AppDatabase(writer: writer, path: path, isReadOnly: false)
        } catch let error as DatabaseError {
            throw StoreError(error, path: path)
        }
    }

    /// Whether `path` is a store file this process may write (the console opens one it may not
    /// read-only instead of refusing it). Nil when it may; else why not.
    public static func whyNotWritable(path: String) throws -> String? { try StorePath(path: path).whyNotWritable }

    /// A read-only open that never writes the file or its folder: `immutable` where no one may write
    /// (see `StorePath.readsImmutable`), SQLite's read-only flag elsewhere.
    private static func openReadOnly(_ file: StorePath) throws -> AppDatabase {
        do {
            let queue = try DatabaseQueue(
                path: file.readsImmutable ? file.immutableURI : file.sqlitePath, configuration: configuration(readOnly: true))
            let pending = try queue.read { try inspect($0, path: file.path) }
            guard pending.isEmpty else { throw StoreError.olderSchema(path: file.path, missing: pending) }
            return AppDatabase(writer: queue, path: file.path, isReadOnly: true)
        } catch let error as DatabaseError {
            if error.resultCode == .SQLITE_CANTOPEN || error.resultCode == .SQLITE_READONLY, file.isWAL,
                access(file.directory, W_OK) != 0
            {
                // A WAL store whose log is in use, in a folder this user cannot write: SQLite needs a
                // writable `-shm` to read the log, and reading the file alone would miss its newest commits.
                throw StoreError.database(
                    path: file.path,
                    message: "cannot read it here: its write-ahead log (\(file.path)-wal) needs a shared-memory file "
                        + "beside it and the folder \(file.directory) is not writable; copy the store with its -wal file "
                        + "somewhere writable, or read it once its writer has closed it")
            }
            throw StoreError(error, path: file.path)
        }
    }

    /// Creates a new store at `path` with the current schema. Refuses an existing file.
    public static func create(path: String) throws -> AppDatabase {
        guard !FileManager.default.fileExists(atPath: path) else { throw StoreError.exists(path: path) }
        do {
            let pool = try DatabasePool(path: path, configuration: configuration(readOnly: false))
            try SQLiteMigrations.migrator.migrate(pool)
            return AppDatabase(writer: pool, path: path, isReadOnly: false)
        } catch let error as DatabaseError {
            throw StoreError(error, path: path)
        }
    }

    /// Returns the migrations this binary knows that the file lacks; throws when the file is not a
    /// store or is newer than this binary.
    static func inspect(_ file: StorePath, forWriting: Bool = false) throws -> [String] {
        do {
            let queue = try DatabaseQueue(path: file.inspectionPath, configuration: configuration(readOnly: true))
            defer { try? queue.close() }
            return try queue.read { db in
                let pending = try inspect(db, path: file.path)
                if forWriting && pending.isEmpty { try checkWritable(db, path: file.path) }
                return pending
            }
        } catch let error as DatabaseError {
            throw StoreError(error, path: file.path)
        }
    }

    /// Refuses a store whose schema lacks a table or column this binary writes, or whose clock is no date
    /// (every write stamps rows with it): `StoreError.damaged`, which sends the user to `check`.
    static func checkWritable(_ db: Database, path: String) throws {
        if let problem = try StoreCheck.unwritableSchema(db) { throw StoreError.damaged(path: path, detail: problem) }
        try naming(path) { _ = try StoreMeta.clock(in: db) }
    }

    /// Runs `body` with its damage said of `path` as the user named it (a connection only knows the
    /// absolute path, or the file behind an `immutable` URI).
    static func naming(_ path: String, _ body: () throws -> Void) throws {
        do {
            try body()
        } catch StoreError.damaged(_, let detail) {
            throw StoreError.damaged(path: path, detail: detail)
        }
    }

    static func inspect(_ db: Database, path: String) throws -> [String] {
        // A plain query, not `db.tableExists`: GRDB's schema introspection costs a short process dearly.
        let hasMigrations = try Bool.fetchOne(
            db, sql: "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'grdb_migrations'") ?? false
        guard hasMigrations else { throw StoreError.notAStore(path: path) }
        let applied = try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations")
        let known = SQLiteMigrations.migrator.migrations
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
        case .SQLITE_CANTOPEN:
            self = .database(
                path: path,
                message: "SQLite cannot open it (\(error.message ?? "unable to open database file")): check that this user "
                    + "may read the file and its -wal and -shm files, and write its folder")
        case .SQLITE_CORRUPT: self = .damaged(path: path, detail: "SQLite finds the file corrupt (\(error.message ?? "malformed"))")
        case .SQLITE_FULL: self = .database(path: path, message: "the disk is full: free some space and run the command again")
        case .SQLITE_IOERR: self = .database(path: path, message: "the disk failed to read or write it (\(error.message ?? "I/O error"))")
        case .SQLITE_CONSTRAINT:
            self = .database(
                path: path, message: "the write was refused by one of the store's rules (\(error.message ?? "constraint failed")) and nothing of it was kept")
        case .SQLITE_ERROR:
            // A table, column or key the code reads is gone: the schema was changed outside StoreDesk.
            self = .damaged(path: path, detail: "SQLite says: \(error.message ?? "SQL error")")
        default: self = .database(path: path, message: "SQLite error \(error.resultCode.rawValue): \(error.message ?? "\(error.resultCode)")")
        }
    }
}

extension StoreError {
    /// Any error a store operation raised, as a `StoreError` naming the file; nil for errors that are
    /// not about the store. A SQLite error keeps its message but not its SQL; a value that cannot be
    /// read names its column but not the row (which may hold a phone number).
    public init?(failure error: any Error, path: String) {
        switch error {
        case let error as StoreError:
            self = error
        case let error as DatabaseError:
            self.init(error, path: path)
        case let error as RowDecodingError:
            let text = error.description
            let head = text.components(separatedBy: " - ").first ?? text
            var detail = "a value in it cannot be read"
            if let from = head.range(of: " from database value")?.lowerBound, head.hasPrefix("could not decode ") {
                detail += " as " + head[head.index(head.startIndex, offsetBy: 17)..<from]
            }
            if let column = text.range(of: "column: \"") {
                detail += " in column " + text[column.upperBound...].prefix { $0 != "\"" }
            }
            self = .damaged(path: path, detail: detail)
        case let error as RecordError:
            self = .damaged(path: path, detail: "a row it was just reading is gone (\(error.description.prefix { $0 != ":" }))")
        case let error as UnreadableValue:
            self = .damaged(path: path, detail: error.detail)
        default:
            return nil
        }
    }
}
