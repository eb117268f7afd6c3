import Foundation
import StoreDeskCore

/// Everything the console and `storedesk user show` tell about one player.
public struct UserProfile: Sendable, Hashable {
    public var user: User
    public var gameAccounts: [GameAccount]
    public var subscriptions: [Subscription]
    /// The notifications of those subscriptions, for their timelines and their state at any instant.
    public var subscriptionEvents: [SubscriptionEvent]
    public var recentTransactions: [StoreTransaction]
    public var transactionCount: Int
    public var openRestoreRequests: Int

    public init(
        user: User, gameAccounts: [GameAccount], subscriptions: [Subscription], subscriptionEvents: [SubscriptionEvent],
        recentTransactions: [StoreTransaction], transactionCount: Int, openRestoreRequests: Int
    ) {
        self.user = user
        self.gameAccounts = gameAccounts
        self.subscriptions = subscriptions
        self.subscriptionEvents = subscriptionEvents
        self.recentTransactions = recentTransactions
        self.transactionCount = transactionCount
        self.openRestoreRequests = openRestoreRequests
    }
}

/// A user with its place in creation order (`sequence`: every backend numbers players as they are made,
/// SQLite by its rowid, PostgreSQL by `seq`), which is also the list's keyset cursor.
public struct UserRow: Hashable, Sendable, Identifiable {
    public var sequence: Int64
    public var user: User

    public init(sequence: Int64, user: User) {
        self.sequence = sequence
        self.user = user
    }

    /// The user's id: a selection stays on the same user when the page moves.
    public var id: String { user.id }
}

/// The orders the user list can run in, each a seek on an index: `added` the order players came into the
/// store (its sequence: SQLite's rowid, PostgreSQL's `seq`), and by a column the list shows, ties broken
/// by the sequence: `created` the CREATED column (`created_at`), `id` the ID column, `name` the NAME
/// column (the friendly name, else the login name, as `User.displayName`).
public enum UserOrder: String, Sendable, Hashable, CaseIterable {
    case added, created, id, name

    /// The SQL of the value the list runs by, over `user`'s columns: the same text on both backends, and
    /// the text of the index each has on it (`user_on_created`, `user_on_display_name`); nil for `added`,
    /// the sequence alone.
    public var keySQL: String? {
        switch self {
        case .added: nil
        case .created: "created_at"
        case .id: "id"
        case .name: Self.displayNameSQL
        }
    }

    /// `User.displayName` in SQL.
    public static let displayNameSQL = "(CASE WHEN friendly_name = '' THEN name ELSE friendly_name END)"
}

/// Where a user stands in the list: the value of its order's column (`key` for id and name, `created` for
/// the creation date) and its sequence.
public struct UserCursor: Sendable, Hashable {
    public var key: String
    /// `created_at` in milliseconds, for the list in `created` order.
    public var created: Int64
    public var sequence: Int64

    public init(key: String, created: Int64 = 0, sequence: Int64) {
        self.key = key
        self.created = created
        self.sequence = sequence
    }
}

/// A user filter as the console's `/` and `storedesk user search` apply it, with keyset pagination.
///
/// Three characters or more go through the trigram full-text index, so a substring is found without
/// scanning the table; shorter text is matched with LIKE in list order. The last four phone digits
/// match exactly, so a masked number never leaks more than it shows.
public struct UserSearch: Sendable, Hashable {
    public var text: String { didSet { folded = text.lowercased() } }
    /// `text` lowercased, once a filter (MATCHED compares it with every visible row, every frame).
    private var folded: String
    /// The order of an unfiltered list (a filter lists its matches in the order they came into the store, its
    /// sequence, which its indexes give).
    public var order: UserOrder
    /// Whether the list runs from the end of `order` (newest, last id, last name first).
    public var descending: Bool

    public init(text: String, order: UserOrder = .added, descending: Bool = false) {
        // Trimmed by hand, as `.whitespaces` trims (tabs and Unicode's space separators, U+3000 too):
        // Foundation's trim copies the whole text through NSString, a tenth of a keystroke's time while
        // typing a filter of 4,000 characters.
        func blank(_ c: Character) -> Bool {
            c == "\t" || (c.unicodeScalars.count == 1 && c.unicodeScalars.first?.properties.generalCategory == .spaceSeparator)
        }
        var start = text.startIndex, end = text.endIndex
        while start < end, blank(text[start]) { start = text.index(after: start) }
        while end > start, blank(text[text.index(before: end)]) { end = text.index(before: end) }
        self.text = start == text.startIndex && end == text.endIndex ? text : String(text[start..<end])
        folded = self.text.lowercased()
        self.order = order
        self.descending = descending
    }

    /// The order the list really runs in: `order` unfiltered; under a filter, the order players came into the store
    /// (the substring index and the sliced scan give matches in creation order).
    public var effectiveOrder: UserOrder { text.isEmpty ? order : .added }
    public var effectiveDescending: Bool { text.isEmpty && descending }

    /// Where a page starts: by sequence, the list's order.
    public typealias Anchor = PageAnchor<Int64>

    package var isPhoneSuffix: Bool { text.count == 4 && text.unicodeScalars.allSatisfy { ("0"..."9").contains($0) } }

    /// Three characters or more are looked up in the store's substring index (SQLite's trigram FTS5 table,
    /// PostgreSQL's pg_trgm); shorter text is scanned in slices.
    package var usesFullTextIndex: Bool { text.unicodeScalars.count >= 3 }

    /// The fields of `user` this filter matched, as the list shows them: "id", "name" (the login name),
    /// "friendly name", "last four" (of the phone, never more of it). Case as the index folds it.
    public func matchedFields(_ user: User) -> [String] {
        guard !text.isEmpty else { return [] }
        var fields: [String] = []
        // Lowercased and compared as Swift strings: Foundation's case-insensitive `range(of:options:)` cost
        // about 3 µs a field, 0.3 ms a frame of 38 rows (the filter keystroke's p50 went 0.98 -> 1.3 ms).
        // The filter is lowercased once, in `init`; only the row's fields are, here.
        func has(_ value: String) -> Bool { !value.isEmpty && value.lowercased().contains(folded) }
        if has(user.id) { fields.append("id") }
        if has(user.name) { fields.append("name") }
        if has(user.friendlyName) { fields.append("friendly name") }
        if isPhoneSuffix, user.phone.hasSuffix(text) { fields.append("last four") }
        return fields
    }

    /// Where `row` stands in this list: its order's value and its place.
    public func cursor(of row: UserRow) -> UserCursor {
        switch effectiveOrder {
        case .added: UserCursor(key: "", sequence: row.sequence)
        case .created: UserCursor(key: "", created: row.user.createdAt.millis, sequence: row.sequence)
        case .id: UserCursor(key: row.user.id, sequence: row.sequence)
        case .name: UserCursor(key: row.user.displayName, sequence: row.sequence)
        }
    }

    /// Whether this filter scans the table (short text) rather than using an index; such a scan is
    /// run in slices by the console so a keystroke never waits for the whole table.
    public var scansTable: Bool { !text.isEmpty && !usesFullTextIndex }

    /// Whether this filter matches nothing when `earlier`, which matched nothing, is part of it: typed on
    /// at either end. Through the substring index a filter is one substring of the id, the name or the
    /// friendly name, compared a character at a time in any case (both backends), so text holding
    /// `earlier` is found only where `earlier` is. Not for a text of four digits, which looks at phones
    /// too, nor from a short text the table scan compared (its LIKE folds the case of ASCII letters only).
    /// The Users screen reads nothing for such a keystroke: a text typed on past the last match cost a read
    /// of the whole text's trigrams a key, the square of its length in all.
    public func matchesNothing(whenNothingMatched earlier: UserSearch) -> Bool {
        usesFullTextIndex && earlier.usesFullTextIndex && !isPhoneSuffix
            && (text.hasPrefix(earlier.text) || text.hasSuffix(earlier.text))
    }
}
