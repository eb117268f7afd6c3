import PostgresNIO
import StoreDeskCore
import StoreDeskStoreAPI

/// Notifications sent on PostgreSQL: serves on several machines claim due deliveries with
/// `FOR UPDATE SKIP LOCKED`, so each attempt goes to one of them; an attempt is recorded once
/// (`UNIQUE (event_id, attempt)`), fenced by the claim.
extension PostgresStore: NotificationSendStore {
    public func claimNotificationSends(claimer: String, at now: Instant, lease: Instant.Duration, limit: Int) throws -> [NotificationSendClaim] {
        guard !isReadOnly else { return [] }
        let work = try session.transaction(readOnly: true) { db in
            try db.rows(
                """
                SELECT EXISTS (SELECT 1 FROM notification_delivery WHERE state = 'pending' AND next_attempt_at <= \(now.millis)
                    AND (claimed_until IS NULL OR claimed_until <= \(now.millis)))
                  OR EXISTS (SELECT 1 FROM app WHERE notification_url IS NOT NULL
                    AND notification_after < (SELECT coalesce(max(id), 0) FROM subscription_event))
                """
            ).first?.decode(Bool.self) ?? false
        }
        guard work else { return [] }
        return try write { db in
            // The log's ids come from a sequence, and a writer that took a lower id may commit after one that
            // took a higher: a cursor moved past ids not yet committed would skip them for ever. Every writer
            // of the log holds the log's lock shared from before it takes an id (`holdEventLog`); holding it
            // alone here means none is under way, so every id up to the end read next is final. A long import
            // holding it makes this round skip the enqueue, not wait: due retries still go out.
            if try db.rows("SELECT pg_try_advisory_xact_lock(\(Self.eventLogLock))").first?.decode(Bool.self) == true {
                try enqueueSends(db, now: now)
            }
            let rows = try db.rows(
                """
                SELECT d.event_id, d.app_id, d.attempts, a.notification_url, e.provenance, e.root_sha256, e.root_subject,
                  e.signer_subject, e.signer_serial, e.payload, e.source
                FROM notification_delivery d JOIN app a ON a.id = d.app_id JOIN subscription_event e ON e.id = d.event_id
                WHERE d.state = 'pending' AND d.next_attempt_at <= \(now.millis)
                  AND (d.claimed_until IS NULL OR d.claimed_until <= \(now.millis)) AND a.notification_url IS NOT NULL
                ORDER BY d.next_attempt_at, d.event_id LIMIT \(Int64(limit))
                FOR UPDATE OF d SKIP LOCKED
                """)
            var claims: [NotificationSendClaim] = []
            for row in rows {
                let cells = cells(row)
                claims.append(
                    NotificationSendClaim(
                        eventId: try cells.int("event_id"), appId: try cells.text("app_id"), attempt: Int(try cells.int("attempts")) + 1,
                        url: try cells.text("notification_url"), event: try cells.subscriptionEvent()))
            }
            let ids = claims.map(\.eventId)
            if !ids.isEmpty {
                try db.run(
                    "UPDATE notification_delivery SET claimed_by = \(claimer), claimed_until = \(now.adding(lease).millis) WHERE event_id = ANY(\(ids))")
            }
            return claims
        }
    }

    public func recordNotificationSends(_ sends: [NotificationSendOutcome], claimer: String) throws -> Int {
        guard !sends.isEmpty else { return 0 }
        return try write { db in
            var recorded = 0
            for send in sends {
                let claim = send.claim, attempt = send.attempt
                guard let row = try db.rows(
                    """
                    SELECT d.claimed_by, d.attempts, d.state, a.notification_url FROM notification_delivery d JOIN app a ON a.id = d.app_id
                    WHERE d.event_id = \(claim.eventId) FOR UPDATE OF d
                    """
                ).first
                else { continue }
                let cells = cells(row)
                guard try cells.optionalText("claimed_by") == claimer, try cells.int("attempts") == Int64(claim.attempt - 1),
                    try cells.text("state") == "pending"
                else { continue }
                let state = NotificationSends.state(after: send.state, urlKept: try cells.optionalText("notification_url") != nil)
                let at = try stamp(attempt.at, in: db)
                try db.run(
                    """
                    INSERT INTO notification_attempt (event_id, attempt, at, result, http_status, detail, url)
                    VALUES (\(claim.eventId), \(Int64(claim.attempt)), \(at.millis), \(attempt.result.rawValue), \(attempt.httpStatus.map(Int64.init)),
                      \(attempt.detail), \(attempt.url))
                    """)
                try db.run(
                    """
                    UPDATE notification_delivery SET state = \(state.name), attempts = \(Int64(claim.attempt)),
                      next_attempt_at = \(state.nextAttempt?.millis), claimed_by = NULL, claimed_until = NULL
                    WHERE event_id = \(claim.eventId)
                    """)
                recorded += 1
            }
            return recorded
        }
    }

    public func releaseNotificationSends(_ claims: [NotificationSendClaim], claimer: String) throws -> Int {
        guard !claims.isEmpty else { return 0 }
        return try write { db in
            try claims.reduce(0) { released, claim in
                released + (try db.run(
                    """
                    UPDATE notification_delivery SET claimed_by = NULL, claimed_until = NULL
                    WHERE event_id = \(claim.eventId) AND claimed_by = \(claimer) AND attempts = \(Int64(claim.attempt - 1)) AND state = 'pending'
                    """))
            }
        }
    }

    public func notificationSendQueue() throws -> NotificationSendQueue {
        try session.transaction(readOnly: true) { db in
            var queue = NotificationSendQueue()
            for row in try db.rows("SELECT state, count(*)::bigint, count(*) FILTER (WHERE attempts > 0)::bigint FROM notification_delivery GROUP BY state") {
                let (state, n, tried) = try row.decode((String, Int64, Int64).self)
                switch state {
                case "pending":
                    queue.pending = Int(n)
                    queue.retrying = Int(tried)
                case "failed": queue.failed = Int(n)
                default: queue.delivered = Int(n)
                }
            }
            return queue
        }
    }

    public func playerNotifications(userId: String, limit: Int) throws -> [PlayerNotification] {
        try session.transaction(readOnly: true) { db in
            let events = try db.rows(
                """
                SELECT e.* FROM subscription_event e
                WHERE e.original_transaction_id IN (SELECT original_transaction_id FROM subscription WHERE user_id = \(userId))
                   OR e.original_transaction_id IN (SELECT id FROM store_transaction WHERE user_id = \(userId))
                ORDER BY e.id DESC LIMIT \(Int64(limit))
                """
            ).map { row in (id: try cells(row).int("id"), event: try cells(row).subscriptionEvent()) }
            let deliveries = try deliveries(db, eventIds: events.map(\.id))
            return events.map { PlayerNotification(eventId: $0.id, event: $0.event, delivery: deliveries[$0.id]) }
        }
    }

    public func notificationDeliveries(eventIds: [Int64]) throws -> [Int64: NotificationDelivery] {
        try session.transaction(readOnly: true) { db in try deliveries(db, eventIds: eventIds) }
    }

    /// A pending delivery, due now, for every notification logged after its app's `notification_after`
    /// (its app found through its subscription or, for any other notification, its transaction); the
    /// apps' cursors moved to the log's end. Only under the log's lock held alone.
    private func enqueueSends(_ db: PostgresSession.Transaction, now: Instant) throws {
        let last = try db.rows("SELECT coalesce(max(id), 0)::bigint FROM subscription_event").first?.decode(Int64.self) ?? 0
        try db.run(
            """
            INSERT INTO notification_delivery (event_id, app_id, user_id, state, attempts, next_attempt_at, created_at)
            SELECT e.id, a.id, coalesce(s.user_id, t.user_id), 'pending', 0, \(now.millis), \(now.millis)
            FROM app a JOIN subscription_event e ON e.id > a.notification_after AND e.id <= \(last)
            LEFT JOIN subscription s ON s.original_transaction_id = e.original_transaction_id
            LEFT JOIN store_transaction t ON t.id = e.original_transaction_id
            WHERE a.notification_url IS NOT NULL AND a.id = coalesce(s.app_id, t.app_id) AND \(unescaped: NotificationSends.appleSentSQL)
            ON CONFLICT (event_id) DO NOTHING
            """)
        try db.run("UPDATE app SET notification_after = \(last) WHERE notification_url IS NOT NULL AND notification_after < \(last)")
    }

    /// The advisory lock every writer of the log (`subscription_event`) holds shared while its transaction
    /// runs, and the sender's enqueue holds alone.
    static let eventLogLock: Int64 = 0x5344_4C4F_4730_0001

    /// Holds the log's lock shared until the transaction ends: before a writer takes its first id from the
    /// log's sequence, and outside any savepoint (one rolled back to would let it go).
    func holdEventLog(_ db: PostgresSession.Transaction) throws {
        try db.run("SELECT pg_advisory_xact_lock_shared(\(Self.eventLogLock))")
    }

    /// Sets the point an app's sends start from to the log's end (a URL just set).
    func startSends(_ db: PostgresSession.Transaction, appId: String) throws {
        try db.run("UPDATE app SET notification_after = (SELECT coalesce(max(id), 0) FROM subscription_event) WHERE id = \(appId)")
    }

    /// A URL cleared: what was waiting to go to it never will (`NotificationSends.stopSQL`).
    func stopSends(_ db: PostgresSession.Transaction, appId: String, at now: Instant) throws {
        var binds = PostgresBindings()
        binds.append(appId)
        binds.append(now.millis)
        for statement in NotificationSends.stopSQL(parameter: { "$\($0)" }) { try db.run(PostgresQuery(unsafeSQL: statement, binds: binds)) }
    }

    private func deliveries(_ db: PostgresSession.Transaction, eventIds: [Int64]) throws -> [Int64: NotificationDelivery] {
        guard !eventIds.isEmpty else { return [:] }
        var attempts: [Int64: [NotificationSendAttempt]] = [:]
        for row in try db.rows("SELECT * FROM notification_attempt WHERE event_id = ANY(\(eventIds)) ORDER BY event_id, attempt") {
            let cells = cells(row)
            attempts[try cells.int("event_id"), default: []].append(
                NotificationSendAttempt(
                    attempt: Int(try cells.int("attempt")), at: try cells.instant("at"),
                    result: NotificationSendResult(rawValue: try cells.text("result")) ?? .other,
                    httpStatus: try cells.optionalInt("http_status").map(Int.init), detail: try cells.text("detail"), url: try cells.text("url")))
        }
        var deliveries: [Int64: NotificationDelivery] = [:]
        for row in try db.rows("SELECT event_id, app_id, state, next_attempt_at FROM notification_delivery WHERE event_id = ANY(\(eventIds))") {
            let cells = cells(row)
            let id = try cells.int("event_id")
            deliveries[id] = NotificationDelivery(
                eventId: id, appId: try cells.text("app_id"),
                state: NotificationSends.state(try cells.text("state"), next: try cells.optionalInt("next_attempt_at").map(Instant.init(millis:))),
                attempts: attempts[id] ?? [])
        }
        return deliveries
    }
}
