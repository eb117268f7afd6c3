import ArgumentParser
import Foundation
import StoreDeskStore

/// Which store a command works on: `--db`, else `STOREDESK_DB`, else the embedded default store.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The store file (default: $STOREDESK_DB, else the embedded demo store).", valueName: "path"))
    var db: String?

    @Flag(name: .long, help: "Upgrade a store file with an older schema (never done without this flag).")
    var migrate = false

    /// The chosen path, and whether the user named it (a named file is never changed without a flag).
    var location: (path: String, named: Bool) {
        if let db { return (db, true) }
        if let env = ProcessInfo.processInfo.environment["STOREDESK_DB"], !env.isEmpty { return (env, true) }
        return (DefaultStore.path(), false)
    }

    /// Opens the store; builds the default store from the demo dataset on first use.
    func open(_ access: AppDatabase.Access) throws -> AppDatabase {
        let (path, named) = location
        if !named { try DefaultStore.ensure(at: path) }
        return try AppDatabase.open(path: path, access: access, migrate: migrate || !named)
    }
}
