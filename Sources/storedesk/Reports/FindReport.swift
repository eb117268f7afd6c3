import Foundation
import StoreDeskCore
import StoreDeskStoreAPI
import StoreDeskUI

/// `find`: what was found for one text, a row each, exact matches first.
struct FindReport: CommandReport {
    var results: [FindResult]
    /// What was looked for, for the note when nothing matches.
    var query: String

    var json: [FindJSON] { results.map(FindJSON.init) }

    static let header = ["KIND", "FIELD", "MATCH", "FOUND", "PLAYER", "NAME", "OPENS"]

    /// Where the console would open it: the transaction, the subscription, else the player.
    static func opens(_ r: FindResult) -> String {
        if let id = r.restorePromptId { return "restore \(id)" }
        if let id = r.transactionId { return "transaction \(id)" }
        if let id = r.originalTransactionId { return "subscription \(id)" }
        if let account = r.gameAccount { return "account \(account)" }
        return "player \(r.userId)"
    }

    /// A table in columns as wide as their widest cell (CJK counted as two), every stored value on one
    /// line with its control characters escaped.
    var text: String {
        guard !results.isEmpty else { return "" }
        let rows = [Self.header] + results.map { r in
            [r.kind.rawValue, r.field.rawValue, r.match.rawValue, r.matched, r.userId, r.userName, Self.opens(r)].map(\.controlsEscaped)
        }
        let widths = Self.header.indices.map { column in rows.map { TextWidth.columns(of: $0[column]) }.max() ?? 0 }
        return rows.map { row in
            row.indices.map { column in
                column == row.count - 1 ? row[column]
                    : row[column] + String(repeating: " ", count: widths[column] - TextWidth.columns(of: row[column]) + 2)
            }.joined()
        }.joined(separator: "\n")
    }

    var note: String? { results.isEmpty ? "nothing matches '\(query.echoed)'" : nil }
}

/// One result as JSON: what it is, where it matched, and the ids to open it by (null when it has none).
struct FindJSON: Encodable {
    var kind, field, match, matched, user_id, user_name: String
    @NullWhenAbsent var transaction_id: String?
    @NullWhenAbsent var original_transaction_id: String?
    @NullWhenAbsent var order_id: String?
    @NullWhenAbsent var restore_prompt_id: Int64?
    @NullWhenAbsent var notification_uuid: String?
    @NullWhenAbsent var game_account: String?

    init(_ r: FindResult) {
        kind = r.kind.rawValue
        field = r.field.rawValue
        match = r.match.rawValue
        matched = r.matched
        user_id = r.userId
        user_name = r.userName
        transaction_id = r.transactionId
        original_transaction_id = r.originalTransactionId
        order_id = r.orderId
        restore_prompt_id = r.restorePromptId
        notification_uuid = r.notificationUUID
        game_account = r.gameAccount
    }
}
