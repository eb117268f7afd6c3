import Foundation
import StoreDeskCore
import StoreDeskStoreAPI
import StoreDeskTrust

/// `serve`'s sender: every App Store Server Notification V2 the store logs for an app with a notification
/// URL (`apps set APP --notification-url URL`) is POSTed there as Apple does, `{"signedPayload": JWS}`
/// signed by the store's chain, and retried on Apple's schedule (`NotificationSendSchedule`) at the app's
/// StoreKit time rate.
///
/// A round: claim the due attempts in one store write (`claimNotificationSends`: several serves on one
/// store never claim one attempt twice), POST them concurrently, record each attempt and the delivery's new
/// state in a write fenced by the claim. Rounds run every `interval` while the server runs, on the store's
/// time line (`ServeClock`: the store's instant running on in real time).
public final class NotificationSender: Sendable {
    public struct Settings: Sendable {
        /// Seconds between rounds that found nothing to do.
        public var interval: Double
        /// Attempts claimed a round (and POSTed at once).
        public var batch: Int
        /// Seconds a POST may take before it counts as TIMED_OUT.
        public var timeout: Double

        public init(interval: Double = 0.1, batch: Int = 64, timeout: Double = 5) {
            self.interval = interval
            self.batch = batch
            self.timeout = timeout
        }
    }

    let database: any Store
    let chain: SigningChain
    let poster: CallbackPoster
    let clock: ServeClock
    let settings: Settings
    let log: RequestLog?
    /// This process's name on its claims.
    public let claimer: String

    public init(database: any Store, chain: SigningChain, clock: ServeClock, settings: Settings = Settings(), log: RequestLog? = nil) {
        self.database = database
        self.chain = chain
        self.clock = clock
        self.settings = settings
        self.log = log
        poster = CallbackPoster(timeout: settings.timeout, connectionsPerHost: settings.batch)
        claimer = "serve \(ProcessInfo.processInfo.hostName) pid \(getpid()) \(UUID().uuidString.prefix(8))"
    }

    /// A claim is held this long (store time): a serve that dies mid-send gives its attempts up after it.
    static let lease = Instant.Duration.seconds(60)

    /// Rounds until the task is cancelled, then closes the HTTP client.
    public func run() async {
        while !Task.isCancelled {
            let sent = (try? await round()) ?? 0
            if sent < settings.batch {
                try? await Task.sleep(nanoseconds: UInt64(settings.interval * 1_000_000_000))
            }
        }
        try? await poster.shutdown()
    }

    /// One round: the attempts due now, sent and recorded. Returns how many were sent.
    @discardableResult
    public func round() async throws -> Int {
        let now = try clock.now()
        let claims = try await blocking { [database, claimer, settings] in
            try database.claimNotificationSends(claimer: claimer, at: now, lease: Self.lease, limit: settings.batch)
        }
        guard !claims.isEmpty else { return 0 }
        var rates: [String: TimeRate] = [:]
        for appId in Set(claims.map(\.appId)) {
            rates[appId] = (try? database.storeKitTimeRate(appId: appId))??.timeRate ?? .realTime
        }
        let outcomes = await withTaskGroup(of: NotificationSendOutcome.self) { group in
            for claim in claims {
                let rate = rates[claim.appId] ?? .realTime
                group.addTask { await self.send(claim, rate: rate) }
            }
            var outcomes: [NotificationSendOutcome] = []
            for await outcome in group { outcomes.append(outcome) }
            return outcomes
        }
        // The round's attempts in one write (a commit each would cost a sync each).
        let recorded = (try? await blocking { [database, claimer] in try database.recordNotificationSends(outcomes, claimer: claimer) }) ?? 0
        for outcome in outcomes { logLine(outcome, lost: recorded < outcomes.count) }
        return claims.count
    }

    /// One attempt: signed and POSTed; what it came to.
    func send(_ claim: NotificationSendClaim, rate: TimeRate) async -> NotificationSendOutcome {
        let attempt: NotificationSendAttempt
        do {
            let body = try chain.signedNotificationLine(claim.event)
            let reply = await poster.post(bytes: Array(body.utf8), to: claim.url, contentType: "application/json")
            attempt = Self.attempt(claim.attempt, to: claim.url, reply: reply, at: (try? clock.now()) ?? Instant(Date()))
        } catch {
            attempt = NotificationSendAttempt(
                attempt: claim.attempt, at: (try? clock.now()) ?? Instant(Date()), result: .other, httpStatus: nil,
                detail: "not signed: \(error)", url: claim.url)
        }
        let state = NotificationSendSchedule.state(after: claim.attempt, result: attempt.result, at: attempt.at, rate: rate)
        return NotificationSendOutcome(claim: claim, attempt: attempt, state: state)
    }

    /// A TEST notification (Request a Test Notification) POSTed to the app's URL, once: Apple does not
    /// retry a test. Returns at once; `done` gets the attempt when the POST ends.
    public func sendTest(_ signedPayload: String, uuid: String, to url: String, done: @escaping @Sendable (NotificationSendAttempt) -> Void) {
        Task.detached { [poster, clock, log] in
            let body = try? JSONSerialization.data(withJSONObject: ["signedPayload": signedPayload])
            let reply = await poster.post(bytes: Array(body ?? Data()), to: url, contentType: "application/json")
            let attempt = Self.attempt(1, to: url, reply: reply, at: (try? clock.now()) ?? Instant(Date()))
            log?.write("notification \(uuid) TEST → \(url) attempt 1: \(attempt.outcome)" + (attempt.result == .success ? "" : " (\(attempt.detail))"))
            done(attempt)
        }
    }

    /// One line a send in serve's log.
    private func logLine(_ outcome: NotificationSendOutcome, lost: Bool) {
        let claim = outcome.claim, attempt = outcome.attempt, state = outcome.state
        log?.write(
            "notification \(claim.event.notificationUUID) \(claim.event.appleName) → \(claim.url) attempt \(claim.attempt): \(attempt.outcome)"
                + (attempt.result == .success ? "" : " (\(attempt.detail))") + ", \(state.name)"
                + (state.nextAttempt.map { " next \($0.iso8601)" } ?? "") + (lost ? " [some claims of the round were lost: not all recorded]" : ""))
    }

    /// What a reply means as Apple names it.
    static func attempt(_ number: Int, to url: String, reply: CallbackReply, at: Instant) -> NotificationSendAttempt {
        if let failure = reply.failure {
            let result: NotificationSendResult
            switch failure {
            case .connectionRefused: result = .socketIssue
            case .timedOut: result = .timedOut
            case .other(let text):
                let lower = text.lowercased()
                if lower.contains("closed the connection") { result = .prematureClose }
                else if lower.contains("tls") || lower.contains("ssl") || lower.contains("handshake") || lower.contains("certificate") { result = .tlsIssue }
                else if lower.contains("redirect") { result = .circularRedirect }
                else if lower.contains("resolve") || lower.contains("connect") || lower.contains("socket") { result = .socketIssue }
                else { result = .other }
            }
            return NotificationSendAttempt(attempt: number, at: at, result: result, httpStatus: nil, detail: failure.sentence, url: url)
        }
        let status = reply.status ?? 0
        let result = NotificationSendResult.of(status: status)
        return NotificationSendAttempt(
            attempt: number, at: at, result: result, httpStatus: status, detail: result == .success ? "" : "HTTP \(status)", url: url)
    }

    /// A store call off the cooperative pool (the store's calls block their thread).
    private func blocking<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try work() }) }
        }
    }
}

/// The instant `serve` works at: the store's time line (its own clock when it keeps one, else the wall
/// clock), running on in real time from when the server started, as the console's clock does. A store
/// with a clock of its own stands still between writes; the sender's retries are due on this line.
public final class ServeClock: Sendable {
    let database: any StoreTimeLine
    let start: Instant
    let started: UInt64

    public init(database: any StoreTimeLine) throws {
        self.database = database
        start = try database.now(wall: Instant(Date())).instant
        started = DispatchTime.now().uptimeNanoseconds
    }

    public func now() throws -> Instant {
        let elapsed = Int64((DispatchTime.now().uptimeNanoseconds - started) / 1_000_000)
        return max(try database.now(wall: Instant(Date())).instant, start.adding(Instant.Duration(millis: elapsed)))
    }
}
