import Foundation
import StoreDeskCore
import StoreDeskStore

/// The Queue screen: the payment queue (every unfinished transaction) live, counters per state and
/// throughput, filters by state, user and product, and the selected transaction's timeline and server
/// callbacks. A developer can run the payment simulation right here, inject faults and drive its clock.
public struct QueueScreen: Sendable {
    /// The filter as typed: `state:purchased user:10000001 product:gems`, other words match ids.
    public var filter = ""
    /// The visible window of the filtered queue, newest first.
    public var rows: [StoreTransaction] = []
    /// Where the window starts in the filtered queue.
    public var offset = 0
    public var selected = 0
    public var counts: [TransactionState: Int] = [:]
    public var detail: QueueDetail?
    public var detailScroll = 0
    /// Events seen since the screen opened, by kind (from the store, so other processes count too).
    public var tally: [PaymentEvent.Kind: Int] = [:]
    var lastEventId: Int64?
    /// Recent (instant, purchases, finished) samples for the throughput figures.
    var samples: [(at: Instant, purchases: Int, finished: Int)] = []

    /// The simulation this console runs, if any.
    public var simulation: PaymentSimulation?
    /// Its payment run in the store: the work it has in flight is this console's while the run lives.
    var run: PaymentRun?
    /// When the run last wrote (or said it is alive).
    var lastCommit: Instant?
    public var paused = false
    /// Simulated seconds per wall-clock second.
    public var speed: Double = 1
    /// The wall-clock instant the simulation was last advanced to.
    var lastAdvance: Instant?
    /// Purchases per simulated second when a simulation starts here.
    public var rate: Double = 2
    /// Bumped on every new query, so a late result for an old one is dropped.
    var generation = 0

    public init() {}

    public var selectedRow: StoreTransaction? { rows.indices.contains(selected) ? rows[selected] : nil }

    /// The speeds `+` and `-` step through.
    public static let speeds: [Double] = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000]

    /// Results of this screen's effects.
    public enum Event: Sendable {
        case window(rows: [StoreTransaction], offset: Int, keep: String?, generation: Int)
        case counts([TransactionState: Int])
        case tally(EventTally, at: Instant)
        case detail(QueueDetail?)
        /// The simulation may start: the store's catalogue, and the run started for it (nil when there
        /// is nothing to simulate).
        case started(PaymentCatalogue, PaymentRunStart?, seed: UInt64)
        case applied(changes: Int)
        /// A write of the simulation's steps was refused (nothing of it written): the simulation stops.
        case simulationFailed(String)
        /// The run's heartbeat or end was written: nothing to show.
        case runRecorded
        case finished(Result<StoreTransaction, TransactionRefusal>)
    }

    /// The filter as a query: `state:`, `user:`, `product:` words, the rest matched against ids.
    public static func query(_ filter: String) -> (QueueQuery, problem: String?) {
        var query = QueueQuery()
        var words: [String] = []
        var problem: String?
        for word in filter.split(separator: " ").map(String.init) {
            let parts = word.split(separator: ":", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[1].isEmpty else {
                words.append(word)
                continue
            }
            switch parts[0].lowercased() {
            case "state", "s":
                if let state = TransactionState.allCases.first(where: { $0.rawValue.hasPrefix(parts[1].lowercased()) }) {
                    query.state = state
                } else {
                    problem = "no state '\(parts[1])' (have: \(TransactionState.allCases.map(\.rawValue).joined(separator: ", ")))"
                }
            case "user", "u": query.userId = parts[1]
            case "product", "p": query.product = parts[1]
            default: words.append(word)
            }
        }
        if !words.isEmpty { query.text = words.joined(separator: " ") }
        return (query, problem)
    }

    // MARK: - Effects

    /// Fetch the window at `offset` again (plus counters, throughput and the detail), keeping the
    /// selection on the transaction with id `keep` when it is still there.
    mutating func fetch(offset: Int, keep: String?, pageSize: Int, now: Instant) -> [Effect] {
        generation += 1
        let generation = self.generation, query = Self.query(filter).0, after = lastEventId
        return [
            Self.read { db in
                var start = offset
                var rows = try db.queueWindow(query, offset: start, limit: pageSize)
                if rows.isEmpty && start > 0 {
                    // Rows went away below: show the last page there is.
                    start = max(0, start - pageSize)
                    rows = try db.queueWindow(query, offset: start, limit: pageSize)
                }
                return Event.window(rows: rows, offset: start, keep: keep, generation: generation)
            },
            Self.read { db in Event.counts(try db.queueCounts()) },
            Self.read { db in Event.tally(try db.eventTally(after: after), at: now) },
        ]
    }

    func detailEffect() -> [Effect] {
        guard let id = selectedRow?.id else { return [] }
        return [Self.read { db in Event.detail(try db.queueDetail(transactionId: id)) }]
    }

    // MARK: - Reducer

    mutating func move(_ command: Command, pageSize: Int, now: Instant) -> [Effect] {
        switch command {
        case .up:
            if selected > 0 {
                selected -= 1
                return detailEffect()
            }
            guard offset > 0 else { return [] }
            return fetch(offset: offset - 1, keep: nil, pageSize: pageSize, now: now)
        case .down:
            if selected < rows.count - 1 {
                selected += 1
                return detailEffect()
            }
            guard rows.count == pageSize else { return [] }
            selected = rows.count  // past the end: the next window selects its last row
            return fetch(offset: offset + 1, keep: nil, pageSize: pageSize, now: now)
        case .pageDown:
            guard rows.count == pageSize else {
                selected = max(0, rows.count - 1)
                return detailEffect()
            }
            return fetch(offset: offset + pageSize, keep: nil, pageSize: pageSize, now: now)
        case .pageUp:
            guard offset > 0 else {
                selected = 0
                return detailEffect()
            }
            return fetch(offset: max(0, offset - pageSize), keep: nil, pageSize: pageSize, now: now)
        case .top:
            selected = 0
            return fetch(offset: 0, keep: nil, pageSize: pageSize, now: now)
        case .bottom:
            let total = Self.query(filter).0.state.map { counts[$0] ?? 0 } ?? counts.values.reduce(0, +)
            selected = pageSize
            return fetch(offset: max(0, total - pageSize), keep: nil, pageSize: pageSize, now: now)
        default:
            return []
        }
    }

    mutating func apply(_ event: Event, _ context: inout ScreenContext) -> [Effect] {
        switch event {
        case .window(let newRows, let newOffset, let keep, let gen):
            guard gen == generation else { return [] }
            let previous = selectedRow?.id
            rows = newRows
            offset = newOffset
            if let keep, let index = rows.firstIndex(where: { $0.id == keep }) {
                selected = index
            } else {
                selected = min(selected, max(0, rows.count - 1))
            }
            if selectedRow?.id != previous { detailScroll = 0 }
            if selectedRow == nil { detail = nil }
            return detailEffect()
        case .counts(let counts):
            self.counts = counts
            return []
        case .tally(let tally, let at):
            if lastEventId != nil {
                for (kind, n) in tally.kinds { self.tally[kind, default: 0] += n }
            }
            lastEventId = tally.lastEventId
            samples.append((at, self.tally[.purchasing] ?? 0, self.tally[.finished] ?? 0))
            samples.removeAll { at.millis - $0.at.millis > 5000 }
            return []
        case .detail(let detail):
            if detail?.transaction.id == selectedRow?.id { self.detail = detail }
            return []
        case .started(let catalogue, let began, let seed):
            guard let began, !catalogue.userIds.isEmpty, !catalogue.products.isEmpty else {
                context.status = StatusMessage("nothing to simulate: the store has no users or no products", .error)
                return []
            }
            var simulation = PaymentSimulation(
                PaymentSimulation.Configuration(
                    seconds: Self.liveSeconds, rate: rate, seed: seed, faults: [], start: context.clock,
                    userIds: catalogue.userIds, apps: catalogue.apps, products: catalogue.products, run: began.run.id,
                    idPrefix: "live"))
            simulation.resume(began.inFlight)
            self.simulation = simulation
            run = began.run
            paused = false
            lastAdvance = context.clock
            lastCommit = context.clock
            let resumed = began.inFlight.isEmpty ? "" : "; took over \(began.inFlight.count) left in flight by runs that are gone"
            context.status = StatusMessage(
                "simulation running (run \(began.run.id)) at \(Self.speedText(speed)), \(Self.rateText(rate)) purchases/s\(resumed)",
                .success)
            return []
        case .applied:
            return fetch(offset: offset, keep: selectedRow?.id, pageSize: Self.listRows(context), now: context.clock)
        case .simulationFailed(let message):
            // The refused batch left nothing behind; the next run takes over what this one had in flight.
            simulation = nil
            run = nil
            context.status = StatusMessage("simulation stopped: \(message)", .error)
            return fetch(offset: offset, keep: selectedRow?.id, pageSize: Self.listRows(context), now: context.clock)
        case .runRecorded:
            return []
        case .finished(.success(let transaction)):
            context.status = StatusMessage("\(transaction.id) finished: removed from the queue (\(transaction.state.rawValue))", .success)
            return fetch(offset: offset, keep: nil, pageSize: Self.listRows(context), now: context.clock)
        case .finished(.failure(let refusal)):
            context.status = StatusMessage("finish refused: \(refusal.message)", .warning)
            return []
        }
    }

    /// A live simulation's arrival window: a year, so it never runs dry while the console is open.
    static let liveSeconds = 365 * 24 * 3600

    /// Advances the simulation by the wall-clock time since the last advance times the speed, and
    /// writes what happened (each step with its events) in one SQLite transaction.
    mutating func advance(to wall: Instant, pageSize: Int) -> [Effect] {
        guard var simulation else { return [] }
        defer { lastAdvance = wall }
        guard !paused, let last = lastAdvance, wall > last else { return heartbeat(at: wall) }
        let simulated = Double(wall.millis - last.millis) * speed
        let effects = run(&simulation, until: simulation.now.adding(Instant.Duration(millis: Int64(simulated))))
        guard !effects.isEmpty else { return heartbeat(at: wall) }
        lastCommit = wall
        return effects
    }

    /// A paused or quiet simulation still says its run is alive, every `PaymentRun.heartbeatInterval`.
    private mutating func heartbeat(at wall: Instant) -> [Effect] {
        guard let run, let last = lastCommit, wall.duration(since: last) >= PaymentRun.heartbeatInterval else { return [] }
        lastCommit = wall
        return [Self.write { db in
            do {
                try db.heartbeat(run)
                return Event.runRecorded
            } catch {
                return Event.simulationFailed(Self.describe(error))
            }
        }]
    }

    /// Runs to the next due step only (the clock is paused).
    mutating func step() -> [Effect] {
        guard var simulation, let due = simulation.nextDue else { return [] }
        return run(&simulation, until: due)
    }

    private mutating func run(_ simulation: inout PaymentSimulation, until limit: Instant) -> [Effect] {
        var changes: [PaymentChange] = []
        simulation.run(until: limit) { changes.append($0) }
        self.simulation = simulation
        guard !changes.isEmpty, let run else { return [] }
        let count = changes.count
        return [Self.commit(changes, run: run) { Event.applied(changes: count) }]
    }

    /// Writes the simulation's steps as its run's; a refusal (another process took the run over, the
    /// store stayed locked) stops the simulation instead of letting it run on ahead of the store.
    static func commit(_ changes: [PaymentChange], run: PaymentRun, then result: @escaping @Sendable () -> Event) -> Effect {
        Self.write { db in
            do {
                try db.apply(changes, run: run)
                return result()
            } catch {
                return Event.simulationFailed(describe(error))
            }
        }
    }

    static func describe(_ error: any Error) -> String {
        (error as? StoreError)?.description ?? "\(error)"
    }

    static func speedText(_ speed: Double) -> String {
        speed == speed.rounded() ? "\(Int(speed))×" : String(format: "%.1f×", speed)
    }

    static func rateText(_ rate: Double) -> String {
        rate == rate.rounded() ? "\(Int(rate))" : String(format: "%g", rate)
    }

    /// Purchases and finishes per wall-clock second over the last few seconds of samples.
    public var throughput: (purchases: Double, finished: Double) {
        guard let first = samples.first, let last = samples.last, last.at.millis - first.at.millis >= 500 else { return (0, 0) }
        let seconds = Double(last.at.millis - first.at.millis) / 1000
        return (Double(last.purchases - first.purchases) / seconds, Double(last.finished - first.finished) / seconds)
    }
}
