import StoreDeskCore

/// What one line of a player's history is about (`storedesk user history --kind`), in the keyset's order.
public enum HistoryKind: String, CaseIterable, Comparable, Hashable, Sendable {
    case audit, callback, grant, notification, restore, state, transaction

    public static func < (lhs: HistoryKind, rhs: HistoryKind) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// How far a subscription notification is trusted: `verified` only when Apple's signature was checked
/// and held; the store's own record of a subscription before its first notification
/// (`SubscriptionBaseline`: no notification at all, so never signed) is `store_record`, as the
/// Subscriptions timeline says; a notification support's own action wrote (a refund, its reversal, an
/// extension: source `support`) is `support`, as the timeline marks it; anything else (decoded JSON, a
/// signature taken unverified, StoreKit testing, simulated) is `unverified`. Other lines have no trust mark.
public enum HistoryTrust: String, Hashable, Sendable {
    case verified, unverified
    case storeRecord = "store_record"
    case support

    /// The mark as a line shows it: `verified`, `unverified`, `store record`, `support` (`rawValue` is the
    /// `--json` value).
    public var label: String { self == .storeRecord ? "store record" : rawValue }

    /// The SQL both backends read a notification's trust with, of `e`'s `notification_uuid`, `source` and
    /// `provenance`: the store's record by its UUID (`SubscriptionBaseline.uuidPrefix`, as
    /// `SubscriptionEvent.isStoreRecord` tells it), support's actions by their source
    /// (`SubscriptionEvent.isSupportAction`), then the provenance.
    public static let sql =
        "CASE WHEN substr(e.notification_uuid, 1, \(SubscriptionBaseline.uuidPrefix.utf8.count)) = '\(SubscriptionBaseline.uuidPrefix)' "
        + "THEN 'store_record' WHEN e.source = '\(SubscriptionEvent.Origin.support)' THEN 'support' "
        + "WHEN e.provenance = 'verified' THEN 'verified' ELSE 'unverified' END"
}

/// Where a page of a history starts: the line after this one, newest first by `(at, kind, id)`.
public struct HistoryCursor: Hashable, Sendable {
    public var at: Instant
    public var kind: HistoryKind
    public var id: String
    public init(at: Instant, kind: HistoryKind, id: String) {
        self.at = at
        self.kind = kind
        self.id = id
    }
}

extension HistoryCursor {
    /// The cursor as `user history` prints it and `--before` takes it back: `MILLIS:KIND:ID`, e.g.
    /// `1762876800000:transaction:2000000100000093` (the id last, so any character it has is kept).
    public var text: String { "\(at.millis):\(kind.rawValue):\(id)" }

    /// Reads `text` back; nil for anything else.
    public init?(text: String) {
        let parts = text.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, let millis = Int64(parts[0]), let kind = HistoryKind(rawValue: String(parts[1])), !parts[2].isEmpty else {
            return nil
        }
        self.init(at: Instant(millis: millis), kind: kind, id: String(parts[2]))
    }
}

/// One line of a player's whole story: when, what kind, the ids a ticket gives, a short detail.
public struct HistoryEntry: Hashable, Sendable {
    public var at: Instant
    public var kind: HistoryKind
    /// Unique within its kind, ordered as the kind's rows (integer ids zero-padded): the keyset's last key.
    public var id: String
    public var transactionId: String?
    public var originalTransactionId: String?
    public var orderId: String?
    public var appOrderId: String?
    public var detail: String
    public var trust: HistoryTrust?

    public init(
        at: Instant, kind: HistoryKind, id: String, transactionId: String? = nil, originalTransactionId: String? = nil,
        orderId: String? = nil, appOrderId: String? = nil, detail: String, trust: HistoryTrust? = nil
    ) {
        self.at = at
        self.kind = kind
        self.id = id
        self.transactionId = transactionId
        self.originalTransactionId = originalTransactionId
        self.orderId = orderId
        self.appOrderId = appOrderId
        self.detail = detail
        self.trust = trust
    }

    /// The detail as shown: mobile numbers masked (`Masking.phoneNumbers`), except where a number is one of
    /// this line's own ids (an order id of 11 digits starting with 1 is not a phone).
    public var maskedDetail: String {
        let ids = [transactionId, originalTransactionId, orderId, appOrderId].compactMap { $0 }
        return Self.masked(detail, keeping: ids.filter { $0.utf8.count == 11 && detail.contains($0) })
    }

    /// `text` with phone numbers masked, each of `ids` left as it is.
    static func masked(_ text: String, keeping ids: [String]) -> String {
        guard let id = ids.first else { return Masking.phoneNumbers(in: text) }
        return text.components(separatedBy: id).map { masked($0, keeping: Array(ids.dropFirst())) }.joined(separator: id)
    }

    /// This line's place in the keyset, to ask for the page after it.
    public var cursor: HistoryCursor { HistoryCursor(at: at, kind: kind, id: id) }

    /// Newest first: later `at`, then the larger kind, then the larger id.
    public static func newerFirst(_ a: HistoryEntry, _ b: HistoryEntry) -> Bool {
        if a.at != b.at { return a.at > b.at }
        if a.kind != b.kind { return a.kind > b.kind }
        return a.id > b.id
    }
}

/// A player's history as the store tells it (`AppDatabase+History.swift`).
public protocol HistoryStore: Sendable {
    /// At most `limit` lines of the player's history, newest first, of the `kinds` given (every kind when
    /// empty), after `before` when given. Throws `StoreError.unknownUser` for an unknown player.
    func history(userId: String, kinds: Set<HistoryKind>, before: HistoryCursor?, limit: Int) throws -> [HistoryEntry]
}

/// Where one kind's rows stop on a page that starts after a cursor: the keyset `(at, kind, id)` newest
/// first, so a kind before the cursor's keeps rows at its instant, a kind after it does not, and the
/// cursor's own kind keeps rows at its instant with a smaller id.
public enum HistoryBound: Hashable, Sendable {
    case none
    case atOrBefore(Instant)
    case before(Instant)
    case beforeId(Instant, String)

    public init(_ cursor: HistoryCursor?, kind: HistoryKind) {
        guard let cursor else {
            self = .none
            return
        }
        if kind < cursor.kind {
            self = .atOrBefore(cursor.at)
        } else if kind > cursor.kind {
            self = .before(cursor.at)
        } else {
            self = .beforeId(cursor.at, cursor.id)
        }
    }
}
