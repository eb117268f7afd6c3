import Foundation
import StoreDeskCore
import StoreDeskSQLite
import StoreDeskStoreAPI

/// The benchmarks' SQLite-specific baselines (`storedesk bench`): figures beside what SQLite itself does
/// with the same rows. Only the benchmarks use these; every other caller opens stores with `StoreOpener`.
public enum SQLiteBaselines {
    /// A scratch SQLite store built from the demo dataset at `path`, opened read-write.
    public static func demoStore(at path: String) throws -> ScratchStore {
        let demo = try DemoDatasetLoader.load(from: DemoDatasetLoader.embeddedDirectory())
        try DemoDatasetLoader.build(demo, at: path)
        return ScratchStore(database: try AppDatabase.open(path: path, access: .readWrite))
    }

    /// SQLite inserting the lines of a JSON Lines file as rows (fields by `json_extract`), in one
    /// transaction, into a new file at `path`; the milliseconds it took.
    public static func jsonExtractInsert(linesOf file: String, into path: String) throws -> Double {
        try AppDatabase.jsonExtractInsert(linesOf: file, into: path)
    }

    /// A scratch store, and the raw inserts a baseline makes into it.
    public struct ScratchStore: Sendable {
        let database: AppDatabase
        public var store: any Store { database }

        /// The same rows a run's changes make, by raw prepared inserts, `batch` steps per transaction.
        public func insertRaw(_ changes: [PaymentChange], run: PaymentRun, batch: Int) throws {
            try database.insertRaw(changes, run: run, batch: batch)
        }
    }
}
