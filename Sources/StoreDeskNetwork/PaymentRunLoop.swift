import Foundation
import StoreDeskCore
import StoreDeskStoreAPI

/// Carries out a payment run for `storedesk simulate` when it waits on something: a pace (`--speed`), or
/// real game servers over HTTP. Its driver (`PaymentRunDriver`, Core) says what to commit, post and
/// heartbeat and what to wait for; this loop only does it: commits into the store as the run's, POSTs on
/// the poster's keep-alive connections, hands each reply back, and sleeps on `clock` when the pace says so.
///
/// Apps without a URL keep the in-process game server: no network, no waiting.
///
///     var driver = PaymentRunDriver(simulation, speed: 0, concurrency: 16)   // remoteApps: the apps in `urls`
///     try await PaymentRunLoop(store: store, run: run, poster: poster, urls: ["app_galaxy": url]).run(&driver)
public struct PaymentRunLoop: Sendable {
    public var store: any QueueStore
    /// The payment run this process holds (`startRun`): every commit is made under it.
    public var run: PaymentRun
    /// Where callbacks go; nil when no app's game server is remote.
    public var poster: CallbackPoster?
    /// The callback URL of each app whose game server is remote.
    public var urls: [String: String]
    /// The wall clock the pace is measured on, and how the loop waits for it: the machine's monotonic
    /// clock, or a test's simulated one.
    public var clock: any RunClock

    public init(
        store: any QueueStore, run: PaymentRun, poster: CallbackPoster? = nil, urls: [String: String] = [:], clock: any RunClock = MonotonicRunClock()
    ) {
        self.store = store
        self.run = run
        self.poster = poster
        self.urls = urls
        self.clock = clock
    }

    /// Runs the driver's run to its end (and every callback sent before it to its reply).
    public func run(_ driver: inout PaymentRunDriver) async throws {
        let store = self.store, run = self.run, poster = self.poster, urls = self.urls
        try await withThrowingTaskGroup(of: (OutboundCallback, String, CallbackReply).self) { group in
            while true {
                let (actions, wait) = driver.next(wall: clock.now())
                for action in actions {
                    switch action {
                    case .commit(let changes):
                        try store.apply(changes, run: run)
                        driver.committed()
                    case .heartbeat:
                        try store.heartbeat(run)
                    case .post(let callback):
                        let url = urls[callback.appId] ?? ""
                        guard let poster else {
                            driver.replied(callback, with: .failed(.other("no game server for app \(callback.appId)"), latencyMicros: 0), url: url)
                            continue
                        }
                        group.addTask { (callback, url, await poster.post(callback.body, to: url)) }
                    }
                }
                switch wait {
                case .again: continue
                case .done: return
                case .reply:
                    if let (callback, url, reply) = try await group.next() { driver.replied(callback, with: reply, url: url) }
                case .wall(let instant):
                    try await clock.sleep(until: instant)
                }
            }
        }
    }
}

/// The wall clock a run is paced on: what it reads, and how to wait until it reads an instant.
public protocol RunClock: Sendable {
    func now() -> Instant
    func sleep(until instant: Instant) async throws
}

/// The machine's monotonic clock (never set back), in milliseconds since boot.
public struct MonotonicRunClock: RunClock {
    public init() {}

    public func now() -> Instant { Instant(millis: Int64(DispatchTime.now().uptimeNanoseconds / 1_000_000)) }

    public func sleep(until instant: Instant) async throws {
        let ahead = instant.millis - now().millis
        if ahead > 0 { try await Task.sleep(nanoseconds: UInt64(ahead) * 1_000_000) }
    }
}
