/// One payment run carried out, whoever carries it out: `storedesk simulate` (as fast as possible, paced,
/// or with real game servers over HTTP) and the Queue screen each only do what this says.
///
/// The simulation decides what happens to each purchase (`PaymentSimulation`); the driver decides the order
/// in which a run's effects reach the world, so that a kill at any moment leaves a store `check` finds clean
/// and a game server never hears of an order the store does not hold:
///
/// - **commit** the steps the engine emitted, at most `batch` at a time and one commit at a time;
/// - **post** a callback only once the commit holding its order is done, at most `concurrency` at once;
/// - **heartbeat** when the run has written nothing for `heartbeatInterval`, so other processes know it lives;
/// - then **wait**: at once, for a reply, until a wall-clock instant (the next step's, at the run's pace), or
///   stop when the run is done.
///
/// Time is the caller's: every call says what the wall clock reads, so a test drives a run with a
/// simulated clock and no sleeps.
///
///     var driver = PaymentRunDriver(simulation, speed: 0)
///     while true {
///         let (actions, next) = driver.next(wall: now())
///         for action in actions { … commit: store.apply, then driver.committed(); post: …, later driver.replied(…) }
///         if next == .done { break }   // else wait as `next` says: .again, .reply, .wall(instant)
///     }
public struct PaymentRunDriver: Sendable {
    /// What to do now, in this order.
    public enum Action: Sendable, Equatable {
        /// Write these steps as the run's (each with its events, in one transaction), then call `committed()`.
        case commit([PaymentChange])
        /// POST this callback to its app's game server, then hand the reply to `replied(_:with:url:)`.
        case post(OutboundCallback)
        /// Say the run is alive (nothing was written for `heartbeatInterval`).
        case heartbeat
    }

    /// What to wait for before calling `next` again.
    public enum Wait: Sendable, Equatable {
        /// Nothing: there is more to do at once.
        case again
        /// A reply to a callback in flight, or the commit under way.
        case reply
        /// The wall clock reaching this instant (the next step's at the run's pace, or the next heartbeat);
        /// a reply arriving first may be handed over before.
        case wall(Instant)
        /// The run is over: every step up to its end committed and every callback answered.
        case done
    }

    public private(set) var simulation: PaymentSimulation
    /// Simulated seconds per wall-clock second; 0 runs as fast as the store (and the game servers) allow.
    public var speed: Double {
        didSet { if speed < 0 || !speed.isFinite { speed = 0 } }
    }
    /// A paused run's clock stands still (`step()` still runs it to its next event).
    public var paused = false
    /// Callbacks in flight at most.
    public let concurrency: Int
    /// Steps a commit holds at most.
    public let batch: Int
    /// How long a run may go without writing before it renews its heartbeat.
    public let heartbeatInterval: Instant.Duration

    /// Steps emitted and not yet handed out to commit.
    private var pending: [PaymentChange] = []
    /// Callbacks whose orders are among `pending`: they leave after the commit that takes those steps.
    private var held: [OutboundCallback] = []
    /// The commit under way, if any, and the callbacks waiting for it.
    private var committing: [OutboundCallback]?
    /// Callbacks whose orders are committed, waiting for a free connection, oldest first.
    public private(set) var ready: [OutboundCallback] = []
    /// Callbacks POSTed and not answered yet.
    public private(set) var inFlight = 0
    /// Where the run's pace has brought simulated time (the engine runs up to here).
    private var paced: Instant
    /// The wall clock at the last call, the pace's anchor.
    private var lastWall: Instant?
    /// The wall clock at the run's last commit or heartbeat.
    private var lastWrite: Instant?
    /// A single step asked for (`step()`): the engine runs to this instant once, paused or not.
    private var stepTo: Instant?

    public init(
        _ simulation: PaymentSimulation, speed: Double, concurrency: Int = 16, batch: Int = 1024,
        heartbeatInterval: Instant.Duration = .seconds(10)
    ) {
        self.simulation = simulation
        self.speed = speed < 0 || !speed.isFinite ? 0 : speed
        self.concurrency = max(1, concurrency)
        self.batch = max(1, batch)
        self.heartbeatInterval = heartbeatInterval
        paced = simulation.now
    }

    /// The shortest wait on the pace: a fast pace commits some 50 times a second, not once a step.
    public static let paceStep = Instant.Duration(millis: 20)

    /// Changes the simulation itself (faults, rate, routes, a finish by hand); any steps it returns are
    /// committed with the run's next ones.
    public mutating func change(_ body: (inout PaymentSimulation) -> [PaymentChange]) {
        pending += body(&simulation)
    }

    /// Runs the engine to its next event once, as the console's single step: true when one was due.
    @discardableResult
    public mutating func step() -> Bool {
        guard let due = simulation.nextDue else { return false }
        stepTo = due
        return true
    }

    /// Moves the pace's anchor to `wall` without letting simulated time pass (a console whose clock jumped
    /// to the run's own stamps: that jump is not time passing).
    public mutating func holdPace(until wall: Instant) {
        if let last = lastWall, wall <= last { return }
        lastWall = wall
    }

    /// Measures the wall clock on another scale from now on (a console whose real clock showed up after
    /// its run started on the console's own): `wall` is where the pace and the heartbeat count from.
    public mutating func resetPace(to wall: Instant) {
        lastWall = wall
        lastWrite = wall
    }

    /// The commit handed out last is done: the callbacks of its orders may leave.
    public mutating func committed() {
        ready += committing ?? []
        committing = nil
    }

    /// A game server's reply to a callback this driver posted.
    public mutating func replied(_ callback: OutboundCallback, with reply: CallbackReply, url: String) {
        inFlight = max(0, inFlight - 1)
        pending += simulation.answer(callback, with: reply, url: url)
    }

    /// Forgets the callbacks not yet answered (their simulation's routes changed hands, or the run stops):
    /// replies still on their way are no longer expected, and their orders stay pending for the next run.
    public mutating func forgetCallbacks() {
        ready.removeAll()
        held.removeAll()
        committing = committing.map { _ in [] }
        inFlight = 0
    }

    /// The end of the run's arrival window.
    public var end: Instant { simulation.end }

    /// What to do now and what to wait for then, with the wall clock at `wall`.
    public mutating func next(wall: Instant) -> (actions: [Action], wait: Wait) {
        // 1. The pace: how far simulated time may run.
        if let last = lastWall, wall > last, !paused, speed > 0 {
            let gained = Double(wall.millis - last.millis) * speed
            paced = max(paced, simulation.now).adding(Instant.Duration(millis: Int64(min(gained, Double(Int64.max / 4)))))
        }
        if lastWall.map({ wall > $0 }) ?? true { lastWall = wall }
        if lastWrite == nil { lastWrite = wall }
        var limit: Instant
        if let stepTo {
            limit = stepTo
            self.stepTo = nil
        } else if paused {
            limit = simulation.now
        } else {
            limit = speed == 0 ? end : min(end, paced)
        }

        // 2. The engine, up to the limit, while the pending steps stay within a batch.
        let room = batch - pending.count
        if room > 0 { simulation.advance(until: limit, steps: room) { pending.append($0) } }
        let callbacks = simulation.takeOutbox()
        if !callbacks.isEmpty {
            // Their orders are in the steps just emitted, or in the commit under way, or (neither) committed.
            if !pending.isEmpty { held += callbacks } else if committing != nil { committing?.append(contentsOf: callbacks) } else { ready += callbacks }
        }

        // 3. Commit: a full batch, or what a callback waits for, or everything before the run waits on time.
        var actions: [Action] = []
        let nextDue = simulation.nextDue
        // Held by the pace, or by the callbacks still out (the clock waits for their replies).
        let bound = min(limit, simulation.holdUntil ?? limit)
        let engineHeld = nextDue.map { $0 > bound } ?? true
        let waitingOnTime = engineHeld && inFlight == 0
        let beatDue = wall >= (lastWrite ?? wall).adding(heartbeatInterval)
        if committing == nil, !pending.isEmpty,
            pending.count >= batch || (!held.isEmpty && inFlight < concurrency) || waitingOnTime || beatDue
        {
            let taken = Array(pending.prefix(batch))
            pending.removeFirst(taken.count)
            if pending.isEmpty {
                committing = held
                held.removeAll()
            } else {
                committing = []
            }
            actions.append(.commit(taken))
            lastWrite = wall
        }

        // 4. Post what the connections allow.
        while inFlight < concurrency, !ready.isEmpty {
            actions.append(.post(ready.removeFirst()))
            inFlight += 1
        }

        // 5. What comes next.
        if !actions.isEmpty { return (actions, .again) }
        if committing != nil { return ([], .reply) }
        if !engineHeld { return ([], .again) }
        if inFlight == 0 && ready.isEmpty && held.isEmpty && pending.isEmpty && engineDone(nextDue) && (speed == 0 || simulation.now >= end) {
            simulation.updateSummary()
            return ([], .done)
        }
        // An idle run (paused, paced, or waiting on slow game servers) still says it is alive.
        let beat = (lastWrite ?? wall).adding(heartbeatInterval)
        if wall >= beat {
            lastWrite = wall
            return ([.heartbeat], .again)
        }
        if inFlight > 0 { return ([], .reply) }
        // Waiting on the pace: the next step's wall instant, or the next heartbeat, whichever is first.
        var until = beat
        if !paused, speed > 0, let due = nextDue.map({ min($0, end) }) ?? (simulation.now < end ? end : nil) {
            let ahead = Double(due.millis - max(paced, simulation.now).millis) / speed
            until = min(until, wall.adding(Instant.Duration(millis: max(Self.paceStep.millis, Int64(ahead.rounded(.up))))))
        }
        return ([], .wall(until))
    }

    /// Nothing is due before the end of the arrival window.
    private func engineDone(_ nextDue: Instant?) -> Bool { nextDue.map { $0 > end } ?? true }

    /// Runs the whole run with every callback answered in process (no real game server): each commit the
    /// driver hands out goes to `emit` step by step, as `PaymentPipeline` takes them, and counts as done
    /// at once (no callback waits on it). The heartbeat is the commits' own.
    public mutating func runInProcess(_ emit: (PaymentChange) throws -> Void) rethrows {
        precondition(speed == 0 && simulation.configuration.remoteApps.isEmpty, "a paced run, or one with real game servers, waits on time or replies")
        while true {
            let (actions, wait) = next(wall: simulation.now)
            for case .commit(let changes) in actions {
                for change in changes { try emit(change) }
                committed()
            }
            if wait == .done { return }
        }
    }
}
