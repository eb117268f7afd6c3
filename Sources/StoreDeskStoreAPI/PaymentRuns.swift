import StoreDeskCore

/// One run of the payment queue writing into a store: `storedesk simulate`, a console's simulation, a
/// benchmark. Its number is the block its order ids are numbered in (`OrderNumbers`) and the owner of
/// the unfinished transactions it created or took over; its `hold` proves it alive to other processes
/// for as long as the run lives (the SQLite store's kernel lock; a PostgreSQL store would hold a session
/// advisory lock).
///
/// Every commit of the run also renews its heartbeat and is refused once another process took its
/// work over (fencing), so even a run wrongly judged gone can never write beside its successor.
///
///     let start = try store.startRun(.simulate, takingOver: true)
///     var simulation = PaymentSimulation(configuration(run: start.run.id))
///     simulation.resume(start.inFlight)
///     try store.apply(simulation.runCollecting(), run: start.run)
///     try store.endRun(start.run)
public final class PaymentRun: Sendable {
    public enum Kind: String, Sendable {
        case simulate, console, bench
        /// The restore desk's block of order numbers (a row, never a live run).
        case restores
    }

    public let id: Int64
    public let kind: Kind
    /// What shows the run alive while this value lives; nil when the backend could not take one (then
    /// the heartbeat alone does).
    public let hold: (any RunHold)?
    /// The wall clock heartbeats are stamped with.
    public let clock: @Sendable () -> Instant

    public init(id: Int64, kind: Kind, hold: (any RunHold)?, clock: @escaping @Sendable () -> Instant) {
        self.id = id
        self.kind = kind
        self.hold = hold
        self.clock = clock
    }

    /// How long a run may go without a heartbeat before a process that cannot see its hold (another
    /// machine, or a run that got none) counts it gone.
    public static let lease = Instant.Duration.seconds(60)

    /// How often an idle run (a paused console, a slow `--speed`) says it is alive; every commit does too.
    public static let heartbeatInterval = Instant.Duration.seconds(10)
}

/// Whatever keeps a run alive in other processes' eyes until it is released or its process dies.
public protocol RunHold: AnyObject, Sendable {
    /// Lets go (the run ended cleanly).
    func release()
}

/// What starting a run found: the run, and the work in flight it took over from runs that are gone.
public struct PaymentRunStart: Sendable {
    public let run: PaymentRun
    /// Unfinished transactions this run now owns and should resume (StoreKit hands them back at launch).
    public let inFlight: [PaymentSimulation.InFlight]
    /// The runs whose owner was gone and whose work this run took over.
    public let tookOverFrom: [Int64]

    public init(run: PaymentRun, inFlight: [PaymentSimulation.InFlight], tookOverFrom: [Int64]) {
        self.run = run
        self.inFlight = inFlight
        self.tookOverFrom = tookOverFrom
    }
}
