import Foundation
import GRDB
import StoreDeskCore

/// What the store keeps of a player's subscriptions: the rows, and the notifications behind them.
public struct SubscriptionRecords: Sendable, Hashable {
    public var rows: [Subscription]
    public var events: [SubscriptionEvent]

    /// Their state at an instant (see `SubscriptionSnapshot.init(at:rows:events:)`).
    public func snapshot(at instant: Instant) -> SubscriptionSnapshot {
        SubscriptionSnapshot(at: instant, rows: rows, events: events)
    }
}

extension AppDatabase {
    /// Imports decoded notification lines in one transaction, each line all or nothing, and returns what
    /// became of every line. `importedAt` is the wall clock, and the store's now if it keeps no clock.
    public func importNotifications(
        _ lines: SubscriptionEventLines, source: String, importedAt: Instant
    ) throws -> NotificationImport.Report {
        try writer.write { db in
            try NotificationImporter(db: db, source: source, importedAt: importedAt).run(lines)
        }
    }

    /// A player's subscription rows and their notifications.
    public func subscriptionRecords(userId: String) throws -> SubscriptionRecords {
        try reader.read { db in
            guard try User.exists(db, matching: "id", userId) else { throw StoreError.unknownUser(id: userId) }
            return try Self.subscriptionRecords(db, userId: userId)
        }
    }

    static func subscriptionRecords(_ db: Database, userId: String) throws -> SubscriptionRecords {
        SubscriptionRecords(
            rows: try Subscription.fetchAll(
                db, sql: "SELECT * FROM subscription WHERE user_id = ? ORDER BY expires_date DESC", arguments: [userId]),
            events: try SubscriptionEventRow.events(db, userId: userId))
    }

    /// The player a `storedesk subs` argument names: a user id, or the original transaction id of a
    /// subscription (its owner).
    public func subscriber(named text: String) throws -> String {
        try reader.read { db in
            if try User.exists(db, matching: "id", text) { return text }
            if let owner = try String.fetchOne(
                db, sql: "SELECT user_id FROM subscription WHERE original_transaction_id = ?", arguments: [text])
            {
                return owner
            }
            throw StoreError.invalidArgument("no user or original transaction id '\(text)'")
        }
    }

    /// Reads a JSON Lines file of notifications. Throws, before anything touches a store, when the file
    /// cannot be read at all: missing, not UTF-8 text, or not one line of it a notification.
    public static func notificationLines(fromFile path: String) throws -> SubscriptionEventLines {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
            let data = FileManager.default.contents(atPath: path)
        else {
            throw StoreError.dataFile(path: path, message: "missing or unreadable")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw StoreError.dataFile(path: path, message: "not UTF-8 text: expected JSON Lines of App Store notifications")
        }
        let lines = SubscriptionEvent.decodeJSONLines(text)
        if lines.entries.isEmpty, let first = lines.failures.first {
            throw StoreError.dataFile(
                path: path, message: "no line is an App Store notification (line \(first.line): \(first.error))")
        }
        return lines
    }

    public func product(id: String) throws -> Product? {
        try reader.read { try Product.fetchOne($0, matching: "id", id) }
    }

    /// How many notifications the store holds.
    public func subscriptionEventCount() throws -> Int {
        try reader.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM subscription_event") ?? 0 }
    }
}
