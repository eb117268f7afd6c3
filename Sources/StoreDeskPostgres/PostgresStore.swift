import Foundation
import PostgresNIO
import NIOPosix
import StoreDeskCore
import StoreDeskStoreAPI

/// The team store: StoreDesk's store on a PostgreSQL server, shared by several consoles and servers on
/// several machines. The same named reads and writes as the SQLite store, in PostgreSQL's own SQL; the
/// contract suite holds both to the same answers.
public final class PostgresStore: @unchecked Sendable {
    public enum Access: Sendable {
        /// Every statement in a read-only transaction: the server refuses a write.
        case readOnly
        case readWrite
        /// As `readWrite`, and an empty database gets the schema (`store copy --to`, `seed`).
        case create
    }

    public let address: PostgresAddress
    public let isReadOnly: Bool
    let session: PostgresSession
    let observers = CommitObservers()

    /// Opens the store at `address`. A database without StoreDesk's schema is refused unless `access` is
    /// `.create`; one a newer StoreDesk migrated is refused by name; an older schema is upgraded only with
    /// `migrate` (or `.create`).
    public static func open(_ address: PostgresAddress, access: Access, migrate: Bool = false) throws -> PostgresStore {
        // Read-only: every connection starts with `default_transaction_read_only`, so the server refuses any
        // write, on a connection made again after a drop too.
        let session = try PostgresSession(address: address, readOnly: access == .readOnly)
        let store = PostgresStore(address: address, session: session, readOnly: access == .readOnly)
        try store.prepareSchema(create: access == .create, migrate: migrate || access == .create)
        return store
    }

    init(address: PostgresAddress, session: PostgresSession, readOnly: Bool) {
        self.address = address
        self.session = session
        isReadOnly = readOnly
    }

    /// Closes the connection.
    public func close() { session.close() }

    var name: String { address.description }

    // MARK: Schema

    /// The migrations this database has, checked against the ones this StoreDesk knows, under an advisory
    /// lock so two processes never migrate at once.
    private func prepareSchema(create: Bool, migrate: Bool) throws {
        let applied = try appliedMigrations()
        let known = PostgresSchema.migrations.map(\.identifier)
        let unknown = applied.filter { !known.contains($0) }
        if !unknown.isEmpty { throw StoreError.newerSchema(path: name, unknown: unknown) }
        let missing = known.filter { !applied.contains($0) }
        guard !missing.isEmpty else { return }
        if applied.isEmpty && !create {
            throw StoreError.database(
                path: name,
                message: "holds no StoreDesk store: make one with `storedesk store copy --from FILE --to \(name)`")
        }
        guard migrate else { throw StoreError.olderSchema(path: name, missing: missing) }
        try session.transaction { transaction in try Self.applyMigrations(transaction) }
    }

    /// Applies the migrations `transaction`'s database lacks, under an advisory lock so two processes never
    /// migrate at once (inside the caller's transaction: PostgreSQL's DDL is transactional).
    static func applyMigrations(_ transaction: PostgresSession.Transaction) throws {
        try transaction.run("SELECT pg_advisory_xact_lock(74152026)")
        try transaction.run("CREATE TABLE IF NOT EXISTS storedesk_migration (identifier text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())")
        let done = Set(try transaction.rows("SELECT identifier FROM storedesk_migration").map { try $0.decode(String.self) })
        for migration in PostgresSchema.migrations where !done.contains(migration.identifier) {
            for statement in migration.statements { try transaction.run(PostgresQuery(unsafeSQL: statement)) }
            try transaction.run("INSERT INTO storedesk_migration (identifier) VALUES (\(migration.identifier))")
        }
    }

    private func appliedMigrations() throws -> [String] {
        let exists = try session.rows("SELECT to_regclass('storedesk_migration') IS NOT NULL").first?.decode(Bool.self) ?? false
        guard exists else { return [] }
        return try session.rows("SELECT identifier FROM storedesk_migration ORDER BY applied_at, identifier").map { try $0.decode(String.self) }
    }

    // MARK: Writes

    /// A write in one transaction; every process that committed tells the console's observers.
    func write<T>(_ body: (PostgresSession.Transaction) throws -> T) throws -> T {
        let value = try session.transaction(body)
        observers.notify()
        return value
    }

    func cells(_ row: PostgresRow) -> PostgresCells { PostgresCells(row, store: name) }

    /// The session's work, awaited: run on NIO's pool for blocking work, where the session may wait on its
    /// connection's replies, so the caller's thread (the cooperative pool's, in `serve`) goes on meanwhile.
    /// A task cancelled before the work starts runs none of it.
    func awaited<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await NIOThreadPool.singleton.runIfActive(work)
    }
}

/// Callbacks run after each commit this process makes.
final class CommitObservers: @unchecked Sendable {
    private let lock = NSLock()
    private var callbacks: [ObjectIdentifier: @Sendable () -> Void] = [:]

    final class Token {
        let remove: () -> Void
        init(remove: @escaping () -> Void) { self.remove = remove }
        deinit { remove() }
    }

    func add(_ callback: @escaping @Sendable () -> Void) -> AnyObject {
        let key = NSObject()
        let id = ObjectIdentifier(key)
        lock.withLock { callbacks[id] = callback }
        return Token { [weak self] in
            _ = key
            self?.lock.withLock { _ = self?.callbacks.removeValue(forKey: id) }
        }
    }

    func notify() {
        let all = lock.withLock { Array(callbacks.values) }
        for callback in all { callback() }
    }
}

// MARK: The store's face

extension PostgresStore: StoreFile {
    public var path: String { name }

    public func clock() throws -> Instant? {
        guard let text = try session.rows("SELECT value FROM store_meta WHERE key = 'clock'").first?.decode(String.self) else { return nil }
        guard let millis = Int64(text), (0...253_402_300_799_999).contains(millis) else {
            throw StoreError.damaged(path: name, detail: "its clock (store_meta 'clock' = '\(text)') is not milliseconds from 1970 to 9999")
        }
        return Instant(millis: millis)
    }

    public func apps() throws -> [App] {
        try session.rows("SELECT * FROM app ORDER BY id").map { try cells($0).app() }
    }

    public func observeCommits(_ onChange: @escaping @Sendable () -> Void) -> AnyObject? { observers.add(onChange) }

    public func commitWatcher() throws -> any CommitWatcher { try PostgresCommitWatcher(address: address) }

    public func storeError(for error: any Error) -> StoreError? {
        if let error = error as? StoreError { return error }
        if error is PSQLError { return session.describe(error) as? StoreError }
        return nil
    }
}

/// Commits other processes made, heard through LISTEN on a connection of its own: every write to the
/// store's tables sends `storedesk_commit` at its commit (a trigger). A NOTIFY sent while the connection
/// was down is lost, so a reconnect counts as a change (the console reads again).
final class PostgresCommitWatcher: CommitWatcher, @unchecked Sendable {
    private let session: PostgresSession
    private let lock = NSLock()
    /// A NOTIFY arrived since the last `changed()`.
    private var heard = false
    /// The LISTEN connection closed (the server went away, the network dropped): notifications sent
    /// meanwhile are lost, so its loss counts as a change, and it is made again off the caller's thread.
    private var lost = false
    private var reconnecting = false
    private var lastAttempt = Date.distantPast
    /// How long after a failed reconnect the next one is tried.
    static let retryInterval: TimeInterval = 2

    init(address: PostgresAddress) throws {
        session = try PostgresSession(address: address)
        try listen()
    }

    deinit { session.close() }

    /// LISTENs on a connection of its own; PostgresNIO hands each NOTIFY to the listener as it arrives, so
    /// `changed()` only reads a flag: no round trip on the console's loop.
    private func listen() throws {
        try session.withConnection { connection in
            _ = connection.addListener(channel: "storedesk_commit") { [weak self] _, _ in
                guard let self else { return }
                self.lock.withLock { self.heard = true }
            }
            _ = try connection.query("LISTEN storedesk_commit", logger: connection.logger).wait()
            connection.closeFuture.whenComplete { [weak self] _ in
                guard let self else { return }
                self.lock.withLock { self.lost = true }
            }
        }
    }

    /// Whether another connection committed since the last call. Never waits on the network: a lost LISTEN
    /// connection is made again on a thread of its own (every `retryInterval` while the server is away),
    /// and its loss and its return each count as a change.
    func changed() throws -> Bool {
        let (noticed, reconnect) = lock.withLock { () -> (Bool, Bool) in
            defer { heard = false }
            var noticed = heard
            var reconnect = false
            if lost && !reconnecting && Date().timeIntervalSince(lastAttempt) >= Self.retryInterval {
                reconnecting = true
                lastAttempt = Date()
                reconnect = true
                noticed = true
            }
            return (noticed, reconnect)
        }
        if reconnect {
            Thread.detachNewThread { [self] in
                let back = (try? listen()) != nil
                lock.withLock {
                    reconnecting = false
                    if back {
                        lost = false
                        heard = true
                    }
                }
            }
        }
        return noticed
    }
}

/// The team store is a whole store: every area's protocol is met by its `PostgresStore+AREA.swift` file.
extension PostgresStore: Store {}
