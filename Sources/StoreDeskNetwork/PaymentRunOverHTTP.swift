import Foundation
import StoreDeskCore
import StoreDeskStoreAPI

/// Runs a payment simulation whose callbacks go to real game servers over HTTP.
///
/// The simulation keeps its simulated clock and decides everything (Core); this loop moves the bytes:
/// it runs the engine until the clock reaches `holdUntil` (the oldest callback still in flight plus the
/// reply window), commits what the engine emitted, POSTs the callbacks waiting in its outbox (at most
/// `concurrency` at once, on the poster's keep-alive connections), and hands every reply back to the
/// engine at the simulated time it arrives. A callback leaves only after its order is committed, so a
/// kill at any moment never leaves a delivered order the store does not know.
///
/// Apps without a URL keep the in-process game server and its speed: no network, no waiting.
///
///     var simulation = PaymentSimulation(configuration)   // remoteApps: the apps in `urls`
///     try await PaymentRunOverHTTP(store: store, run: run, poster: poster, urls: ["app_galaxy": url]).run(&simulation)
public struct PaymentRunOverHTTP: Sendable {
    public var store: any QueueStore
    /// The payment run this process holds (`startRun`): every commit is made under it.
    public var run: PaymentRun
    public var poster: CallbackPoster
    /// The callback URL of each app whose game server is remote.
    public var urls: [String: String]
    /// Callbacks in flight at most.
    public var concurrency: Int
    /// Simulated seconds per wall-clock second; 0 runs as fast as the game servers answer.
    public var speed: Double
    /// Steps committed per store transaction at most.
    public var batch: Int

    public init(
        store: any QueueStore, run: PaymentRun, poster: CallbackPoster, urls: [String: String], concurrency: Int = 16, speed: Double = 0,
        batch: Int = 1024
    ) {
        self.store = store
        self.run = run
        self.poster = poster
        self.urls = urls
        self.concurrency = max(1, concurrency)
        self.speed = speed
        self.batch = max(1, batch)
    }

    /// Runs the simulation to its end (and every callback sent before it to its reply).
    public func run(_ simulation: inout PaymentSimulation) async throws {
        let end = simulation.end
        let start = simulation.now
        let wallStart = DispatchTime.now().uptimeNanoseconds
        var pending: [PaymentChange] = []
        var queue: [OutboundCallback] = []
        queue.reserveCapacity(concurrency)
        let store = self.store
        let run = self.run
        let batch = self.batch
        var lastCommit = DispatchTime.now().uptimeNanoseconds
        func flush() throws {
            var index = 0
            while index < pending.count {
                try store.apply(Array(pending[index..<min(pending.count, index + batch)]), run: run)
                index += batch
            }
            let now = DispatchTime.now().uptimeNanoseconds
            if pending.isEmpty {
                // A run waiting on slow game servers still says it is alive.
                guard now - lastCommit >= UInt64(PaymentRun.heartbeatInterval.millis) * 1_000_000 else { return }
                try store.heartbeat(run)
            }
            pending.removeAll(keepingCapacity: true)
            lastCommit = now
        }

        try await withThrowingTaskGroup(of: (OutboundCallback, String, CallbackReply).self) { group in
            var inFlight = 0
            while true {
                // 1. The engine, as far as the clock may go.
                var limit = end
                if speed > 0 {
                    let elapsed = Double(DispatchTime.now().uptimeNanoseconds - wallStart) / 1_000_000 * speed
                    limit = min(limit, start.adding(Instant.Duration(millis: Int64(elapsed))))
                }
                if let hold = simulation.holdUntil { limit = min(limit, hold) }
                simulation.advance(until: limit) { pending.append($0) }
                queue.append(contentsOf: simulation.takeOutbox())

                // 2. Commit before anything leaves; 3. send what the concurrency allows.
                if !queue.isEmpty && inFlight < concurrency || pending.count >= batch { try flush() }
                while inFlight < concurrency, !queue.isEmpty {
                    let callback = queue.removeFirst()
                    let url = urls[callback.appId] ?? ""
                    let poster = self.poster
                    group.addTask { (callback, url, await poster.post(callback.body, to: url)) }
                    inFlight += 1
                }

                // 4. Done when nothing is in flight and nothing is due before the end.
                let nextDue = simulation.nextDue
                let engineDone = nextDue.map { $0 > end } ?? true
                if inFlight == 0 && queue.isEmpty && engineDone && (speed == 0 || simulation.now >= end) { break }

                // 5. Wait for a reply when the engine is held by one (or has nothing due yet).
                let engineHeld = nextDue.map { $0 > limit } ?? true
                if inFlight > 0 && (engineHeld || inFlight >= concurrency) {
                    guard let (callback, url, reply) = try await group.next() else { continue }
                    inFlight -= 1
                    pending.append(contentsOf: simulation.answer(callback, with: reply, url: url))
                } else if engineHeld && inFlight == 0 && queue.isEmpty {
                    // Paced by the wall clock and nothing to do yet.
                    try flush()
                    try await Task.sleep(nanoseconds: 10_000_000)
                }
            }
        }
        try flush()
        simulation.updateSummary()
    }
}
