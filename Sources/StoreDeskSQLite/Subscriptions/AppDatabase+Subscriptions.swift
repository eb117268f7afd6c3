import Foundation
import GRDB
import StoreDeskCore
import StoreDeskStoreAPI
import StoreDeskTrust

extension AppDatabase {
    /// Imports a JSON Lines file of App Store notifications in one transaction, streamed: lines are read a
    /// chunk at a time and judged on every core (decoded, signatures verified against the store's trusted
    /// roots and `extraRoots`, checked against the catalogue), then written in file order. `each` hears
    /// every line's fate as it is decided; the report counts them.
    ///
    /// A signed line that does not verify is rejected with the check that failed; with no trusted root at
    /// all a signed line is rejected ("no trusted root: ...") unless `allowUnverified`, which takes it
    /// marked unverified. Decoded (unsigned) lines are taken, marked decoded.
    ///
    /// `wallClock` is the real time, which "signed in the future" is judged against (with the store's
    /// clock); the notifications are stamped (`imported_at`) on the store's time line: at `stampAt` (a
    /// long-running caller's clock on that line), else at the store's instant, never before a stamp
    /// already written (`StoreMeta.stamp`).
    ///
    /// - Throws: `StoreError.dataFile` when the file cannot be read, is empty or blank, or no line is a
    ///   notification (the store is then untouched).
    public func importNotifications(
        from file: NotificationFile, extraRoots: [TrustedRoot] = [], allowUnverified: Bool = false, source: String,
        wallClock: Instant, stampAt: Instant? = nil, each: (NotificationImport.Line) -> Void = { _ in }
    ) throws -> NotificationImport.Report {
        try writeWithoutTransaction { db in
            try Self.importNotifications(
                db, from: file, extraRoots: extraRoots, allowUnverified: allowUnverified, source: source, wallClock: wallClock,
                stampAt: stampAt, each: each)
        }
    }

    /// One notification `serve` received, imported as a one-line file of it, awaited: GRDB's async access
    /// runs it on the writer's queue while the caller's thread (the cooperative pool's) goes on.
    public func receiveNotification(signedPayload jws: String, source: String, wallClock: Instant, stampAt: Instant) async throws
        -> NotificationImport.Line?
    {
        return try await writeWithoutTransaction { db in
            var line: NotificationImport.Line?
            let file = NotificationFile.received(signedPayload: jws)
            _ = try Self.importNotifications(
                db, from: file, extraRoots: [], allowUnverified: false, source: source, wallClock: wallClock, stampAt: stampAt
            ) { line = $0 }
            return line
        }
    }

    /// An import on the writer's connection, outside any transaction: one transaction of its own.
    static func importNotifications(
        _ db: Database, from file: NotificationFile, extraRoots: [TrustedRoot], allowUnverified: Bool, source: String,
        wallClock: Instant, stampAt: Instant?, each: (NotificationImport.Line) -> Void
    ) throws -> NotificationImport.Report {
        // Each line is a savepoint: its journal of the pages it changes lives in memory (and is
        // emptied at every release) instead of a temporary file written line after line.
        try db.execute(sql: "PRAGMA temp_store = MEMORY")
        var report = NotificationImport.Report()
        try db.inTransaction {
            let importer = try NotificationImporter(db: db, source: source, wallClock: wallClock, stampAt: stampAt)
            let trust = try notificationTrust(db, extraRoots: extraRoots, allowUnverified: allowUnverified, now: wallClock)
            report = try importer.run(file, trust: trust, keepLines: false, each: each)
            // Nothing at all was read (an empty file, or blank lines only): a mistaken file, not
            // "imported 0". Thrown inside the transaction, which rolls back: the store is untouched.
            // (A data set's own empty notifications file, the demo's, is no mistake: it is not read here.)
            if report.imported + report.skipped + report.rejected == 0 {
                throw StoreError.dataFile(path: file.path, message: NotificationImport.noLineMessage)
            }
            return .commit
        }
        return report
    }

    /// The trust an import judges signed lines with: the store's roots and those given for the run.
    static func notificationTrust(
        _ db: Database, extraRoots: [TrustedRoot], allowUnverified: Bool, now: Instant
    ) throws -> NotificationTrust {
        try NotificationTrust.forImport(
            storeRoots: try trustRoots(db), ownRoot: try signer(db)?.chain.rootDER, extraRoots: extraRoots,
            allowUnverified: allowUnverified, now: now)
    }

    /// Imports notifications already decoded (tests; a simulation uses `recordSimulatedNotifications`),
    /// each line kept in the report.
    func importNotifications(
        _ lines: SubscriptionEventLines, source: String, wallClock: Instant
    ) throws -> NotificationImport.Report {
        try write { db in
            try NotificationImporter(db: db, source: source, wallClock: wallClock).run(lines)
        }
    }

    /// A player's subscription rows and their notifications.
    public func subscriptionRecords(userId: String) throws -> SubscriptionRecords {
        try reader.read { db in try PlayerProcedures.subscriptionRecords(procedures(db), userId: userId) }
    }

    /// The player a `storedesk subs` argument names: a user id, or the original transaction id of a
    /// subscription (its owner).
    public func subscriber(named text: String) throws -> String {
        try reader.read { db in try PlayerProcedures.subscriber(procedures(db), named: text) }
    }

    public func product(id: String) throws -> Product? {
        try reader.read { try Product.fetchOne($0, matching: "id", id) }
    }

    /// How many notifications the store holds.
    public func subscriptionEventCount() throws -> Int {
        try reader.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM subscription_event") ?? 0 }
    }
}

