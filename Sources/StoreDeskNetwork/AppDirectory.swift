import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypes
import NIOPosix
import ServiceLifecycle
import StoreDeskCore
import StoreDeskStoreAPI

/// Apps and their catalogues by id, read from the store and read again (at most once a second) when a
/// callback names an app it does not know, so `apps add` on a running server is picked up.
final class AppDirectory: @unchecked Sendable {
    private let store: any AppsStore
    private let lock = NSLock()
    private var apps: [String: (app: App, products: [Product])] = [:]
    private var loadedAt: UInt64 = 0

    init(store: any AppsStore) { self.store = store }

    func reload() throws {
        let loaded = try store.appsWithProducts()
        lock.lock()
        apps = Dictionary(loaded.map { ($0.app.id, $0) }) { first, _ in first }
        loadedAt = DispatchTime.now().uptimeNanoseconds
        lock.unlock()
    }

    func app(_ id: String) -> (app: App, products: [Product])? {
        lock.lock()
        let found = apps[id]
        let stale = DispatchTime.now().uptimeNanoseconds - loadedAt > 1_000_000_000
        lock.unlock()
        if let found { return found }
        guard stale else { return nil }
        try? reload()
        lock.lock()
        defer { lock.unlock() }
        return apps[id]
    }

    /// The apps with this bundle id (an App Store Server API request names its app by `bid`), read again
    /// as `app(_:)` does when none is known.
    func apps(bundleId: String) -> [App] {
        func cached() -> ([App], Bool) {
            lock.lock()
            defer { lock.unlock() }
            let found = apps.values.map(\.app).filter { $0.bundleId == bundleId }.sorted { $0.id < $1.id }
            return (found, DispatchTime.now().uptimeNanoseconds - loadedAt > 1_000_000_000)
        }
        let (found, stale) = cached()
        guard found.isEmpty, stale else { return found }
        try? reload()
        return cached().0
    }

    func healthy() throws -> Int { try store.appsWithProducts().count }
}
