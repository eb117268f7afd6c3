import StoreDeskCore

/// What every backend decides when the store's clock moves past a subscription row's period, grace
/// period or billing retry: which rows are stale, and what each becomes at the new clock. The SQL that
/// finds them is each backend's own; the rule is this one.
public enum SubscriptionSettling {
    /// Billing retry in real time, the longest any row's lasts (a demo's retry runs at its own rate).
    public static let realRetry = TimeRate.realTime.billingRetryLimit.millis

    /// How long a row's billing retry lasts, as SQL over its columns (named with `prefix`, such as `s.`):
    /// 60 days of its demo's `TimeRate` (a month of `time_rate_month_ms` is 30 days, as in
    /// `TimeRate.days`), 60 real days when it has none. The same text in SQLite and PostgreSQL.
    public static func billingRetryLimit(columnPrefix prefix: String = "") -> String {
        "COALESCE(\(prefix)time_rate_month_ms * 60 / 30, \(realRetry))"
    }

    /// The states a row can be left behind in, each with the condition (over `subscription`'s columns,
    /// `now` the SQL for the new clock) that says it is: its period, grace period or billing retry ended.
    public static func stalePasses(now: String) -> [(state: String, stale: String)] {
        let limit = billingRetryLimit()
        return [
            ("active", "expires_date <= \(now)"),
            ("grace_period", "(COALESCE(grace_period_expires_date, expires_date) <= \(now) OR expires_date + \(limit) <= \(now))"),
            ("billing_retry", "expires_date + \(limit) <= \(now)"),
        ]
    }

    /// How many stale rows a backend settles at once.
    public static let pageSize = 512

    /// A stale row as it stands at `now`: a chain with notifications folded again from them (its
    /// product known), any other row played forward from itself; nil leaves the row as it is.
    public static func settled(_ row: Subscription, events: [SubscriptionEvent], product: Product?, at now: Instant) -> Subscription? {
        if !events.isEmpty, let product {
            return derive(row.id, folding: ChainFolding(events: events), owner: row.userId, product: product, rate: row.timeRate, now: now)
        }
        guard var settled = row.info(at: now)?.subscription(userId: row.userId, appId: row.appId) else { return nil }
        settled.timeRate = row.timeRate
        return settled
    }

    /// A chain's row as its notifications describe it at `now` (all of them signed by then), at the
    /// chain's time rate.
    public static func derive(
        _ originalTransactionId: String, folding: ChainFolding, owner: String, product: Product, rate: TimeRate, now: Instant
    ) -> Subscription? {
        guard let info = folding.info(at: now, billingRetryLimit: rate.billingRetryLimit) else { return nil }
        var row = info.subscription(userId: owner, appId: product.appId)
        if row.groupId.isEmpty { row.groupId = product.subscriptionGroup ?? "" }
        row.timeRate = rate
        return row
    }
}
