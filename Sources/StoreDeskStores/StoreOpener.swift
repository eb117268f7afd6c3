import Foundation
import StoreDeskCore
import StoreDeskStore
import StoreDeskStoreAPI

/// The one place that turns a location (`--db`, `STOREDESK_DB`, the config file's `store`, the default
/// store) into an opened store and chooses its backend. Everything else holds `any Store` (or one of its
/// areas) and never names a backend. Today every location is a SQLite file (`SQLiteBackend`).
public enum StoreOpener {
    /// The backend of the store at `location`.
    public static func backend(for location: String) -> any StoreBackend { SQLiteBackend() }

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
}

/// The embedded demo dataset, as far as a new store needs it.
public struct DemoDataset: Sendable {
    public var catalogue: Catalogue
    public var clock: Instant
}
