import Foundation
import StoreDeskCore
import StoreDeskStoreAPI

/// `user history`: a player's whole story, newest first, one line each: time, kind, ids, detail.
struct UserHistoryReport: CommandReport {
    var userId: String
    var entries: [HistoryEntry]
    /// Where the next (older) page starts, when one follows: `--before` takes it.
    var next: HistoryCursor?
    var zone: TimeZone

    var json: UserHistoryJSON { UserHistoryJSON(userId: userId, entries: entries, next: next) }

    var text: String {
        reportText(entries.map { e in
            [e.at.shortText(in: zone), e.kind.rawValue, Self.ids(e), Self.detail(e)].map(\.controlsEscaped).joined(separator: "\t")
        })
    }

    var note: String? {
        if entries.isEmpty { return "no history for user '\(userId.echoed)'" }
        return next.map { "older lines follow: --before \($0.text.controlsEscaped)" }
    }

    /// `transaction 2000000100000093 original 2000000100000001 order 2611120001 app-order G20261111-0004`,
    /// the ids it has, each after its name in words (as the console's history says them).
    static func ids(_ e: HistoryEntry) -> String {
        let named: [(String, String?)] = [
            ("transaction", e.transactionId), ("original", e.originalTransactionId), ("order", e.orderId), ("app-order", e.appOrderId),
        ]
        let shown = named.compactMap { name, value in value.map { "\(name) \($0)" } }
        return shown.isEmpty ? "-" : shown.joined(separator: " ")
    }

    /// The detail with phone numbers masked, and a notification's trust mark in front.
    static func detail(_ e: HistoryEntry) -> String {
        let text = e.maskedDetail
        return e.trust.map { "[\($0.label)] \(text)" } ?? text
    }
}

/// The README's `user history --json` shape: every key always present, null when a line has no such id;
/// `next_before` the cursor `--before` takes for the next page, null on the last one.
struct UserHistoryJSON: Encodable {
    var userId: String
    var entries: [HistoryEntry]
    var next: HistoryCursor?

    enum CodingKeys: String, CodingKey { case user_id, entries, next_before }
    enum EntryKeys: String, CodingKey {
        case at, kind, id, transaction_id, original_transaction_id, order_id, app_order_id, detail, trust
    }

    func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(userId, forKey: .user_id)
        var list = container.nestedUnkeyedContainer(forKey: .entries)
        for e in entries {
            var entry = list.nestedContainer(keyedBy: EntryKeys.self)
            try entry.encode(e.at.iso8601, forKey: .at)
            try entry.encode(e.kind.rawValue, forKey: .kind)
            try entry.encode(e.id, forKey: .id)
            try entry.encode(e.transactionId, forKey: .transaction_id)
            try entry.encode(e.originalTransactionId, forKey: .original_transaction_id)
            try entry.encode(e.orderId, forKey: .order_id)
            try entry.encode(e.appOrderId, forKey: .app_order_id)
            try entry.encode(e.maskedDetail, forKey: .detail)
            try entry.encode(e.trust?.rawValue, forKey: .trust)
        }
        try container.encode(next?.text, forKey: .next_before)
    }
}
