import Foundation
import StoreDeskPostgres
import StoreDeskSQLite

/// One cluster a test process shares, and databases made on it from templates: starting a cluster costs
/// seconds (initdb, then the server), `CREATE DATABASE … TEMPLATE` milliseconds. Tests that stop, restart
/// or move the server (`restart`, a network namespace) start a cluster of their own.
extension PostgresCluster {
    /// The cluster every test of this process shares: started on first use, stopped when the process ends.
    public static func shared() throws -> PostgresCluster { try sharedCluster.get() }

    private static let sharedCluster = Result { try PostgresCluster() }

    /// A new database with a name of its own (`PREFIX_` and eight hex digits, or `named`), empty or a copy
    /// of `template` (a name `template(_:build:)` gave), and its name.
    public func newDatabase(_ prefix: String = "test", named: String? = nil, from template: String? = nil) throws -> String {
        let name = named ?? prefix + "_" + UUID().uuidString.prefix(8).lowercased()
        try psql("CREATE DATABASE \(name)" + (template.map { " TEMPLATE \($0)" } ?? ""))
        return name
    }

    /// The database `name` on this cluster, built by `build` (given its URL, and expected to leave no
    /// session open on it) the first time it is asked for, then kept as a template for `newDatabase(from:)`.
    public func template(_ name: String, build: (_ url: String) throws -> Void) throws -> String {
        try templates.make(name) {
            try psql("CREATE DATABASE \(name)")
            try build(url(database: name))
            // No session may stay on a template while a copy is made of it.
            try psql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(name)' AND pid <> pg_backend_pid()")
        }
        return name
    }
}

/// The templates a cluster has built, each built once even when asked for from two threads at once.
final class Templates: @unchecked Sendable {
    private let lock = NSLock()
    private var built: Set<String> = []

    func make(_ name: String, _ build: () throws -> Void) throws {
        lock.lock()
        defer { lock.unlock() }
        guard !built.contains(name) else { return }
        try build()
        built.insert(name)
    }
}

extension PostgresCluster {
    /// A new database holding the demo store (the one `check` builds in an empty home), copied from a
    /// template loaded once on this cluster; its name.
    public func newDemoDatabase(_ prefix: String = "demo", named: String? = nil) throws -> String {
        let template = try template("demo_template") { url in
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("storedesk-demo-" + UUID().uuidString)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let path = folder.appendingPathComponent("demo.sqlite").path
            try DemoDatasetLoader.copyOfEmbeddedDemo(at: path)
            let store = try PostgresStore.open(try PostgresAddress(url), access: .create)
            defer { store.close() }
            _ = try store.load(from: try AppDatabase.open(path: path, access: .readOnly))
        }
        return try newDatabase(prefix, named: named, from: template)
    }
}
