import PostgresNIO
import StoreDeskCore
import StoreDeskStoreAPI

/// One search for every id a ticket gives, on PostgreSQL: the same plan as the SQLite store's
/// (`FindPlan`), in PostgreSQL's SQL: `"user"` quoted, the phone's last four by `user_on_phone_last4`,
/// the web order line item by its expression index, names holding the text by the trigram indexes.
extension PostgresStore: FindStore {
    public func find(_ query: FindQuery) throws -> [FindResult] {
        try session.transaction(readOnly: true) { db in try FindPlan(query, .postgres).run(on: PostgresFindRows(db: db, store: self)) }
    }
}

extension FindDialect {
    public static let postgres = FindDialect(
        user: #""user""#, userKey: "u.seq", lastFour: "right(phone, 4)", wholePhone: "u.phone",
        webOrderLineItem: "((e.payload::jsonb) #>> '{data,transactionInfo,webOrderLineItemId}')",
        contains: { search, limit in
            ("FROM \"user\" u WHERE lower(u.name) LIKE ? OR lower(u.friendly_name) LIKE ? ORDER BY u.seq LIMIT ?",
             [.text(StoreSQL.likePattern(containing: search.text.lowercased())),
              .text(StoreSQL.likePattern(containing: search.text.lowercased())), .integer(Int64(limit))])
        })
}

/// `find`'s statements in one read-only transaction; `?` placeholders become `$1, $2, …`.
struct PostgresFindRows: FindRows {
    let db: PostgresSession.Transaction
    let store: PostgresStore

    func query(_ sql: String, _ arguments: [FindValue]) -> PostgresQuery { SQLBuilder.query(sql, arguments) }

    func flags(_ sql: String, _ arguments: [FindValue]) throws -> [Bool] {
        guard let row = try db.rows(query(sql, arguments)).first else { return [] }
        return try row.map { try $0.decode(Bool.self) }
    }

    func rows(_ sql: String, _ arguments: [FindValue]) throws -> [FindRow] {
        try db.rows(query(sql, arguments)).map { row in
            let cells = store.cells(row)
            return FindRow(
                matched: try cells.text("matched"), userId: try cells.text("user_id"), name: try cells.text("name"),
                friendlyName: try cells.text("friendly_name"), transactionId: try cells.optionalText("transaction_id"),
                originalTransactionId: try cells.optionalText("original_transaction_id"), orderId: try cells.optionalText("order_id"),
                restoreId: try cells.optionalInt("restore_id"), notificationUUID: try cells.optionalText("notification_uuid"),
                account: try cells.optionalText("account"), finished: try cells.optionalInt("finished").map { $0 != 0 })
        }
    }
}
