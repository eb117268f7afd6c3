import StoreDeskCore

/// One attempt a `serve` claimed: which notification (its id in the log), the app, which attempt, the URL
/// it goes to and the notification to sign.
public struct NotificationSendClaim: Sendable, Hashable {
    public var eventId: Int64
    public var appId: String
    /// 1 for the first send.
    public var attempt: Int
    public var url: String
    public var event: SubscriptionEvent

    public init(eventId: Int64, appId: String, attempt: Int, url: String, event: SubscriptionEvent) {
        self.eventId = eventId
        self.appId = appId
        self.attempt = attempt
        self.url = url
        self.event = event
    }
}

/// How one claimed attempt ended, and what its delivery becomes.
public struct NotificationSendOutcome: Sendable, Hashable {
    public var claim: NotificationSendClaim
    public var attempt: NotificationSendAttempt
    public var state: NotificationSendState

    public init(claim: NotificationSendClaim, attempt: NotificationSendAttempt, state: NotificationSendState) {
        self.claim = claim
        self.attempt = attempt
        self.state = state
    }
}

extension NotificationSendStore {
    /// One attempt recorded; false when its claim was lost.
    @discardableResult
    public func recordNotificationSend(
        _ claim: NotificationSendClaim, claimer: String, attempt: NotificationSendAttempt, state: NotificationSendState
    ) async throws -> Bool {
        try await recordNotificationSends([NotificationSendOutcome(claim: claim, attempt: attempt, state: state)], claimer: claimer) == 1
    }
}

/// The send queue as an operator reads it: deliveries pending (due or waiting for a retry), failed after
/// the last retry, delivered.
public struct NotificationSendQueue: Sendable, Hashable {
    public var pending: Int
    /// Pending deliveries that failed at least once (waiting for a retry).
    public var retrying: Int
    public var failed: Int
    public var delivered: Int

    public init(pending: Int = 0, retrying: Int = 0, failed: Int = 0, delivered: Int = 0) {
        self.pending = pending
        self.retrying = retrying
        self.failed = failed
        self.delivered = delivered
    }

    public var isEmpty: Bool { pending == 0 && failed == 0 && delivered == 0 }
}

/// One of a player's notifications in the store's log, with its delivery when it was to be sent (its app
/// had a notification URL when it was logged), else nil.
public struct PlayerNotification: Sendable, Hashable {
    public var eventId: Int64
    public var event: SubscriptionEvent
    public var delivery: NotificationDelivery?

    public init(eventId: Int64, event: SubscriptionEvent, delivery: NotificationDelivery?) {
        self.eventId = eventId
        self.event = event
        self.delivery = delivery
    }

    /// `delivered`, `pending`, `failed`, or `not sent` (no notification URL).
    public var sendState: String { delivery?.state.name ?? "not sent" }
}

/// Notifications sent, as `serve`'s sender takes them: the deliveries it makes and claims and their
/// attempts. Each is one write, awaited: the backend runs it off the caller's thread (GRDB's writer for a
/// file, NIO's pool for blocking work for PostgreSQL), so a sender on the cooperative pool never blocks it.
public protocol NotificationSendStore: Sendable {
    /// In one write: makes a pending delivery for every notification logged since its app's notification URL
    /// was set (the log read by id, whatever wrote it), then claims up to `limit` deliveries whose next
    /// attempt is due at `now` and that no live claim holds, for `claimer` until `now + lease`. Two serves
    /// claiming at once never get the same attempt. Writes nothing when nothing is new or due.
    func claimNotificationSends(claimer: String, at now: Instant, lease: Instant.Duration, limit: Int) async throws -> [NotificationSendClaim]
    /// Records how claimed attempts ended and each delivery's new state, releasing the claims, in one write;
    /// an attempt whose claim `claimer` no longer holds is left out. Returns how many were recorded.
    @discardableResult
    func recordNotificationSends(_ sends: [NotificationSendOutcome], claimer: String) async throws -> Int
    /// Gives claimed attempts back unsent (a serve stopped while they were out): each delivery `claimer` still
    /// holds for that attempt is as it was before the claim, its attempt not spent, due for the next serve at
    /// once instead of after the claim's lease. Returns how many were given back.
    @discardableResult
    func releaseNotificationSends(_ claims: [NotificationSendClaim], claimer: String) async throws -> Int
}

/// The deliveries as the console, `user show` and Apple's notification history read them.
public protocol NotificationDeliveryStore: Sendable {
    /// How many deliveries are pending, failed and delivered.
    func notificationSendQueue() throws -> NotificationSendQueue
    /// The player's notifications, newest first (at most `limit`), each with its delivery.
    func playerNotifications(userId: String, limit: Int) throws -> [PlayerNotification]
    /// The deliveries of these notifications (by log id), with their attempts; one not sent is absent.
    func notificationDeliveries(eventIds: [Int64]) throws -> [Int64: NotificationDelivery]
}

/// What every backend decides the same way about sends.
public enum NotificationSends {
    /// The condition, over the log's row `e`, that it is a notification Apple would have sent: not one of
    /// the store's record of a chain before its first (`SubscriptionBaseline`), which is never sent and
    /// never in Apple's notification history.
    public static let appleSentSQL = "e.source <> '\(SubscriptionBaseline.source)'"

    /// The most deliveries made in one claim, so a store whose app just got a URL after a long simulation
    /// is taken in steps.
    public static let enqueueBatch = 10_000

    /// What a delivery becomes after an attempt: the schedule's state, unless the app's URL was cleared
    /// while the attempt was out, when a retry would wait for ever: failed.
    public static func state(after scheduled: NotificationSendState, urlKept: Bool) -> NotificationSendState {
        if !urlKept, case .pending = scheduled { return .failed }
        return scheduled
    }

    /// The state a delivery row holds, from its columns.
    public static func state(_ name: String, next: Instant?) -> NotificationSendState {
        switch name {
        case "delivered": .delivered
        case "failed": .failed
        default: .pending(next: next ?? Instant(millis: 0))
        }
    }
}
