import GRDB
import StoreDeskCore
import StoreDeskStoreAPI

/// The Subscriptions list in SQLite: the plan (`SubscriptionSearch.plan`, `condition`, `nextChangeQuery`)
/// is every backend's; the SQL around it is this store's.
extension SubscriptionSearch {
    /// The text filter (SQLite's LIKE ignores ASCII case) and its arguments.
    private var textCondition: (sql: String, arguments: StatementArguments) {
        guard let pattern = textPattern else { return ("", []) }
        return (Self.textCondition(like: "LIKE", pattern: "?"), [pattern, pattern, pattern])
    }

    /// One page, in list order.
    public func page(_ db: Database, from anchor: Anchor, limit: Int) throws -> [SubscriptionListRow] {
        guard limit > 0 else { return [] }
        let plan = plan(anchor)
        var rows: [SubscriptionListRow] = []
        for group in plan.groups where rows.count < limit {
            rows += try self.rows(db, in: group, plan: plan, limit: limit - rows.count)
        }
        return plan.backward ? rows.reversed() : rows
    }

    private func rows(_ db: Database, in group: SubscriptionState, plan: PagePlan, limit: Int) throws -> [SubscriptionListRow] {
        let filter = textCondition
        var sql = "SELECT s.*, u.name AS sd_name, u.friendly_name AS sd_friendly FROM subscription s JOIN user u ON u.id = s.user_id WHERE "
            + condition(group) + filter.sql
        var arguments = filter.arguments
        if let cursor = plan.cursor, cursor.state == group {
            sql += plan.after(cursor, in: group) { _ in ("?", "?") }
            arguments += [cursor.expires, cursor.id]
        }
        sql += plan.orderBy(group) + " LIMIT \(limit)"
        return try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
            let friendly: String = try row.decode(forColumn: "sd_friendly")
            let name: String = friendly.isEmpty ? try row.decode(forColumn: "sd_name") : friendly
            return SubscriptionListRow(subscription: try Subscription(row: row), userName: name)
        }
    }

    /// How many subscriptions match the text in each state at the instant.
    public func counts(_ db: Database) throws -> [SubscriptionState: Int] {
        let filter = textCondition
        var counts: [SubscriptionState: Int] = [:]
        for group in Self.order {
            counts[group] = try Int.fetchOne(
                db, sql: "SELECT COUNT(*) FROM subscription s WHERE " + condition(group) + filter.sql,
                arguments: filter.arguments) ?? 0
        }
        return counts
    }

    /// The first instant after this search's at which some subscription changes state (`nextChangeQuery`).
    public func nextChange(_ db: Database) throws -> Instant? {
        try Int64.fetchOne(db, sql: nextChangeQuery).map(Instant.init(millis:))
    }
}

extension AppDatabase {
    /// One page of the Subscriptions list.
    public func subscriptions(_ search: SubscriptionSearch, from anchor: SubscriptionSearch.Anchor, limit: Int) throws
        -> [SubscriptionListRow]
    {
        try reader.read { try search.page($0, from: anchor, limit: limit) }
    }

    /// How many subscriptions match in each state.
    public func subscriptionCounts(_ search: SubscriptionSearch) throws -> [SubscriptionState: Int] {
        try reader.read { try search.counts($0) }
    }

    /// The counts, and when they will next change (`SubscriptionSearch.nextChange`), in one read.
    public func subscriptionCountsAndNextChange(_ search: SubscriptionSearch) throws -> ([SubscriptionState: Int], Instant?) {
        try reader.read { (try search.counts($0), try search.nextChange($0)) }
    }

    /// One subscription with its notifications and its player, for a detail pane.
    public func subscriptionDetail(originalTransactionId id: String) throws -> (SubscriptionListRow, [SubscriptionEvent])? {
        try reader.read { db in
            guard let subscription = try Subscription.fetchOne(db, matching: "original_transaction_id", id),
                let user = try User.fetchOne(db, matching: "id", subscription.userId)
            else { return nil }
            return (
                SubscriptionListRow(subscription: subscription, userName: user.displayName),
                try SubscriptionEventRow.events(db, originalTransactionIds: [id])
            )
        }
    }
}
