import StoreDeskCore

/// A player's page and the reads beside it, written once for both backends: the player, their game
/// accounts, their subscriptions with every notification of their chains, their latest transactions and
/// the counts the profile shows.
public enum PlayerProcedures {
    public static func user(_ db: some StoreSQLTransaction, id: String) throws -> User? {
        try db.row(#"SELECT * FROM "user" WHERE id = \#(id)"#)?.user()
    }

    public static func profile(_ db: some StoreSQLTransaction, userId: String, recent: Int) throws -> UserProfile {
        guard let user = try user(db, id: userId) else { throw StoreError.unknownUser(id: userId) }
        let subscriptions = try subscriptionRecords(db, of: userId)
        return UserProfile(
            user: user,
            gameAccounts: try db.rows(
                "SELECT * FROM game_account WHERE user_id = \(userId) ORDER BY app_id\(.byteOrder), sid\(.byteOrder), role_id\(.byteOrder)"
            ).map { try $0.gameAccount() },
            subscriptions: subscriptions.rows, subscriptionEvents: subscriptions.events,
            recentTransactions: try db.rows("SELECT * FROM store_transaction WHERE user_id = \(userId) ORDER BY purchase_date DESC LIMIT \(max(0, recent))")
                .map { try $0.transaction() },
            transactionCount: Int(try db.row("SELECT COUNT(*) AS n FROM store_transaction WHERE user_id = \(userId)")?.int("n") ?? 0),
            openRestoreRequests: Int(try db.row("SELECT COUNT(*) AS n FROM restore_request WHERE user_id = \(userId) AND status = 'open'")?.int("n") ?? 0))
    }

    /// A player's subscription rows (latest expiry first) and their chains' notifications, in log order.
    public static func subscriptionRecords(_ db: some StoreSQLTransaction, userId: String) throws -> SubscriptionRecords {
        guard try db.exists(#"SELECT 1 FROM "user" WHERE id = \#(userId)"#) else { throw StoreError.unknownUser(id: userId) }
        return try subscriptionRecords(db, of: userId)
    }

    static func subscriptionRecords(_ db: some StoreSQLTransaction, of userId: String) throws -> SubscriptionRecords {
        SubscriptionRecords(
            rows: try db.rows(
                "SELECT * FROM subscription WHERE user_id = \(userId) ORDER BY expires_date DESC, original_transaction_id\(.byteOrder)"
            ).map { try $0.subscription() },
            events: try db.rows(
                """
                SELECT * FROM subscription_event WHERE original_transaction_id IN
                  (SELECT original_transaction_id FROM subscription WHERE user_id = \(userId)) ORDER BY id
                """
            ).map { try $0.subscriptionEvent() })
    }

    /// The player a `storedesk subs` argument names: a user id, or the original transaction id of a
    /// subscription (its owner).
    public static func subscriber(_ db: some StoreSQLTransaction, named text: String) throws -> String {
        if try db.exists(#"SELECT 1 FROM "user" WHERE id = \#(text)"#) { return text }
        if let owner = try db.row("SELECT user_id FROM subscription WHERE original_transaction_id = \(text)")?.text("user_id") { return owner }
        throw StoreError.invalidArgument("no user or original transaction id '\(text)'")
    }
}
