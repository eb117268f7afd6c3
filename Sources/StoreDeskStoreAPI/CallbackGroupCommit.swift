import Dispatch
import Foundation
import StoreDeskCore

/// The game server's ledger as every backend runs it: requests arrive concurrently; one writer thread
/// takes every callback waiting and hands them to the backend's `commit` (one transaction, a group
/// commit), then answers them all. Under load a commit carries hundreds of callbacks; alone, a callback
/// waits for nothing but its own commit. A refused callback writes nothing.
///
/// Its rows are stamped on the store's one time line, not the wall clock: the ledger's clock starts at the
/// store's instant and runs on by the monotonic clock, and each commit stamps its callbacks and grants on
/// the store's time line (never before the store's clock or latest stamp), catching this clock up to it.
///
///     let ledger = CallbackGroupCommit(start: store.now(wall: ...).instant, name: "storedesk-ledger") { batch, clock in
///         try backend.write { ... GameServerEntry ... }
///     }
///     let decision = try await ledger.record(received)   // committed when this returns
///     ledger.close()                                     // after the server stopped taking requests
public final class CallbackGroupCommit: CallbackLedger, @unchecked Sendable {
    /// Callbacks one commit takes at most.
    public static let batchLimit = 512

    /// Decides and commits one batch in one transaction, a decision a callback in order.
    public typealias Commit = ([ReceivedCallback], StoreTimeLineClock) throws -> [GrantDecision]

    private struct Waiting {
        var callback: ReceivedCallback
        var then: @Sendable (Result<GrantDecision, any Error>) -> Void
    }

    private let commit: Commit
    private let committed: () -> Void
    private let stopped: () -> Void
    /// The store's time line as this server runs it.
    private let clock: StoreTimeLineClock
    private let condition = NSCondition()
    private var waiting: [Waiting] = []
    private var closed = false
    private var finished = false

    /// Starts the writer thread, its clock at `start` (the store's instant now). `committed` runs on the
    /// writer thread after each commit that succeeded, `stopped` once when the ledger closes.
    public init(
        start: Instant, threadName: String, commit: @escaping Commit, committed: @escaping () -> Void = {},
        stopped: @escaping () -> Void = {}
    ) {
        self.commit = commit
        self.committed = committed
        self.stopped = stopped
        clock = StoreTimeLineClock(start: start)
        let thread = Thread { [self] in run() }
        thread.name = threadName
        thread.start()
    }

    /// The instant on the store's time line now: the store's instant when the ledger started plus the
    /// time since (monotonic), caught up to any later stamp a commit took. For a callback's `receivedAt`.
    public var now: Instant { clock.now }

    /// Decides and commits one callback; returns once the commit is durable (or throws, with nothing stored).
    public func record(_ callback: ReceivedCallback) async throws -> GrantDecision {
        try await withCheckedThrowingContinuation { continuation in
            submit(callback) { continuation.resume(with: $0) }
        }
    }

    /// Decides and commits one callback, then calls `then` on the writer thread with the decision (the
    /// commit is durable by then) or the error (nothing stored). For a caller that must not wait: a
    /// server's event loop answers from `then` without a task of its own.
    public func submit(_ callback: ReceivedCallback, then: @escaping @Sendable (Result<GrantDecision, any Error>) -> Void) {
        condition.lock()
        guard !closed else {
            condition.unlock()
            then(.failure(StoreError.invalidArgument("the game server is stopping")))
            return
        }
        waiting.append(Waiting(callback: callback, then: then))
        condition.signal()
        condition.unlock()
    }

    /// Commits what is waiting, then stops the writer thread (the first call, `stopped` too). Returns once
    /// it has.
    public func close() {
        condition.lock()
        let first = !closed
        closed = true
        condition.broadcast()
        while !finished { condition.wait() }
        condition.unlock()
        if first { stopped() }
    }

    private func run() {
        // The batch is taken by swapping arrays, not copied: a callback carries its app, catalogue and
        // parsed fields, and copying each (a retain of every field, then a release) showed in its profile.
        var batch: [Waiting] = []
        while true {
            batch.removeAll(keepingCapacity: true)
            condition.lock()
            while waiting.isEmpty && !closed { condition.wait() }
            if waiting.isEmpty && closed {
                finished = true
                condition.broadcast()
                condition.unlock()
                return
            }
            if waiting.count <= Self.batchLimit {
                swap(&batch, &waiting)
            } else {
                batch.append(contentsOf: waiting.prefix(Self.batchLimit))
                waiting.removeFirst(Self.batchLimit)
            }
            condition.unlock()
            do {
                let decisions = try commit(batch.map(\.callback), clock)
                for (item, decision) in zip(batch, decisions) { item.then(.success(decision)) }
                committed()
            } catch {
                for item in batch { item.then(.failure(error)) }
            }
        }
    }
}

/// A store's time line as a long-running process keeps it: an anchor (the store's instant when it started)
/// plus the monotonic time since, so the wall clock going back or jumping changes nothing; moved up to a
/// later stamp (another process moved the store's clock on), never back. Shared between threads.
public final class StoreTimeLineClock: @unchecked Sendable {
    private let lock = NSLock()
    private var anchor: Instant
    private var anchorUptime: UInt64

    public init(start: Instant) {
        anchor = start
        anchorUptime = DispatchTime.now().uptimeNanoseconds
    }

    public var now: Instant {
        let uptime = DispatchTime.now().uptimeNanoseconds
        lock.lock()
        defer { lock.unlock() }
        let elapsed = Int64(clamping: (uptime &- anchorUptime) / 1_000_000)
        return anchor.adding(Instant.Duration(millis: elapsed))
    }

    /// Moves the clock up to `instant` if it is behind it; never back.
    public func catchUp(to instant: Instant) {
        let uptime = DispatchTime.now().uptimeNanoseconds
        lock.lock()
        defer { lock.unlock() }
        let elapsed = Int64(clamping: (uptime &- anchorUptime) / 1_000_000)
        guard instant > anchor.adding(Instant.Duration(millis: elapsed)) else { return }
        anchor = instant
        anchorUptime = uptime
    }
}

/// What one decided callback writes in the game server's books, every backend's: its callback row (a
/// grant or a repeat; a refusal writes nothing) and, for a grant, the grant row pointing at it.
public struct GameServerEntry: Sendable {
    public var appId: String
    public var orderId: String
    /// "granted" or "duplicate".
    public var outcome: String
    public var body: String
    public var warnings: String
    public var reply: String
    public var peer: String
    public var receivedAt: Instant
    public var grant: Grant?

    /// The rows `decision` (on `received`, at the commit's stamp `instant`) writes; nil for a refusal.
    public init?(_ received: ReceivedCallback, _ decision: GrantDecision, at instant: Instant) {
        switch decision.outcome {
        case .reject: return nil
        case .grant: outcome = "granted"
        case .duplicate: outcome = "duplicate"
        }
        appId = received.app.id
        orderId = received.verification.fields.text("order_id") ?? ""
        body = received.body
        warnings = received.verification.warnings.map(\.message).joined(separator: "; ")
        reply = decision.reply
        peer = received.peer
        receivedAt = instant
        grant = decision.grant
    }

    /// `GrantRule`'s decision on one verified callback at `instant`, `alreadyGranted` answering for its order.
    public static func decide(_ received: ReceivedCallback, at instant: Instant, alreadyGranted: (String) throws -> Bool) throws
        -> GrantDecision
    {
        var lookupError: (any Error)?
        let decision = GrantRule.decide(
            verification: received.verification, app: received.app, products: received.products,
            alreadyGranted: { orderId in
                do {
                    return try alreadyGranted(orderId)
                } catch {
                    lookupError = error
                    return true
                }
            }, at: instant)
        if let lookupError { throw lookupError }
        return decision
    }
}
