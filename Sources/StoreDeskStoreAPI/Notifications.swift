import Foundation
import StoreDeskCore

/// What the store keeps of a player's subscriptions: the rows, and the notifications behind them.
public struct SubscriptionRecords: Sendable, Hashable {
    public var rows: [Subscription]
    public var events: [SubscriptionEvent]

    public init(rows: [Subscription], events: [SubscriptionEvent]) {
        self.rows = rows
        self.events = events
    }

    /// Their state at an instant (see `SubscriptionSnapshot.init(at:rows:events:)`).
    public func snapshot(at instant: Instant) -> SubscriptionSnapshot {
        SubscriptionSnapshot(at: instant, rows: rows, events: events)
    }
}

/// A notification file opened for import, checked before any store is opened: a file that cannot be read
/// at all never touches the store.
public struct NotificationFile {
    package var reader: NotificationLineReader
    /// The file's name, kept with each notification it brings.
    public var name: String
    /// Where it is, as errors name it.
    public var path: String

    /// Opens a regular file; throws `StoreError.dataFile` naming it when it cannot be read.
    public init(path: String) throws {
        reader = try NotificationLineReader(path: path)
        name = (path as NSString).lastPathComponent
        self.path = path
    }

    /// The file's non-blank lines as text, a chunk at a time (those that are not UTF-8 are passed over).
    public func lines() -> Lines { Lines(reader: reader) }

    public struct Lines {
        package var reader: NotificationLineReader

        public mutating func next() throws -> String? {
            while let item = try reader.next() {
                if case .text(_, let text) = item { return text }
            }
            return nil
        }
    }

    /// Lines already in memory (the embedded demo file, tests).
    public init(data: Data, name: String) {
        reader = NotificationLineReader(data: data)
        self.name = name
        path = name
    }
}
