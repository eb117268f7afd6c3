import GRDB
import StoreDeskCore
import StoreDeskStoreAPI

/// Notifications sent (`serve`'s sender) on SQLite: deliveries made from the log by id, claimed in an
/// IMMEDIATE transaction (one writer at a time, so two serves never claim one attempt), attempts recorded
/// once each (`UNIQUE (event_id, attempt)`), fenced by the claim.
extension AppDatabase: NotificationSendStore {
    public func claimNotificationSends(claimer: String, at now: Instant, lease: Instant.Duration, limit: Int) throws -> [NotificationSendClaim] {
        guard !isReadOnly else { return [] }
        // Most polls find nothing: a read decides whether to write at all.
        guard try reader.read({ try Self.sendWork($0, now: now) }) else { return [] }
        return try writeImmediate { db in
            try Self.enqueueSends(db, now: now)
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT d.event_id, d.app_id, d.attempts, a.notification_url, \(SubscriptionEventRow.columns)
                    FROM notification_delivery d JOIN app a ON a.id = d.app_id JOIN subscription_event e ON e.id = d.event_id
                    WHERE d.state = 'pending' AND d.next_attempt_at <= ? AND (d.claimed_until IS NULL OR d.claimed_until <= ?)
                      AND a.notification_url IS NOT NULL
                    ORDER BY d.next_attempt_at, d.event_id LIMIT ?
                    """,
                arguments: [now.millis, now.millis, limit])
            var claims: [NotificationSendClaim] = []
            for row in rows {
                let claim = NotificationSendClaim(
                    eventId: try row.column("event_id"), appId: try row.column("app_id"), attempt: (try row.column("attempts") as Int) + 1,
                    url: try row.column("notification_url"), event: try SubscriptionEventRow.decode(row: row))
                try db.cachedStatement(sql: "UPDATE notification_delivery SET claimed_by = ?, claimed_until = ? WHERE event_id = ?")
                    .execute(arguments: [claimer, now.adding(lease).millis, claim.eventId])
                claims.append(claim)
            }
            return claims
        }
    }

    public func recordNotificationSends(_ sends: [NotificationSendOutcome], claimer: String) throws -> Int {
        guard !sends.isEmpty else { return 0 }
        return try writeImmediate { db in
            var recorded = 0
            for send in sends {
                let claim = send.claim, attempt = send.attempt
                // A statement each, prepared once a connection (a round records up to 64).
                guard let row = try Row.fetchOne(
                    try db.cachedStatement(
                        sql: """
                            SELECT d.claimed_by, d.attempts, d.state, a.notification_url FROM notification_delivery d JOIN app a ON a.id = d.app_id
                            WHERE d.event_id = ?
                            """),
                    arguments: [claim.eventId]),
                    try row.column("claimed_by") as String? == claimer, try row.column("attempts") as Int == claim.attempt - 1,
                    try row.column("state") as String == "pending"
                else { continue }
                let state = NotificationSends.state(after: send.state, urlKept: try row.column("notification_url") as String? != nil)
                let at = try StoreMeta.stamp(attempt.at, in: db)
                try db.cachedStatement(
                    sql: "INSERT INTO notification_attempt (event_id, attempt, at, result, http_status, detail, url) VALUES (?, ?, ?, ?, ?, ?, ?)"
                ).execute(arguments: [claim.eventId, claim.attempt, at.millis, attempt.result.rawValue, attempt.httpStatus, attempt.detail, attempt.url])
                try db.cachedStatement(
                    sql: """
                        UPDATE notification_delivery SET state = ?, attempts = ?, next_attempt_at = ?, claimed_by = NULL, claimed_until = NULL
                        WHERE event_id = ?
                        """
                ).execute(arguments: [state.name, claim.attempt, state.nextAttempt?.millis, claim.eventId])
                recorded += 1
            }
            return recorded
        }
    }

    public func releaseNotificationSends(_ claims: [NotificationSendClaim], claimer: String) throws -> Int {
        guard !claims.isEmpty else { return 0 }
        return try writeImmediate { db in
            var released = 0
            for claim in claims {
                try db.cachedStatement(
                    sql: """
                        UPDATE notification_delivery SET claimed_by = NULL, claimed_until = NULL
                        WHERE event_id = ? AND claimed_by = ? AND attempts = ? AND state = 'pending'
                        """)
                    .execute(arguments: [claim.eventId, claimer, claim.attempt - 1])
                released += db.changesCount
            }
            return released
        }
    }

    public func notificationSendQueue() throws -> NotificationSendQueue {
        try reader.read { db in
            var queue = NotificationSendQueue()
            for row in try Row.fetchAll(db, sql: "SELECT state, COUNT(*) AS n FROM notification_delivery GROUP BY state") {
                let n: Int = try row.column("n")
                switch try row.column("state") as String {
                case "pending": queue.pending = n
                case "failed": queue.failed = n
                default: queue.delivered = n
                }
            }
            queue.retrying = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM notification_delivery WHERE state = 'pending' AND attempts > 0") ?? 0
            return queue
        }
    }

    public func playerNotifications(userId: String, limit: Int) throws -> [PlayerNotification] {
        try reader.read { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT e.id AS log_id, \(SubscriptionEventRow.columns) FROM subscription_event e
                    WHERE e.original_transaction_id IN (SELECT original_transaction_id FROM subscription WHERE user_id = ?)
                       OR e.original_transaction_id IN (SELECT id FROM store_transaction WHERE user_id = ?)
                    ORDER BY e.id DESC LIMIT ?
                    """,
                arguments: [userId, userId, limit])
            let events = try rows.map { (id: try $0.column("log_id") as Int64, event: try SubscriptionEventRow.decode(row: $0)) }
            let deliveries = try Self.deliveries(db, eventIds: events.map(\.id))
            return events.map { PlayerNotification(eventId: $0.id, event: $0.event, delivery: deliveries[$0.id]) }
        }
    }

    public func notificationDeliveries(eventIds: [Int64]) throws -> [Int64: NotificationDelivery] {
        try reader.read { try Self.deliveries($0, eventIds: eventIds) }
    }

    // MARK: - In a transaction

    /// Whether a claim would do anything: a due delivery no live claim holds, or notifications logged since
    /// an app's URL was set.
    static func sendWork(_ db: Database, now: Instant) throws -> Bool {
        try Bool.fetchOne(
            db,
            sql: """
                SELECT EXISTS (SELECT 1 FROM notification_delivery WHERE state = 'pending' AND next_attempt_at <= :now
                    AND (claimed_until IS NULL OR claimed_until <= :now))
                  OR EXISTS (SELECT 1 FROM app WHERE notification_url IS NOT NULL
                    AND notification_after < (SELECT COALESCE(MAX(id), 0) FROM subscription_event))
                """,
            arguments: ["now": now.millis]) ?? false
    }

    /// A pending delivery, due now, for every notification logged after its app's `notification_after`, its
    /// app found through its subscription or, for any other notification, its transaction.
    static func enqueueSends(_ db: Database, now: Instant) throws {
        let last = try Int64.fetchOne(db, sql: "SELECT COALESCE(MAX(id), 0) FROM subscription_event") ?? 0
        try db.execute(
            sql: """
                INSERT OR IGNORE INTO notification_delivery (event_id, app_id, user_id, state, attempts, next_attempt_at, created_at)
                SELECT e.id, a.id, COALESCE(s.user_id, t.user_id), 'pending', 0, :now, :now
                FROM app a JOIN subscription_event e ON e.id > a.notification_after AND e.id <= :last
                LEFT JOIN subscription s ON s.original_transaction_id = e.original_transaction_id
                LEFT JOIN store_transaction t ON t.id = e.original_transaction_id
                WHERE a.notification_url IS NOT NULL AND a.id = COALESCE(s.app_id, t.app_id) AND \(NotificationSends.appleSentSQL)
                """,
            arguments: ["now": now.millis, "last": last])
        try db.execute(
            sql: "UPDATE app SET notification_after = ? WHERE notification_url IS NOT NULL AND notification_after < ?",
            arguments: [last, last])
    }

    /// Sets the point an app's sends start from to the log's end: only notifications logged from now on go
    /// to a URL just set.
    static func startSends(_ db: Database, appId: String) throws {
        try db.execute(
            sql: "UPDATE app SET notification_after = (SELECT COALESCE(MAX(id), 0) FROM subscription_event) WHERE id = ?",
            arguments: [appId])
    }

    /// A URL cleared: what was waiting to go to it never will (`NotificationSends.stopSQL`).
    static func stopSends(_ db: Database, appId: String, at now: Instant) throws {
        for statement in NotificationSends.stopSQL(parameter: { "?\($0)" }) { try db.execute(sql: statement, arguments: [appId, now.millis]) }
    }

    static func deliveries(_ db: Database, eventIds: [Int64]) throws -> [Int64: NotificationDelivery] {
        guard !eventIds.isEmpty else { return [:] }
        let marks = Array(repeating: "?", count: eventIds.count).joined(separator: ", ")
        var attempts: [Int64: [NotificationSendAttempt]] = [:]
        for row in try Row.fetchAll(
            db, sql: "SELECT * FROM notification_attempt WHERE event_id IN (\(marks)) ORDER BY event_id, attempt",
            arguments: StatementArguments(eventIds))
        {
            attempts[try row.column("event_id"), default: []].append(
                NotificationSendAttempt(
                    attempt: try row.column("attempt"), at: Instant(millis: try row.column("at")),
                    result: NotificationSendResult(rawValue: try row.column("result")) ?? .other, httpStatus: try row.column("http_status"),
                    detail: try row.column("detail"), url: try row.column("url")))
        }
        var deliveries: [Int64: NotificationDelivery] = [:]
        for row in try Row.fetchAll(
            db, sql: "SELECT event_id, app_id, state, next_attempt_at FROM notification_delivery WHERE event_id IN (\(marks))",
            arguments: StatementArguments(eventIds))
        {
            let id: Int64 = try row.column("event_id")
            deliveries[id] = NotificationDelivery(
                eventId: id, appId: try row.column("app_id"),
                state: NotificationSends.state(try row.column("state"), next: (try row.column("next_attempt_at") as Int64?).map(Instant.init(millis:))),
                attempts: attempts[id] ?? [])
        }
        return deliveries
    }
}
