import StoreDeskCore

/// Notifications sent (`serve`'s sender), written once for both backends over their transaction: deliveries
/// made from the log by id, claimed (each due delivery by one claimer: SQLite's one writer, PostgreSQL's
/// `FOR UPDATE … SKIP LOCKED`), attempts recorded once each (`UNIQUE (event_id, attempt)`), fenced by the claim.
public enum NotificationSendProcedures {
    /// Whether a claim would do anything: a due delivery no live claim holds, or notifications logged since
    /// an app's URL was set. Most polls find nothing: a read decides whether to write at all.
    public static func hasWork(_ db: some StoreSQLTransaction, now: Instant) throws -> Bool {
        try db.row(
            """
            SELECT CASE WHEN EXISTS (SELECT 1 FROM notification_delivery WHERE state = 'pending' AND next_attempt_at <= \(now)
                AND (claimed_until IS NULL OR claimed_until <= \(now)))
              OR EXISTS (SELECT 1 FROM app WHERE notification_url IS NOT NULL
                AND notification_after < (SELECT COALESCE(MAX(id), 0) FROM subscription_event)) THEN 1 ELSE 0 END AS work
            """)?.flag("work") ?? false
    }

    /// Claims up to `limit` due deliveries for `claimer` until `now + lease`, first making the deliveries
    /// of notifications logged since the last claim. The log's ids come from a sequence, and on PostgreSQL a
    /// writer that took a lower id may commit after one that took a higher: the enqueue runs only while its
    /// holder has the log to itself (`SerialKey.eventLog`), else this round skips it (due retries still go).
    public static func claim(
        _ db: some StoreSQLTransaction, claimer: String, at now: Instant, lease: Instant.Duration, limit: Int
    ) throws -> [NotificationSendClaim] {
        if try db.tryHoldAlone(.eventLog) { try enqueue(db, now: now) }
        let rows = try db.rows(
            """
            SELECT d.event_id, d.app_id, d.attempts, a.notification_url, e.provenance, e.root_sha256, e.root_subject,
              e.signer_subject, e.signer_serial, e.payload, e.source
            FROM notification_delivery d JOIN app a ON a.id = d.app_id JOIN subscription_event e ON e.id = d.event_id
            WHERE d.state = 'pending' AND d.next_attempt_at <= \(now)
              AND (d.claimed_until IS NULL OR d.claimed_until <= \(now)) AND a.notification_url IS NOT NULL
            ORDER BY d.next_attempt_at, d.event_id LIMIT \(limit)\(.claimingRowsOf("d"))
            """)
        let claims = try rows.map { row in
            NotificationSendClaim(
                eventId: try row.int("event_id"), appId: try row.text("app_id"), attempt: Int(try row.int("attempts")) + 1,
                url: try row.text("notification_url"), event: try row.subscriptionEvent())
        }
        if !claims.isEmpty {
            try db.execute(
                """
                UPDATE notification_delivery SET claimed_by = \(claimer), claimed_until = \(now.adding(lease))
                WHERE event_id IN \(list: claims.map(\.eventId))
                """)
        }
        return claims
    }

    /// Records each attempt its claimer still holds the claim of; how many were recorded.
    public static func record(_ db: some StoreSQLTransaction, _ sends: [NotificationSendOutcome], claimer: String) throws -> Int {
        var recorded = 0
        for send in sends {
            let claim = send.claim, attempt = send.attempt
            guard let row = try db.row(
                """
                SELECT d.claimed_by, d.attempts, d.state, a.notification_url FROM notification_delivery d JOIN app a ON a.id = d.app_id
                WHERE d.event_id = \(claim.eventId)\(.lockingRowsOf("d"))
                """),
                try row.optionalText("claimed_by") == claimer, try row.int("attempts") == Int64(claim.attempt - 1),
                try row.text("state") == "pending"
            else { continue }
            let state = NotificationSends.state(after: send.state, urlKept: try row.optionalText("notification_url") != nil)
            let at = try db.stamp(attempt.at)
            try db.execute(
                """
                INSERT INTO notification_attempt (event_id, attempt, at, result, http_status, detail, url)
                VALUES (\(claim.eventId), \(claim.attempt), \(at), \(attempt.result), \(attempt.httpStatus.map(Int64.init)), \(attempt.detail),
                  \(attempt.url))
                """)
            try db.execute(
                """
                UPDATE notification_delivery SET state = \(state.name), attempts = \(claim.attempt), next_attempt_at = \(state.nextAttempt),
                  claimed_by = NULL, claimed_until = NULL
                WHERE event_id = \(claim.eventId)
                """)
            recorded += 1
        }
        return recorded
    }

    /// Gives back claims not sent (a serve stopping); how many it still held.
    public static func release(_ db: some StoreSQLTransaction, _ claims: [NotificationSendClaim], claimer: String) throws -> Int {
        try claims.reduce(0) { released, claim in
            released + (try db.execute(
                """
                UPDATE notification_delivery SET claimed_by = NULL, claimed_until = NULL
                WHERE event_id = \(claim.eventId) AND claimed_by = \(claimer) AND attempts = \(claim.attempt - 1) AND state = 'pending'
                """))
        }
    }

    /// How many deliveries are pending (and of those retrying), delivered and failed.
    public static func queue(_ db: some StoreSQLTransaction) throws -> NotificationSendQueue {
        var queue = NotificationSendQueue()
        for row in try db.rows(
            "SELECT state, COUNT(*) AS n, COUNT(*) FILTER (WHERE attempts > 0) AS tried FROM notification_delivery GROUP BY state")
        {
            let n = Int(try row.int("n"))
            switch try row.text("state") {
            case "pending":
                queue.pending = n
                queue.retrying = Int(try row.int("tried"))
            case "failed": queue.failed = n
            default: queue.delivered = n
            }
        }
        return queue
    }

    /// A player's notifications, newest first, each with its delivery.
    public static func player(_ db: some StoreSQLTransaction, userId: String, limit: Int) throws -> [PlayerNotification] {
        let events = try db.rows(
            """
            SELECT e.* FROM subscription_event e
            WHERE e.original_transaction_id IN (SELECT original_transaction_id FROM subscription WHERE user_id = \(userId))
               OR e.original_transaction_id IN (SELECT id FROM store_transaction WHERE user_id = \(userId))
            ORDER BY e.id DESC LIMIT \(limit)
            """
        ).map { row in (id: try row.int("id"), event: try row.subscriptionEvent()) }
        let deliveries = try deliveries(db, eventIds: events.map(\.id))
        return events.map { PlayerNotification(eventId: $0.id, event: $0.event, delivery: deliveries[$0.id]) }
    }

    /// The deliveries of these notifications, with their attempts.
    public static func deliveries(_ db: some StoreSQLTransaction, eventIds: [Int64]) throws -> [Int64: NotificationDelivery] {
        guard !eventIds.isEmpty else { return [:] }
        var attempts: [Int64: [NotificationSendAttempt]] = [:]
        for row in try db.rows("SELECT * FROM notification_attempt WHERE event_id IN \(list: eventIds) ORDER BY event_id, attempt") {
            attempts[try row.int("event_id"), default: []].append(
                NotificationSendAttempt(
                    attempt: Int(try row.int("attempt")), at: try row.instant("at"),
                    result: NotificationSendResult(rawValue: try row.text("result")) ?? .other,
                    httpStatus: try row.optionalInt("http_status").map(Int.init), detail: try row.text("detail"), url: try row.text("url")))
        }
        var deliveries: [Int64: NotificationDelivery] = [:]
        for row in try db.rows("SELECT event_id, app_id, state, next_attempt_at FROM notification_delivery WHERE event_id IN \(list: eventIds)") {
            let id = try row.int("event_id")
            deliveries[id] = NotificationDelivery(
                eventId: id, appId: try row.text("app_id"),
                state: NotificationSends.state(try row.text("state"), next: try row.optionalInstant("next_attempt_at")), attempts: attempts[id] ?? [])
        }
        return deliveries
    }

    /// A pending delivery, due now, for every notification logged after its app's `notification_after` (its
    /// app found through its subscription or, for any other notification, its transaction); the apps'
    /// cursors moved to the log's end.
    static func enqueue(_ db: some StoreSQLTransaction, now: Instant) throws {
        let last = try db.row("SELECT COALESCE(MAX(id), 0) AS last FROM subscription_event")?.int("last") ?? 0
        try db.execute(
            """
            INSERT INTO notification_delivery (event_id, app_id, user_id, state, attempts, next_attempt_at, created_at)
            SELECT e.id, a.id, COALESCE(s.user_id, t.user_id), 'pending', 0, \(now), \(now)
            FROM app a JOIN subscription_event e ON e.id > a.notification_after AND e.id <= \(last)
            LEFT JOIN subscription s ON s.original_transaction_id = e.original_transaction_id
            LEFT JOIN store_transaction t ON t.id = e.original_transaction_id
            WHERE a.notification_url IS NOT NULL AND a.id = COALESCE(s.app_id, t.app_id) AND \(sql: NotificationSends.appleSentSQL)
            ON CONFLICT (event_id) DO NOTHING
            """)
        try db.execute("UPDATE app SET notification_after = \(last) WHERE notification_url IS NOT NULL AND notification_after < \(last)")
    }

    /// Sets the point an app's sends start from to the log's end: only notifications logged from now on go
    /// to a URL just set.
    public static func start(_ db: some StoreSQLTransaction, appId: String) throws {
        try db.execute("UPDATE app SET notification_after = (SELECT COALESCE(MAX(id), 0) FROM subscription_event) WHERE id = \(appId)")
    }

    /// An app's notification URL cleared (`apps set APP --notification-url ""`): its deliveries no live claim
    /// holds stop. One never tried is removed (the notification shows as not sent: it never was); one tried
    /// before is failed (its attempts stand, and no retry will come). A delivery a serve is sending right now
    /// is left to that serve, whose record fails it (`NotificationSends.state(after:urlKept:)`).
    public static func stop(_ db: some StoreSQLTransaction, appId: String, at now: Instant) throws {
        try db.execute(
            """
            DELETE FROM notification_delivery
            WHERE app_id = \(appId) AND state = 'pending' AND (claimed_until IS NULL OR claimed_until <= \(now)) AND attempts = 0
            """)
        try db.execute(
            """
            UPDATE notification_delivery SET state = 'failed', next_attempt_at = NULL, claimed_by = NULL, claimed_until = NULL
            WHERE app_id = \(appId) AND state = 'pending' AND (claimed_until IS NULL OR claimed_until <= \(now))
            """)
    }
}
