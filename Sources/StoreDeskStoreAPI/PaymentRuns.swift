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

/// Who starts or stops a run, and how it is set: a run writes into the store as real purchases do, so
/// its start (with its environment, pace and faults, one `simulate.fault` line each), its stop and
/// every fault injected or cleared while it runs are on the audit log, under the acting staff member.
/// The store writes a start's and a stop's lines in the transaction that starts or ends the run.
public struct RunAudit: Sendable {
    public var staff: StaffMember
    public var at: Instant
    /// The run's settings as the audit line says them (`Sandbox purchases, 60 s at 10/s, seed 1`).
    public var settings: String
    /// The faults the run starts with.
    public var faults: [PaymentFault]

    public init(staff: StaffMember, at: Instant, settings: String, faults: [PaymentFault] = []) {
        self.staff = staff
        self.at = at
        self.settings = settings
        self.faults = faults
    }

    /// `Sandbox purchases, 60 s at 10/s, seed 1` (a console's run has no end: `seconds` nil).
    public static func settings(environment: StoreEnvironment, seconds: Int?, rate: Double, seed: UInt64) -> String {
        let window = seconds.map { "\($0) s at " } ?? "at "
        return "\(environment.rawValue) purchases, \(window)\(Self.number(rate))/s, seed \(seed)"
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    /// The lines of a run's start: the start, then each fault it starts with.
    public func started(_ start: PaymentRunStart) -> [AuditEntry] {
        let run = start.run
        let tookOver = start.tookOverFrom.isEmpty ? "" : "; took over runs " + start.tookOverFrom.map(String.init).joined(separator: ", ")
        let line = entry(Self.startAction, run: run.id, detail: "\(run.kind.rawValue) run started: \(settings)\(tookOver)")
        return [line] + faults.map { fault(.inject($0), run: run.id) }
    }

    /// The line of a run's clean stop.
    public func stopped(_ run: PaymentRun) -> AuditEntry {
        entry(Self.stopAction, run: run.id, detail: "\(run.kind.rawValue) run stopped" + (settings.isEmpty ? "" : ": " + settings))
    }

    /// A fault injected into a running run, or every fault cleared.
    public enum FaultChange: Sendable, Hashable {
        case inject(PaymentFault)
        case clear
    }

    /// The line of a fault injected or cleared while `run` runs.
    public func fault(_ change: FaultChange, run: Int64) -> AuditEntry {
        switch change {
        case .inject(let fault): entry(Self.faultAction, run: run, detail: "fault \(fault) injected")
        case .clear: entry(Self.faultAction, run: run, detail: "faults cleared")
        }
    }

    private func entry(_ action: String, run: Int64, detail: String) -> AuditEntry {
        AuditEntry(at: at, actor: staff.name, role: staff.role.rawValue, action: action, subject: "run \(run)", detail: detail)
    }

    /// The audit actions, one family: `audit --action simulate` lists them all.
    public static let startAction = "simulate.start"
    public static let stopAction = "simulate.stop"
    public static let faultAction = "simulate.fault"
}

extension QueueStore {
    /// A run started without an audit line: benchmarks, and tests of the run machinery.
    public func startRun(_ kind: PaymentRun.Kind, takingOver: Bool) throws -> PaymentRunStart {
        try startRun(kind, takingOver: takingOver, audit: nil)
    }

    /// A run ended without an audit line.
    public func endRun(_ run: PaymentRun) throws { try endRun(run, audit: nil) }
}
