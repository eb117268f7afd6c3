import Foundation
import StoreDeskCore

/// What `find` found: a player, a game account, a transaction, an order, a subscription, a
/// notification or a restore prompt.
public enum FindKind: String, Sendable, Hashable, CaseIterable {
    case player, gameAccount = "game_account", transaction, order, subscription, notification
    case restorePrompt = "restore_prompt"

    /// The kind in words, as the console lists it (at most 12 columns; `rawValue` is the `--json` name).
    public var words: String {
        switch self {
        case .player: "player"
        case .gameAccount: "game account"
        case .transaction: "transaction"
        case .order: "order"
        case .subscription: "subscription"
        case .notification: "notification"
        case .restorePrompt: "restore"
        }
    }
}

/// The field a `find` matched in (a transaction id finds a transaction, and the restore prompt on it).
public enum FindField: String, Sendable, Hashable, CaseIterable {
    case playerId = "player_id", name, friendlyName = "friendly_name", phone, phoneLast4 = "phone_last4"
    case appleId = "apple_id", sid, roleId = "role_id", roleName = "role_name"
    case orderId = "order_id", appOrderId = "app_order_id", transactionId = "transaction_id"
    case originalTransactionId = "original_transaction_id", webOrderLineItemId = "web_order_line_item_id"
    case notificationUUID = "notification_uuid", restorePromptId = "restore_prompt_id"

    /// The field in words, as the console lists it (at most 14 columns; `rawValue` is the `--json` name).
    public var words: String {
        switch self {
        case .playerId: "player id"
        case .name: "login name"
        case .friendlyName: "friendly name"
        case .phone: "phone"
        case .phoneLast4: "phone last 4"
        case .appleId: "Apple ID"
        case .sid: "Sid"
        case .roleId: "Role_Id"
        case .roleName: "role name"
        case .orderId: "order id"
        case .appOrderId: "app order id"
        case .transactionId: "transaction id"
        case .originalTransactionId: "original id"
        case .webOrderLineItemId: "web order id"
        case .notificationUUID: "notification"
        case .restorePromptId: "prompt id"
        }
    }

    /// A name a person gave (a player's, a role's), not an id.
    public var isName: Bool { self == .name || self == .friendlyName || self == .roleName }
}

/// How the text matched: the whole value, its start, or somewhere inside (names, through the full-text
/// index). Results come in this order.
public enum FindMatch: String, Sendable, Hashable, Comparable {
    case exact, prefix, contains

    private var rank: Int {
        switch self {
        case .exact: 0
        case .prefix: 1
        case .contains: 2
        }
    }

    public static func < (a: FindMatch, b: FindMatch) -> Bool { a.rank < b.rank }
}

/// One thing `find` found, typed: what it is, the field and how it matched, the value matched (a phone
/// number masked), the player it belongs to, and the ids to open it by.
public struct FindResult: Sendable, Hashable {
    public var kind: FindKind
    public var field: FindField
    public var match: FindMatch
    /// The stored value that matched, as it may be shown (a phone number masked; controls not yet escaped).
    public var matched: String
    public var userId: String
    /// The player's name as the list shows it (friendly name, else name).
    public var userName: String
    public var transactionId: String?
    public var originalTransactionId: String?
    public var orderId: String?
    public var restorePromptId: Int64?
    public var notificationUUID: String?
    /// A game account as `APP SID/ROLE_ID`.
    public var gameAccount: String?
    /// Whether the transaction (when there is one) is finished: only an unfinished one is in the Queue.
    public var transactionFinished: Bool?

    public init(
        kind: FindKind, field: FindField, match: FindMatch, matched: String, userId: String, userName: String, transactionId: String? = nil,
        originalTransactionId: String? = nil, orderId: String? = nil, restorePromptId: Int64? = nil,
        notificationUUID: String? = nil, gameAccount: String? = nil, transactionFinished: Bool? = nil
    ) {
        self.kind = kind
        self.field = field
        self.match = match
        self.matched = matched
        self.userId = userId
        self.userName = userName
        self.transactionId = transactionId
        self.originalTransactionId = originalTransactionId
        self.orderId = orderId
        self.restorePromptId = restorePromptId
        self.notificationUUID = notificationUUID
        self.gameAccount = gameAccount
        self.transactionFinished = transactionFinished
    }
}

/// What `find` is asked: the text as typed (trimmed), refused when empty.
public struct FindQuery: Sendable, Hashable {
    public var text: String
    /// At most this many results in all.
    public var limit: Int

    /// Prefix matches need three characters, or two that are not ASCII (`剑客`): shorter text would
    /// range over too much of an index.
    public var allowsPrefix: Bool { text.count >= 3 || (text.count == 2 && text.utf8.count >= 4) }

    public init(_ text: String, limit: Int = 50) throws {
        // Trimmed by hand: Foundation's `trimmingCharacters(in:)` loads its character tables first, and
        // generic sequence adapters have their type metadata looked up by name; either took a third of a
        // millisecond of a process that looks up one id.
        var start = text.startIndex, end = text.endIndex
        while start < end, text[start].isWhitespace { start = text.index(after: start) }
        while end > start, text[text.index(before: end)].isWhitespace { end = text.index(before: end) }
        let trimmed = String(text[start..<end])
        guard !trimmed.isEmpty else { throw StoreError.invalidArgument("find: give the text to look for, not an empty line") }
        guard limit > 0 else { throw StoreError.invalidArgument("find: --limit must be above 0, got \(limit)") }
        self.text = trimmed
        self.limit = limit
    }
}
