import StoreDeskCore

/// The Subscriptions list's plan, every backend's: which state groups a page reads and in what order,
/// where in the first group it starts, each state as one SQL condition over `subscription s` at the
/// search's instant, the text filter's pattern, and the next instant a row changes state. Only the SQL
/// around them (the player's table, placeholders, LIKE's case) is each backend's own.
extension SubscriptionSearch {
    /// What one page reads: `groups` in turn (`cursor` applying in the first when it is that group), each
    /// group's rows ascending or not, a backward read reversed at the end.
    public struct PagePlan: Sendable {
        public var groups: [SubscriptionState]
        public var cursor: Cursor?
        public var backward: Bool
        public var inclusive: Bool
        /// Within a group the rows run by (expires, id) this way; a backward read takes them the other way.
        public var ascending: Bool

        /// The keyset comparison after the cursor, within its group.
        public var comparison: String { (ascending ? ">" : "<") + (inclusive ? "=" : "") }
        public var order: String { ascending ? "ASC" : "DESC" }

        /// What a group's rows run by over `subscription s`, then the original transaction id: the date
        /// the list's ENDS column shows. In grace period that is the grace period's end (access ends
        /// then; apps' grace periods differ in length, so it is not the failed period's order); every
        /// other group runs by its period's end, on the (state, expires_date) index.
        public static func key(_ group: SubscriptionState) -> String {
            group == .gracePeriod ? "COALESCE(s.grace_period_expires_date, s.expires_date)" : "s.expires_date"
        }

        /// The keyset condition after the cursor within `group`, its two values bound by `bind`.
        public func after(_ cursor: Cursor, in group: SubscriptionState, bind: (Cursor) -> (String, String)) -> String {
            let (expires, id) = bind(cursor)
            return " AND (\(Self.key(group)), s.original_transaction_id) \(comparison) (\(expires), \(id))"
        }

        /// The ORDER BY of a group's rows.
        public func orderBy(_ group: SubscriptionState) -> String {
            " ORDER BY \(Self.key(group)) \(order), s.original_transaction_id \(order)"
        }
    }

    public func plan(_ anchor: Anchor) -> PagePlan {
        let backward: Bool, cursor: Cursor?
        var inclusive = false
        switch anchor {
        case .first: (backward, cursor) = (false, nil)
        case .last: (backward, cursor) = (true, nil)
        case .after(let c): (backward, cursor) = (false, c)
        case .from(let c): (backward, cursor, inclusive) = (false, c, true)
        case .before(let c): (backward, cursor) = (true, c)
        }
        var groups = state.map { [$0] } ?? Self.order
        if let cursor, let index = groups.firstIndex(of: cursor.state) {
            groups = backward ? Array(groups[...index].reversed()) : Array(groups[index...])
        } else if backward {
            groups.reverse()
        }
        return PagePlan(groups: groups, cursor: cursor, backward: backward, inclusive: inclusive, ascending: backward == descending)
    }

    /// The SQL condition for "in this state at the instant" over `subscription s`.
    public func condition(_ state: SubscriptionState) -> String {
        let now = instant.millis, limit = SubscriptionSettling.billingRetryLimit(columnPrefix: "s.")
        let realRetry = SubscriptionSettling.realRetry
        let bought = "s.original_purchase_date <= \(now)"
        let revoked = "(s.state = 'revoked' AND COALESCE(s.revocation_date, s.purchase_date) <= \(now))"
        // No demo's retry lasts longer than real time's, so the first bound keeps the (state, expires_date) index.
        let failing = "(s.state IN ('grace_period', 'billing_retry') AND s.expires_date > \(now - realRetry) AND s.expires_date + \(limit) > \(now))"
        let inGrace = "(s.state = 'grace_period' AND COALESCE(s.grace_period_expires_date, 0) > \(now))"
        switch state {
        case .active: return "s.expires_date > \(now) AND \(bought) AND NOT \(revoked)"
        case .revoked: return "\(revoked) AND \(bought)"
        case .gracePeriod: return "s.expires_date <= \(now) AND \(failing) AND \(inGrace) AND \(bought)"
        case .billingRetry: return "s.expires_date <= \(now) AND \(failing) AND NOT \(inGrace) AND \(bought)"
        case .expired: return "s.expires_date <= \(now) AND \(bought) AND NOT \(revoked) AND NOT \(failing)"
        }
    }

    /// The text filter's LIKE pattern (a piece of the original transaction id, the player's id or the
    /// product, `\` escaping), nil without text.
    public var textPattern: String? {
        guard !text.isEmpty else { return nil }
        return "%" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_") + "%"
    }

    /// The text filter after a condition: `like` is the backend's operator that ignores ASCII case (SQLite's
    /// LIKE, PostgreSQL's ILIKE), `pattern` the pattern's placeholder (in all three places).
    public static func textCondition(like: String, pattern: String) -> String {
        " AND (s.original_transaction_id \(like) \(pattern) ESCAPE '\\' OR s.user_id \(like) \(pattern) ESCAPE '\\'"
            + " OR s.product_id \(like) \(pattern) ESCAPE '\\')"
    }

    /// The first instant after this search's at which some subscription changes state (a period, a grace
    /// period or billing retry ends, a refund or a purchase takes effect), as one SQL query over
    /// `subscription` answering one value (NULL when none will): until then the list and its counts stay
    /// as they are, so a screen need not fetch them again.
    public var nextChangeQuery: String {
        let now = instant.millis, limit = SubscriptionSettling.billingRetryLimit(), realRetry = SubscriptionSettling.realRetry
        return """
            SELECT MIN(t) FROM (
              SELECT MIN(expires_date) AS t FROM subscription WHERE expires_date > \(now)
              UNION ALL SELECT MIN(expires_date + \(limit)) FROM subscription
                WHERE state IN ('grace_period', 'billing_retry') AND expires_date > \(now) - \(realRetry)
                  AND expires_date + \(limit) > \(now)
              UNION ALL SELECT MIN(grace_period_expires_date) FROM subscription
                WHERE state = 'grace_period' AND grace_period_expires_date > \(now)
              UNION ALL SELECT MIN(COALESCE(revocation_date, purchase_date)) FROM subscription
                WHERE state = 'revoked' AND COALESCE(revocation_date, purchase_date) > \(now)
              UNION ALL SELECT MIN(original_purchase_date) FROM subscription WHERE original_purchase_date > \(now)
            ) AS changes
            """
    }
}
