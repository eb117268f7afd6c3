import Foundation
import StoreDeskCore
import StoreDeskPostgres
import StoreDeskSQLite
import StoreDeskStoreAPI

/// The one place that turns a location (`--db`, `STOREDESK_DB`, the config file's `store`, the default
/// store) into an opened store and chooses its backend. Everything else holds `any Store` (or one of its
/// areas) and never names a backend. A `postgres://` (or `postgresql://`) address is a team store on a
/// PostgreSQL server (`PostgresBackend`); any other location a SQLite file (`SQLiteBackend`).
public enum StoreOpener {
    /// The backend of the store at `location`.
    public static func backend(for location: String) -> any StoreBackend {
        PostgresAddress.names(location) ? PostgresBackend() : SQLiteBackend()
    }

    /// Opens the store at `location`. `verify` is what the caller needs of it before using it: a store it
    /// refuses is left as it was.
    public static func open(
        path location: String, access: StoreAccess, migrate: Bool = false, verifying verify: ((any Store) throws -> Void)? = nil
    ) throws -> any Store {
        try backend(for: location).open(location, access: access, migrate: migrate, verifying: verify)
    }

    /// The store StoreDesk opens when nothing names one (under `$XDG_DATA_HOME/storedesk/`).
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        DefaultStore.path(environment: environment)
    }

    /// Builds the default store from the demo dataset when it does not exist yet. Returns whether it built.
    @discardableResult
    public static func ensureDefault(at path: String) throws -> Bool { try DefaultStore.ensure(at: path) }

    /// Whether `location` names a store this process may write; nil when it may, else why not.
    public static func whyNotWritable(path location: String) throws -> String? {
        try backend(for: location).whyNotWritable(location)
    }

    /// Refuses a destination a new store may not be written to (one that exists, without `replacing`).
    public static func checkDestination(_ location: String, replacing: Bool) throws {
        try backend(for: location).checkDestination(location, replacing: replacing)
    }

    /// An error a store threw, said in one line naming the store (never the SQL or the row); nil for one
    /// that is not a store's.
    public static func storeError(for error: any Error, path location: String) -> StoreError? {
        backend(for: location).storeError(for: error, location: location)
    }

    /// Copies the whole store at `source` into a new store at `destination` (either backend on either
    /// side), in one transaction on the destination, which is left as it was when the copy fails.
    public static func copy(from source: String, to destination: String, replacing: Bool) throws -> StoreCopyReport {
        let rows = try backend(for: source).rowSource(source)
        return try backend(for: destination).build(destination, from: rows, replacing: replacing)
    }

    /// The embedded demo dataset's catalogue and clock (what `seed` and the benchmarks start from).
    public static func demoDataset() throws -> DemoDataset {
        let demo = try DemoDatasetLoader.load(from: DemoDatasetLoader.embeddedDirectory())
        return DemoDataset(catalogue: demo.catalogue, clock: demo.meta.clock)
    }

    /// The most users one `seed` writes.
    public static let largestSeed = SyntheticSeeder.largestUsers

    /// Writes a new synthetic store at `location` (refused when it exists, unless `replacing`).
    /// - Parameter progress: called with the number of users written so far, every few thousand.
    public static func seed(
        path location: String, users: Int, seed: UInt64, catalogue: Catalogue, clock: Instant, replacing: Bool,
        progress: (Int) -> Void = { _ in }
    ) throws -> SeedSummary {
        try backend(for: location).seed(
            location, users: users, seed: seed, catalogue: catalogue, clock: clock, replacing: replacing, progress: progress)
    }
}

/// SQLite files through GRDB (`AppDatabase`).
struct SQLiteBackend: StoreBackend {
    func open(
        _ location: String, access: StoreAccess, migrate: Bool, verifying verify: ((any Store) throws -> Void)?
    ) throws -> any Store {
        try AppDatabase.open(path: location, access: access, migrate: migrate, verifying: verify.map { verify in { try verify($0) } })
    }

    func whyNotWritable(_ location: String) throws -> String? { try AppDatabase.whyNotWritable(path: location) }

    func checkDestination(_ location: String, replacing: Bool) throws { try StoreDestination.check(location, replacing: replacing) }

    func seed(
        _ location: String, users: Int, seed: UInt64, catalogue: Catalogue, clock: Instant, replacing: Bool,
        progress: (Int) -> Void
    ) throws -> SeedSummary {
        try SyntheticSeeder.seed(
            path: location, users: users, seed: seed, catalogue: catalogue, clock: clock, replacing: replacing, progress: progress)
    }

    func storeError(for error: any Error, location: String) -> StoreError? { StoreError(failure: error, path: location) }

    func rowSource(_ location: String) throws -> any StoreRowSource { try AppDatabase.open(path: location, access: .readOnly) }

    func build(_ location: String, from source: any StoreRowSource, replacing: Bool) throws -> StoreCopyReport {
        try AppDatabase.build(at: location, from: source, replacing: replacing)
    }
}

/// Team stores on a PostgreSQL server (`PostgresStore`), at `postgres://USER@HOST:PORT/DB?sslmode=…`; the
/// password from `passfile=`, `PGPASSFILE` or `~/.pgpass`, never the address.
struct PostgresBackend: StoreBackend {
    func open(
        _ location: String, access: StoreAccess, migrate: Bool, verifying verify: ((any Store) throws -> Void)?
    ) throws -> any Store {
        let address = try PostgresAddress(location)
        // Read-only: every statement in a read-only transaction, so the server refuses any write.
        let store = try PostgresStore.open(address, access: access == .readOnly ? .readOnly : .readWrite, migrate: migrate)
        do {
            try verify?(store)
        } catch {
            store.close()
            throw error
        }
        return store
    }

    func whyNotWritable(_ location: String) throws -> String? {
        let store = try PostgresStore.open(try PostgresAddress(location), access: .readWrite)
        defer { store.close() }
        return try store.whyNotWritable()
    }

    func checkDestination(_ location: String, replacing: Bool) throws {
        try PostgresStore.checkDestination(try PostgresAddress(location), replacing: replacing)
    }

    /// Seeds through a SQLite store of the same rows made beside it (the one generator), copied into the
    /// server in one transaction, many rows a statement (`PostgresStore.load`); nothing is left on the
    /// server when it fails.
    func seed(
        _ location: String, users: Int, seed: UInt64, catalogue: Catalogue, clock: Instant, replacing: Bool,
        progress: (Int) -> Void
    ) throws -> SeedSummary {
        let address = try PostgresAddress(location)
        try PostgresStore.checkDestination(address, replacing: replacing)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("storedesk-seed-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("seed.sqlite").path
        let summary = try SyntheticSeeder.seed(
            path: file, users: users, seed: seed, catalogue: catalogue, clock: clock, replacing: false, progress: progress)
        let source = try AppDatabase.open(path: file, access: .readOnly)
        let store = try PostgresStore.open(address, access: .create)
        defer { store.close() }
        _ = try store.load(from: source)
        return summary
    }

    func storeError(for error: any Error, location: String) -> StoreError? {
        guard let address = try? PostgresAddress(location) else { return error as? StoreError }
        return PostgresStore.storeError(for: error, address: address)
    }

    func rowSource(_ location: String) throws -> any StoreRowSource {
        try PostgresStore.open(try PostgresAddress(location), access: .readOnly)
    }

    /// Into a database without a store yet (its schema is made); one holding a store is refused.
    func build(_ location: String, from source: any StoreRowSource, replacing: Bool) throws -> StoreCopyReport {
        let address = try PostgresAddress(location)
        try PostgresStore.checkDestination(address, replacing: replacing)
        return try PostgresStore.build(address, from: source)
    }
}

/// The embedded demo dataset, as far as a new store needs it.
public struct DemoDataset: Sendable {
    public var catalogue: Catalogue
    public var clock: Instant
}
