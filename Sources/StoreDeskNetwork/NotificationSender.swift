import Foundation
import StoreDeskCore
import StoreDeskStoreAPI
import StoreDeskTrust

/// `serve`'s sender: every App Store Server Notification V2 the store logs for an app with a notification
/// URL (`apps set APP --notification-url URL`) is POSTed there as Apple does, `{"signedPayload": JWS}`
/// signed by the store's chain, and retried on Apple's schedule (`NotificationSendSchedule`) at the app's
/// StoreKit time rate.
///
/// What the notification sender takes of a store: its sends, its time line (`ServeClock`) and the catalogue
/// (each app's time rate).
public typealias NotificationSenderStore = NotificationSendStore & CatalogueStore & StoreTimeLine

/// Due attempts are claimed in store writes (`claimNotificationSends`: several serves on one store never
/// claim one attempt twice) and POSTed concurrently, each on its own; each attempt and the delivery's new
/// state are recorded in a write fenced by the claim, on the store's time line (`ServeClock`: the store's
/// instant running on in real time).
public final class NotificationSender: Sendable {
    public struct Settings: Sendable {
        /// Seconds between claims while sends are out or nothing is due.
        public var interval: Double
        /// The most attempts out at once.
        public var batch: Int
        /// Seconds a POST may take before it counts as TIMED_OUT.
        public var timeout: Double

        public init(interval: Double = 0.1, batch: Int = 64, timeout: Double = 5) {
            self.interval = interval
            self.batch = batch
            self.timeout = timeout
        }
    }

    let store: any NotificationSenderStore
    let chain: SigningChain
    let poster: CallbackPoster
    let clock: ServeClock
    let settings: Settings
    let log: RequestLog?
    /// This process's name on its claims.
    public let claimer: String

    public init(store: any NotificationSenderStore, chain: SigningChain, clock: ServeClock, settings: Settings = Settings(), log: RequestLog? = nil) {
        self.store = store
        self.chain = chain
        self.clock = clock
        self.settings = settings
        self.log = log
        poster = CallbackPoster(timeout: settings.timeout, connectionsPerHost: settings.batch)
        claimer = "serve \(ProcessInfo.processInfo.hostName) pid \(getpid()) \(UUID().uuidString.prefix(8))"
    }

    /// A claim is held this long (store time): a serve that dies mid-send gives its attempts up after it.
    static let lease = Instant.Duration.seconds(60)

    /// Sends until the task is cancelled, then closes the HTTP client. At most `batch` attempts are out at
    /// once, each on its own: claims are taken every `interval` and whenever half the slots are free, so a
    /// receiver that hangs holds up its own attempts only, never another app's. An attempt is recorded when
    /// it ends, with every other that ended meanwhile (one write for many). Cancelled (SIGTERM), the attempts
    /// out are given back unspent unless a reply came, and the next serve makes them.
    public func run() async {
        let records = SendRecords(sender: self)
        await withTaskGroup(of: Bool.self) { group in
            // A child's result: true for an attempt that ended, false for the pause between claims.
            var out = 0, pausing = false, claimNow = true
            while !Task.isCancelled {
                if claimNow && out < settings.batch {
                    for (claim, rate) in (try? await self.claim(limit: settings.batch - out)) ?? [] {
                        out += 1
                        group.addTask {
                            if let outcome = await self.send(claim, rate: rate) { await records.record(outcome) }
                            else { await records.release(claim) }
                            return true
                        }
                    }
                }
                if !pausing {
                    pausing = true
                    group.addTask { [settings] in
                        try? await Task.sleep(nanoseconds: UInt64(settings.interval * 1_000_000_000))
                        return false
                    }
                }
                guard let ended = await group.next() else { break }
                if ended { out -= 1 } else { pausing = false }
                claimNow = !ended || out <= settings.batch / 2
            }
            group.cancelAll()
        }
        try? await poster.shutdown()
    }

    /// The attempts due now, claimed (at most `limit`), each with its app's time rate.
    func claim(limit: Int) async throws -> [(NotificationSendClaim, TimeRate)] {
        let now = try clock.now()
        let claims = try await store.claimNotificationSends(claimer: claimer, at: now, lease: Self.lease, limit: limit)
        var rates: [String: TimeRate] = [:]
        for appId in Set(claims.map(\.appId)) {
            rates[appId] = (try? store.storeKitTimeRate(appId: appId))??.timeRate ?? .realTime
        }
        return claims.map { ($0, rates[$0.appId] ?? .realTime) }
    }

    /// Attempts that ended, recorded in one write, and logged.
    func record(_ outcomes: [NotificationSendOutcome]) async {
        let recorded = (try? await uncancelled { [store, claimer] in try await store.recordNotificationSends(outcomes, claimer: claimer) }) ?? 0
        for outcome in outcomes { logLine(outcome, lost: recorded < outcomes.count) }
    }

    /// Attempts a stop cut short, given back unspent.
    func release(_ claims: [NotificationSendClaim]) async {
        let released = (try? await uncancelled { [store, claimer] in try await store.releaseNotificationSends(claims, claimer: claimer) }) ?? 0
        for claim in claims {
            log?.write(
                "notification \(claim.event.notificationUUID) \(claim.event.appleName) → \(claim.url) attempt \(claim.attempt): "
                    + (released == claims.count ? "stopped before a reply, not counted: the next serve sends it" : "stopped before a reply; left to its claim's lease"))
        }
    }

    /// One attempt: signed and POSTed; what it came to. Nil when the sender was stopped before a reply
    /// came: the attempt is not the receiver's failure, and is not spent.
    func send(_ claim: NotificationSendClaim, rate: TimeRate) async -> NotificationSendOutcome? {
        let attempt: NotificationSendAttempt
        do {
            let body = try chain.signedNotificationLine(claim.event)
            let (reply, result) = await poster.exchange(bytes: Array(body.utf8), to: claim.url, contentType: "application/json")
            if reply.status == nil && Task.isCancelled { return nil }
            attempt = Self.attempt(claim.attempt, to: claim.url, reply: reply, result: result, at: (try? clock.now()) ?? Instant(Date()))
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
            let (reply, result) = await poster.exchange(bytes: Array(body ?? Data()), to: url, contentType: "application/json")
            let attempt = Self.attempt(1, to: url, reply: reply, result: result, at: (try? clock.now()) ?? Instant(Date()))
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
                + (state.nextAttempt.map { " next \($0.iso8601)" } ?? "") + (lost ? " [some claims of the write were lost: not all recorded]" : ""))
    }

    /// An exchange as the store keeps it: `result` is Apple's name for how it ended (`CallbackPoster.exchange`).
    static func attempt(_ number: Int, to url: String, reply: CallbackReply, result: NotificationSendResult, at: Instant) -> NotificationSendAttempt {
        if let failure = reply.failure {
            return NotificationSendAttempt(attempt: number, at: at, result: result, httpStatus: nil, detail: failure.sentence, url: url)
        }
        let status = reply.status ?? 0
        return NotificationSendAttempt(
            attempt: number, at: at, result: result, httpStatus: status, detail: result == .success ? "" : "HTTP \(status)", url: url)
    }

    /// A write a stop must not cut short: an attempt that ended is recorded, one a stop cut short is given
    /// back. The store's writes give up when their task is cancelled, and a stop cancels the sender's tasks;
    /// this write runs in a task of its own, which that cancellation does not reach, and is awaited.
    private func uncancelled<T: Sendable>(_ write: @escaping @Sendable () async throws -> T) async throws -> T {
        try await Task { try await write() }.value
    }
}

/// The attempts that ended, recorded as they come: one write at a time, taking every attempt that ended
/// while the write before it ran (receivers answering together are recorded together).
actor SendRecords {
    let sender: NotificationSender
    private var ended: [NotificationSendOutcome] = []
    private var stopped: [NotificationSendClaim] = []
    private var writing = false

    init(sender: NotificationSender) { self.sender = sender }

    func record(_ outcome: NotificationSendOutcome) async {
        ended.append(outcome)
        await write()
    }

    func release(_ claim: NotificationSendClaim) async {
        stopped.append(claim)
        await write()
    }

    /// Writes until nothing waits, unless a write is under way (it takes what came meanwhile).
    private func write() async {
        guard !writing else { return }
        writing = true
        while !ended.isEmpty || !stopped.isEmpty {
            let outcomes = ended, claims = stopped
            ended = []
            stopped = []
            if !outcomes.isEmpty { await sender.record(outcomes) }
            if !claims.isEmpty { await sender.release(claims) }
        }
        writing = false
    }
}

/// The instant `serve` works at: the store's time line (its own clock when it keeps one, else the wall
/// clock), running on in real time from when the server started, as the console's clock does. A store
/// with a clock of its own stands still between writes; the sender's retries are due on this line.
public final class ServeClock: Sendable {
    let store: any StoreTimeLine
    let start: Instant
    let started: UInt64

    public init(store: any StoreTimeLine) throws {
        self.store = store
        start = try store.now(wall: Instant(Date())).instant
        started = DispatchTime.now().uptimeNanoseconds
    }

    public func now() throws -> Instant {
        let elapsed = Int64((DispatchTime.now().uptimeNanoseconds - started) / 1_000_000)
        return max(try store.now(wall: Instant(Date())).instant, start.adding(Instant.Duration(millis: elapsed)))
    }
}
