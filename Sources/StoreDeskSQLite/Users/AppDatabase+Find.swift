import Foundation
import GRDB
import StoreDeskCore

extension AppDatabase {
    /// The indexes `find` seeks on that the schema lacked: game accounts by Sid, Role_Id and role name,
    /// transactions by the app's order id, notifications by their web order line item id (inside the
    /// stored JSON, so an expression index). A whole phone number seeks on `user_on_phone_last4`.
    static let findIndexes = """
        CREATE INDEX game_account_on_sid ON game_account(sid, role_id);
        CREATE INDEX game_account_on_role_id ON game_account(role_id);
        CREATE INDEX game_account_on_role_name ON game_account(role_name);
        CREATE INDEX transaction_on_app_order ON store_transaction(app_order_id);
        CREATE INDEX subscription_event_on_web_order_line_item ON subscription_event(
            json_extract(payload, '$.data.transactionInfo.webOrderLineItemId'));
        """

    public func find(_ query: FindQuery) throws -> [FindResult] {
        try reader.read { db in try FindPlan(query, .sqlite).run(on: SQLiteFindRows(db: db)) }
    }
}

extension FindDialect {
    /// SQLite's: `user` unquoted; the phone's last four as `user_on_phone_last4` indexes them, the whole
    /// phone as `+u.phone` (a plain `u.phone = ?` makes SQLite put the number into `substr` and miss the
    /// index); the web order line item as `findIndexes` indexes it; names through the trigram FTS5 index.
    public static let sqlite = FindDialect(
        user: "user", userKey: "u.rowid", lastFour: "substr(phone, -4)", wholePhone: "+u.phone",
        webOrderLineItem: "json_extract(e.payload, '$.data.transactionInfo.webOrderLineItemId')",
        contains: { search, limit in
            ("FROM user u WHERE u.rowid IN (SELECT rowid FROM user_search WHERE user_search MATCH ?) ORDER BY u.rowid LIMIT ?",
             [.text(search.ftsPhrase), .integer(Int64(limit))])
        })
}

extension StatementArguments {
    /// A `find` statement's arguments, bound as SQLite takes them.
    init(_ values: [FindValue]) {
        self.init(values.map { value -> (any DatabaseValueConvertible)? in
            switch value {
            case .text(let text): text
            case .integer(let number): number
            }
        })
    }
}

/// `find`'s statements run in one SQLite read.
struct SQLiteFindRows: FindRows {
    let db: Database

    func flags(_ sql: String, _ arguments: [FindValue]) throws -> [Bool] {
        guard let row = try Row.fetchOne(db, sql: sql, arguments: StatementArguments(arguments)) else { return [] }
        return try (0..<row.count).map { try row.decode(Bool.self, atIndex: $0) }
    }

    func rows(_ sql: String, _ arguments: [FindValue]) throws -> [FindRow] {
        try Row.fetchAll(db, sql: sql, arguments: StatementArguments(arguments)).map { row in
            FindRow(
                matched: try row.decode(forColumn: "matched"), userId: try row.decode(forColumn: "user_id"),
                name: try row.decode(forColumn: "name"), friendlyName: try row.decode(forColumn: "friendly_name"),
                transactionId: try row.decode(forColumn: "transaction_id"),
                originalTransactionId: try row.decode(forColumn: "original_transaction_id"), orderId: try row.decode(forColumn: "order_id"),
                restoreId: try row.decode(forColumn: "restore_id"), notificationUUID: try row.decode(forColumn: "notification_uuid"),
                account: try row.decode(forColumn: "account"), finished: try row.decode(forColumn: "finished"))
        }
    }
}

