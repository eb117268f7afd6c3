/// Sending App Store Server Notifications V2 to an app's notification URL, as Apple does: one POST of
/// `{"signedPayload": JWS}`; a send that does not get a 2xx is retried five times, 1, 12, 24, 48 and 72
/// hours after the attempt before it, then given up.
///
/// Hours are subscription time at the app's rate (`TimeRate`), so at "one second is one day" the five
/// retries come within about six seconds of real time and a test sees them.
///
///     let next = NotificationSendSchedule.nextAttempt(after: 1, failedAt: now, rate: .monthEvery30Seconds)
///     // now + 42 ms (one hour when a day lasts a second)
public enum NotificationSendSchedule {
    /// Hours between a failed attempt and the next: after the first, 1; after the second, 12; …
    public static let retryHours: [Int64] = [1, 12, 24, 48, 72]
    /// The first send and its five retries.
    public static var maximumAttempts: Int { retryHours.count + 1 }

    /// When attempt `attempt + 1` is due after attempt `attempt` (1-based) failed at `failedAt`; nil when
    /// that was the last.
    public static func nextAttempt(after attempt: Int, failedAt: Instant, rate: TimeRate) -> Instant? {
        guard attempt >= 1, attempt <= retryHours.count else { return nil }
        let wait = rate.realTime(forSubscriptionTime: .hours(retryHours[attempt - 1]))
        return failedAt.adding(Instant.Duration(millis: max(1, wait.millis)))
    }

    /// What a delivery becomes after attempt `attempt` ended in `result` at `at`.
    public static func state(after attempt: Int, result: NotificationSendResult, at: Instant, rate: TimeRate) -> NotificationSendState {
        if result == .success { return .delivered }
        if let next = nextAttempt(after: attempt, failedAt: at, rate: rate) { return .pending(next: next) }
        return .failed
    }
}

/// How one send attempt ended, by Apple's `sendAttemptResult` names (Get Notification History).
public enum NotificationSendResult: String, Hashable, Sendable, Codable, CaseIterable {
    case success = "SUCCESS"
    case timedOut = "TIMED_OUT"
    case tlsIssue = "TLS_ISSUE"
    case circularRedirect = "CIRCULAR_REDIRECT"
    case noResponse = "NO_RESPONSE"
    case socketIssue = "SOCKET_ISSUE"
    case unsupportedCharset = "UNSUPPORTED_CHARSET"
    case invalidResponse = "INVALID_RESPONSE"
    case prematureClose = "PREMATURE_CLOSE"
    case unsuccessfulHTTPResponseCode = "UNSUCCESSFUL_HTTP_RESPONSE_CODE"
    case other = "OTHER"

    /// The result of an HTTP status that came back.
    public static func of(status: Int) -> NotificationSendResult {
        (200...299).contains(status) ? .success : .unsuccessfulHTTPResponseCode
    }
}

/// Where one notification's delivery stands.
public enum NotificationSendState: Hashable, Sendable {
    /// A 2xx came back.
    case delivered
    /// Not yet sent, or sent and failed: the next attempt is due at `next` (store time).
    case pending(next: Instant)
    /// Every attempt failed; nothing more is sent.
    case failed

    /// `delivered`, `pending`, `failed`: as the store and `--json` name it.
    public var name: String {
        switch self {
        case .delivered: "delivered"
        case .pending: "pending"
        case .failed: "failed"
        }
    }

    public var nextAttempt: Instant? {
        if case .pending(let next) = self { return next }
        return nil
    }
}

/// One attempt as the store keeps it.
public struct NotificationSendAttempt: Hashable, Sendable {
    /// 1 for the first send, up to `NotificationSendSchedule.maximumAttempts`.
    public var attempt: Int
    /// When it ended, on the store's time line.
    public var at: Instant
    public var result: NotificationSendResult
    /// The HTTP status, when a reply came.
    public var httpStatus: Int?
    /// What went wrong, in words, when it failed; the URL it went to.
    public var detail: String
    public var url: String

    public init(attempt: Int, at: Instant, result: NotificationSendResult, httpStatus: Int?, detail: String, url: String) {
        self.attempt = attempt
        self.at = at
        self.result = result
        self.httpStatus = httpStatus
        self.detail = detail
        self.url = url
    }

    /// `HTTP 200`, `HTTP 500`, `TIMED_OUT`: how a list shows it.
    public var outcome: String { httpStatus.map { "HTTP \($0)" } ?? result.rawValue }
}

/// One notification's delivery to its app's URL: which notification, its state, and every attempt.
public struct NotificationDelivery: Hashable, Sendable {
    /// The notification's id in the store's log (`subscription_event`).
    public var eventId: Int64
    public var appId: String
    public var state: NotificationSendState
    public var attempts: [NotificationSendAttempt]

    public init(eventId: Int64, appId: String, state: NotificationSendState, attempts: [NotificationSendAttempt]) {
        self.eventId = eventId
        self.appId = appId
        self.state = state
        self.attempts = attempts
    }

    /// Whether any attempt failed (a delivery that got through at last included).
    public var hadFailures: Bool { attempts.contains { $0.result != .success } }

    /// `delivered after 3 attempts`, `pending: attempt 2 at 2026-…`, `failed after 6 attempts`.
    public var summary: String {
        switch state {
        case .delivered: attempts.count == 1 ? "delivered" : "delivered after \(attempts.count) attempts"
        case .pending(let next):
            attempts.isEmpty ? "pending: first send due \(next.iso8601)"
                : "pending: attempt \(attempts.count + 1) of \(NotificationSendSchedule.maximumAttempts) due \(next.iso8601), last \(attempts.last!.outcome)"
        case .failed: "failed after \(attempts.count) attempts, last \(attempts.last?.outcome ?? "none")"
        }
    }
}
