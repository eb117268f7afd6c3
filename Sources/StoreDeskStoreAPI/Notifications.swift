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

    /// The one-line file of a notification `serve` received: `{"signedPayload": JWS}`, as Apple POSTs it.
    public static func received(signedPayload jws: String) -> NotificationFile {
        var line = (try? JSONEncoder().encode(["signedPayload": jws])) ?? Data()
        line.append(UInt8(ascii: "\n"))
        return NotificationFile(data: line, name: "serve POST /notifications")
    }
}

extension NotificationImport {
    /// Why an operator's file with no line at all (empty, or blank lines only) is refused.
    public static let noLineMessage = "no line is an App Store notification (the file is empty or holds only blank lines)"
}

extension NotificationImport.Judged {
    /// A notification a writer takes in: what the line carries to be stored.
    public struct Taken: Sendable {
        public var event: SubscriptionEvent
        public var transaction: TransactionInfo
        public var product: Product
        /// The notification as stored (Apple's JSON).
        public var payload: String
    }

    /// What a writer does with a judged line, every backend's: its fate when nothing is to be written (a
    /// refusal, a problem or a notification without a transaction, each answered as a repeat when it is
    /// already stored: `repeated` looks that up), else the notification to take in, its line's fate
    /// `.imported` until the store says otherwise.
    public enum Step {
        case done(NotificationImport.Line)
        case take(NotificationImport.Line, Taken)
    }

    public func step(repeated: (SubscriptionEvent) throws -> NotificationImport.Outcome?) throws -> Step {
        var line = NotificationImport.Line(line: line, outcome: .imported)
        switch verdict {
        case .unreadable(let reason):
            line.outcome = .rejected(reason)
            return .done(line)
        case .refused(let reason, let event):
            line.notificationUUID = event.notificationUUID
            line.originalTransactionId = event.originalTransactionId
            line.outcome = .rejected(reason)
            return .done(line)
        case .event(let event, let product, let payload, let problem):
            line.notificationUUID = event.notificationUUID
            line.originalTransactionId = event.originalTransactionId
            if let problem {
                line.outcome = try repeated(event) ?? problem
                return .done(line)
            }
            guard let transaction = event.transaction, let product else {
                line.outcome = try repeated(event) ?? .skipped("\(event.appleName) carries no transaction: nothing to attach it to")
                return .done(line)
            }
            return .take(line, Taken(event: event, transaction: transaction, product: product, payload: payload))
        }
    }
}
