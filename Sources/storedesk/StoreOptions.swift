import ArgumentParser
import Foundation
import StoreDeskStoreAPI
import StoreDeskOpener

/// Which store a command works on: `--db`, else `STOREDESK_DB`, else the config file's `store`, else the
/// embedded default store.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The store file (default: $STOREDESK_DB, else the config file's store, else the embedded demo store).", valueName: "path"))
    var db: String?

    @Flag(name: .long, help: "Upgrade a store file with an older schema (never done without this flag).")
    var migrate = false

    /// The options as a plain value.
    var location: StoreLocation { StoreLocation(db: db, migrate: migrate) }

    /// Opens the store; builds the default store from the demo dataset on first use. `verify` is what the
    /// command needs of it before using it (see `StoreOpener.open`): a store it refuses is left as it was.
    func open(_ access: StoreAccess, verifying verify: ((any Store) throws -> Void)? = nil) throws -> any Store {
        try location.open(access, verifying: verify)
    }
}

/// `--db` and `--migrate` as a plain value, so a command can be run without ArgumentParser's
/// reflection (see `SnapshotRequest`).
struct StoreLocation: Equatable {
    var db: String?
    var migrate = false

    /// The chosen path, and whether the user named it (a named file is never changed without a flag).
    var resolved: (path: String, named: Bool) {
        let (path, source) = inForce
        return (path, source != .default)
    }

    /// The store's path and where it came from: `--db`, else `STOREDESK_DB`, else the config file's
    /// `store`, else the embedded demo store.
    var inForce: (path: String, source: ValueSource) {
        if let db { return (db, .flag) }
        if let env = environmentValue("STOREDESK_DB"), !env.isEmpty { return (env, .environment) }
        if let store = UserConfig.current.store { return (store, .configFile) }
        return (StoreOpener.defaultPath(), .default)
    }

    /// The store file's path.
    var path: String { resolved.path }

    /// Where `seed` writes a new store: `--db`, else `STOREDESK_DB`, else the default store's path (never
    /// the config file's `store`: a config names a store to work on, not one to replace).
    var newStorePath: String {
        if let db { return db }
        if let env = ProcessInfo.processInfo.environment["STOREDESK_DB"], !env.isEmpty { return env }
        return StoreOpener.defaultPath()
    }

    /// Opens the store; builds the default store from the demo dataset on first use. The one place a
    /// command's store is opened (`StoreOpener` chooses the backend).
    func open(_ access: StoreAccess, verifying verify: ((any Store) throws -> Void)? = nil) throws -> any Store {
        let (path, named) = resolved
        OpenedStore.path = path
        if !named { try StoreOpener.ensureDefault(at: path) }
        return try StoreOpener.open(path: path, access: access, migrate: migrate || !named, verifying: verify)
    }
}
