import GRDB
import StoreDeskCore

extension SubscriptionSearch {
    /// How long a row's billing retry lasts, as SQL over its columns (named with `prefix`, such as `s.`):
    /// 60 days of its demo's `TimeRate` (a month of `time_rate_month_ms` is 30 days, as in
    /// `TimeRate.days`), 60 real days when it has none.
    static func billingRetryLimit(columnPrefix prefix: String = "") -> String {
        "COALESCE(\(prefix)time_rate_month_ms * 60 / 30, \(realRetry))"
    }

    /// Billing retry in real time, the longest any row's lasts.
    static let realRetry = TimeRate.realTime.billingRetryLimit.millis

    /// The SQL condition for "in this state at the instant" over `subscription s`.
    func condition(_ state: SubscriptionState) -> String {
        let now = instant.millis, limit = Self.billingRetryLimit(columnPrefix: "s.")
        let bought = "s.original_purchase_date <= \(now)"
        let revoked = "(s.state = 'revoked' AND COALESCE(s.revocation_date, s.purchase_date) <= \(now))"
        // No demo's retry lasts longer than real time's, so the first bound keeps the (state, expires_date) index.
        let failing = "(s.state IN ('grace_period', 'billing_retry') AND s.expires_date > \(now - Self.realRetry) AND s.expires_date + \(limit) > \(now))"
        let inGrace = "(s.state = 'grace_period' AND COALESCE(s.grace_period_expires_date, 0) > \(now))"
        switch state {
        case .active: return "s.expires_date > \(now) AND \(bought) AND NOT \(revoked)"
        case .revoked: return "\(revoked) AND \(bought)"
        case .gracePeriod: return "s.expires_date <= \(now) AND \(failing) AND \(inGrace) AND \(bought)"
        case .billingRetry: return "s.expires_date <= \(now) AND \(failing) AND NOT \(inGrace) AND \(bought)"
        case .expired: return "s.expires_date <= \(now) AND \(bought) AND NOT \(revoked) AND NOT \(failing)"
        }
    }

    /// The text filter: a piece of the original transaction id, the player's id or the product.
    private var textCondition: (sql: String, arguments: StatementArguments) {
        guard !text.isEmpty else { return ("", []) }
        let pattern = "%" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_") + "%"
        return (
            " AND (s.original_transaction_id LIKE ? ESCAPE '\\' OR s.user_id LIKE ? ESCAPE '\\' OR s.product_id LIKE ? ESCAPE '\\')",
            [pattern, pattern, pattern]
        )
    }

    private var groups: [SubscriptionState] { state.map { [$0] } ?? Self.order }

    /// One page, in list order.
    public func page(_ db: Database, from anchor: Anchor, limit: Int) throws -> [SubscriptionListRow] {
        guard limit > 0 else { return [] }
        let backward: Bool
        let cursor: Cursor?
        var inclusive = false
        switch anchor {
        case .first: (backward, cursor) = (false, nil)
        case .last: (backward, cursor) = (true, nil)
        case .after(let c): (backward, cursor) = (false, c)
        case .from(let c): (backward, cursor, inclusive) = (false, c, true)
        case .before(let c): (backward, cursor) = (true, c)
        }
        var groups = self.groups
        if let cursor, let index = groups.firstIndex(of: cursor.state) {
            groups = backward ? Array(groups[...index].reversed()) : Array(groups[index...])
        } else if backward {
            groups.reverse()
        }
        var rows: [SubscriptionListRow] = []
        for group in groups where rows.count < limit {
            rows += try self.rows(db, in: group, after: cursor?.state == group ? cursor : nil, backward: backward,
                                  inclusive: inclusive, limit: limit - rows.count)
        }
        return backward ? rows.reversed() : rows
    }

    private func rows(
        _ db: Database, in group: SubscriptionState, after cursor: Cursor?, backward: Bool, inclusive: Bool, limit: Int
    ) throws -> [SubscriptionListRow] {
        let filter = textCondition
        var sql = "SELECT s.*, u.name AS sd_name, u.friendly_name AS sd_friendly FROM subscription s JOIN user u ON u.id = s.user_id WHERE "
            + condition(group) + filter.sql
        var arguments = filter.arguments
        // Within a group the rows run by (expires, id), ascending or descending; a backward read takes them the
        // other way and is reversed by the caller.
        let ascending = backward == descending
        if let cursor {
            let comparison = (ascending ? ">" : "<") + (inclusive ? "=" : "")
            sql += " AND (s.expires_date, s.original_transaction_id) \(comparison) (?, ?)"
            arguments += [cursor.expires, cursor.id]
        }
        let order = ascending ? "ASC" : "DESC"
        sql += " ORDER BY s.expires_date \(order), s.original_transaction_id \(order) LIMIT \(limit)"
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

    /// The first instant after this search's at which some subscription changes state (a period, a grace
    /// period or billing retry ends, a refund or a purchase takes effect), or nil when none will: until
    /// then the list and its counts stay as they are, so a screen need not fetch them again.
    public func nextChange(_ db: Database) throws -> Instant? {
        let now = instant.millis, limit = Self.billingRetryLimit()
        let millis = try Int64.fetchOne(
            db,
            sql: """
                SELECT MIN(t) FROM (
                  SELECT MIN(expires_date) AS t FROM subscription WHERE expires_date > :now
                  UNION ALL SELECT MIN(expires_date + \(limit)) FROM subscription
                    WHERE state IN ('grace_period', 'billing_retry') AND expires_date > :now - \(Self.realRetry)
                      AND expires_date + \(limit) > :now
                  UNION ALL SELECT MIN(grace_period_expires_date) FROM subscription
                    WHERE state = 'grace_period' AND grace_period_expires_date > :now
                  UNION ALL SELECT MIN(COALESCE(revocation_date, purchase_date)) FROM subscription
                    WHERE state = 'revoked' AND COALESCE(revocation_date, purchase_date) > :now
                  UNION ALL SELECT MIN(original_purchase_date) FROM subscription WHERE original_purchase_date > :now
                )
                """,
            arguments: ["now": now])
        return millis.map(Instant.init(millis:))
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
