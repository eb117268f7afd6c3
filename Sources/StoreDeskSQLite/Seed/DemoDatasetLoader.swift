import Foundation
import GRDB
import StoreDeskCore
import StoreDeskDemoData
import StoreDeskTrust

/// Reads the hand-made demo dataset (one JSON file a table) and writes it into a new store.
///
///     let dataset = try DemoDatasetLoader.load(from: directory)
///     try DemoDatasetLoader.build(dataset, at: "/tmp/demo.sqlite")
public enum DemoDatasetLoader {
    /// The dataset as decoded, before it touches any database.
    public struct Contents: Sendable {
        public struct Meta: Codable, Sendable {
            public var clock: Instant
            public var name: String
        }
        public var meta: Meta
        public var apps: [App]
        public var products: [Product]
        public var users: [User]
        public var gameAccounts: [GameAccount]
        public var transactions: [StoreTransaction]
        public var orders: [PaymentOrder]
        public var grants: [Grant]
        public var subscriptions: [Subscription]
        public var restoreRequests: [RestoreRequest]
        public var loginEntries: [LoginEntryConfiguration]
        public var audit: [AuditEntry]
        /// App Store notifications (`notifications.jsonl`), decoded, for a look at what the demo holds.
        public var notifications: SubscriptionEventLines
        /// The same file's bytes: imported as `storedesk events import` would, its signed lines verified.
        public var notificationsFile: Data
        /// The demo's own signing root (`trust-root.pem`), trusted by the demo store, so the demo's signed
        /// notifications show as verified. Never Apple's.
        public var trustRoots: [TrustedRoot]

        public var catalogue: Catalogue { Catalogue(apps: apps, products: products) }
    }

    /// The dataset compiled into this binary, or the folder named by `STOREDESK_DATA`.
    public static func embeddedDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> URL {
        if let override = environment["STOREDESK_DATA"], !override.isEmpty {
            return URL(fileURLWithPath: override, isDirectory: true)
        }
        guard let url = DemoDataset.directory else {
            throw StoreError.dataFile(path: "Data/Demo", message: "the demo dataset is missing from this build")
        }
        return url
    }

    public static func load(from directory: URL) throws -> Contents {
        Contents(
            meta: try decode("meta.json", in: directory),
            apps: try decode("apps.json", in: directory),
            products: try decode("products.json", in: directory),
            users: try decode("users.json", in: directory),
            gameAccounts: try decode("game_accounts.json", in: directory),
            transactions: try decode("transactions.json", in: directory),
            orders: try decode("orders.json", in: directory),
            grants: try decode("grants.json", in: directory),
            subscriptions: try decode("subscriptions.json", in: directory),
            restoreRequests: try decode("restore_requests.json", in: directory),
            loginEntries: try decode("login_entries.json", in: directory),
            audit: try decode("audit.json", in: directory),
            notifications: try notificationLines(in: directory),
            notificationsFile: try contents(notificationsFile, in: directory),
            trustRoots: try demoRoots(in: directory))
    }

    static let notificationsFile = "notifications.jsonl"
    static let trustRootFile = "trust-root.pem"

    static func contents(_ name: String, in directory: URL) throws -> Data {
        let url = directory.appendingPathComponent(name)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw StoreError.dataFile(path: url.path, message: "missing or unreadable")
        }
        return data
    }

    /// The demo chain's root, when the dataset has one.
    static func demoRoots(in directory: URL) throws -> [TrustedRoot] {
        let url = directory.appendingPathComponent(trustRootFile)
        guard FileManager.default.fileExists(atPath: url.path) else { return [] }
        let data = try contents(trustRootFile, in: directory)
        do {
            return [try TrustRootFile.root(from: data)]
        } catch {
            throw StoreError.dataFile(path: url.path, message: error.reason)
        }
    }

    /// The demo's notifications; every line must read, since the demo is meant to be clean.
    static func notificationLines(in directory: URL) throws -> SubscriptionEventLines {
        let url = directory.appendingPathComponent(notificationsFile)
        guard let data = FileManager.default.contents(atPath: url.path), let text = String(data: data, encoding: .utf8) else {
            throw StoreError.dataFile(path: url.path, message: "missing or unreadable")
        }
        let lines = SubscriptionEvent.decodeJSONLines(text)
        if let failure = lines.failures.first {
            throw StoreError.dataFile(path: url.path, message: "line \(failure.line): \(failure.error)")
        }
        return lines
    }

    static func decode<T: Decodable>(_ name: String, in directory: URL) throws -> T {
        let url = directory.appendingPathComponent(name)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw StoreError.dataFile(path: url.path, message: "missing or unreadable")
        }
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch let error as DecodingError {
            throw StoreError.dataFile(path: url.path, message: describe(error, in: data))
        } catch {
            throw StoreError.dataFile(path: url.path, message: "\(error)")
        }
    }

    /// One line: where in the file, and what was wrong.
    static func describe(_ error: DecodingError, in data: Data) -> String {
        func path(_ codingPath: [any CodingKey]) -> String {
            let text = codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return text.isEmpty ? "top level" : (text.hasPrefix(".") ? String(text.dropFirst()) : text)
        }
        switch error {
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty {
                let underlying = (context.underlyingError as NSError?)?.userInfo["NSDebugDescription"] as? String
                return "not valid JSON" + (underlying.map { ": " + $0 } ?? "")
            }
            return "\(path(context.codingPath)): \(context.debugDescription)"
        case .keyNotFound(let key, let context):
            return "\(path(context.codingPath + [key])): required field is missing"
        case .typeMismatch(let type, let context):
            return "\(path(context.codingPath)): expected \(type)"
        case .valueNotFound(let type, let context):
            return "\(path(context.codingPath)): expected \(type), found null"
        @unknown default:
            return "\(error)"
        }
    }

    /// Writes the dataset into a new store at `path`, through a temporary file renamed into place,
    /// so a failure never leaves a half-built store behind.
    public static func build(_ contents: Contents, at path: String) throws {
        try FileReplacement.write(to: path, replacing: false) { temporary in
            let store = try AppDatabase.create(path: temporary)
            try store.write { db in
                try insert(contents, into: db)
            }
            try store.close()
        }
    }

    static func insert(_ c: Contents, into db: Database) throws {
        try StoreMeta.set(.clock, String(c.meta.clock.millis), in: db)
        try StoreMeta.set(.dataset, c.meta.name, in: db)
        for app in c.apps { try app.insert(db) }
        for product in c.products { try product.insert(db) }
        for user in c.users { try user.insert(db) }
        for var account in c.gameAccounts { try account.insert(db) }
        for transaction in c.transactions { try transaction.insert(db) }
        for order in c.orders { try order.insert(db) }
        for var grant in c.grants { try grant.insert(db) }
        for subscription in c.subscriptions { try subscription.insert(db) }
        for var request in c.restoreRequests { try request.insert(db) }
        for configuration in c.loginEntries { try configuration.insert(db) }
        for var entry in c.audit { try entry.insert(db) }
        // Each configured list's history starts with the change the audit log recorded (who, role, when).
        for configuration in c.loginEntries where configuration.entries != nil {
            let set = c.audit.last { $0.action == "login.entries.set" && $0.subject == "app \(configuration.appId)" }
            var line = LoginEntryHistory(
                appId: configuration.appId, at: set?.at ?? configuration.updatedAt, actor: set?.actor ?? configuration.updatedBy,
                role: set?.role ?? "unknown", surface: "demo", oldEntries: nil, newEntries: configuration.entries)
            try line.insert(db)
        }
        for root in c.trustRoots {
            try db.execute(
                sql: """
                    INSERT INTO trust_root (sha256, subject, der, not_valid_before, not_valid_after, added_at, added_by)
                    VALUES (?, ?, ?, ?, ?, ?, 'demo')
                    """,
                arguments: [root.sha256, root.subject, Data(root.der), root.notValidBefore, root.notValidAfter, c.meta.clock])
        }
        let trust = try AppDatabase.notificationTrust(db, extraRoots: [], allowUnverified: false, now: c.meta.clock)
        let report = try NotificationImporter(db: db, source: notificationsFile, wallClock: c.meta.clock)
            .run(NotificationFile(data: c.notificationsFile, name: notificationsFile), trust: trust, keepLines: false)
        if let refused = report.firstRejection {
            throw StoreError.dataFile(
                path: notificationsFile, message: "line \(refused.line): \(refused.outcome.reason ?? "rejected")")
        }
    }
}
