import Foundation
import StoreDeskCore

/// One run of the payment queue writing into a store: `storedesk simulate`, a console's simulation, a
/// benchmark. Its number (from `payment_run`) is the block its order ids are numbered in and the tag on
/// the unfinished transactions it owns; it holds its kernel lock (`RunLock`) for as long as it lives.
///
/// Every commit of the run also renews its heartbeat and is refused once another process took its
/// work over (fencing), so even a run wrongly judged gone can never write beside its successor.
///
///     let start = try store.startRun(.simulate, takingOver: true)
///     var simulation = PaymentSimulation(configuration(run: start.run.id))
///     simulation.resume(start.inFlight)
///     try PaymentPipeline.run(into: store, run: start.run, batch: 4096) { emit in try simulation.run(emit) }
///     try store.endRun(start.run)
public final class PaymentRun: Sendable {
    public enum Kind: String, Sendable {
        case simulate, console, bench
        /// The restore desk's block of order numbers (a row, never a live run).
        case restores
    }

    public let id: Int64
    public let kind: Kind
    /// Nil when this machine could not lock (then the heartbeat alone shows the run alive).
    let lock: RunLock?
    /// The wall clock heartbeats are stamped with.
    let clock: @Sendable () -> Instant

    init(id: Int64, kind: Kind, lock: RunLock?, clock: @escaping @Sendable () -> Instant) {
        self.id = id
        self.kind = kind
        self.lock = lock
        self.clock = clock
    }

    /// How long a run may go without a heartbeat before a process that cannot see its lock (another
    /// machine, or a run that got no lock) counts it gone.
    public static let lease = Instant.Duration.seconds(60)

    /// How often an idle run (a paused console, a slow `--speed`) says it is alive; every commit does too.
    public static let heartbeatInterval = Instant.Duration.seconds(10)
}

/// What starting a run found: the run, and the work in flight it took over from runs that are gone.
public struct PaymentRunStart: Sendable {
    public let run: PaymentRun
    /// Unfinished transactions this run now owns and should resume (StoreKit hands them back at launch).
    public let inFlight: [PaymentSimulation.InFlight]
    /// The runs whose owner was gone and whose work this run took over.
    public let tookOverFrom: [Int64]
}

/// A `payment_run` row as the liveness rules read it.
struct PaymentRunRow: Sendable, Hashable {
    var id: Int64
    var host: String?
    var heartbeatAt: Instant
    var endedAt: Instant?

    /// Whether this run's owner is gone, as seen from this process at `now`: it ended (or was taken
    /// over), or its kernel lock on this machine is free, or (only where the lock cannot tell) its
    /// heartbeat is older than the lease.
    func isGone(store path: String, now: Instant) -> Bool {
        if endedAt != nil { return true }
        if let host, host == RunLock.host, let held = RunLock.isHeld(run: id, store: path) { return !held }
        return heartbeatAt.millis < now.millis - PaymentRun.lease.millis
    }
}
