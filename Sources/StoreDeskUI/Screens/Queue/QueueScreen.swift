import Foundation
import StoreDeskCore
import StoreDeskStoreAPI

/// The Queue screen: the payment queue (every unfinished transaction) live, counters per state and
/// throughput, filters by state, user and product, and the selected transaction's timeline and server
/// callbacks. A developer can run the payment simulation right here, inject faults and drive its clock.
public struct QueueScreen: Sendable {
    /// The filter as typed: `state:purchased user:10000001 product:gems`, other words match ids.
    public var filter = ""
    /// Newest purchase first, or oldest first (`O`, `:sort purchased asc`), for the session.
    public var sort = ListSort("purchased", descending: true)
    /// The visible page of the filtered queue, newest first, and its selection.
    public var list = ListWindow<StoreTransaction>()
    public var counts: [TransactionState: Int] = [:]
    /// How many transactions in the queue are Sandbox purchases (a simulation's): what `b` hides.
    public var sandboxCount = 0
    public var detail: QueueDetail?
    public var detailScroll = 0
    /// Events seen since the screen opened, by kind (from the store, so other processes count too).
    public var tally: [PaymentEvent.Kind: Int] = [:]
    var lastEventId: Int64?
    /// Recent (instant, purchases, finished) samples for the throughput figures.
    var samples: [(at: Instant, purchases: Int, finished: Int)] = []
    /// The last minutes of the store's clock for the sparklines: read on the tick (at most once per
    /// `activityInterval` of the console's clock), never while drawing.
    public var activity: QueueActivity?
    /// The console's instant the activity was last asked for.
    var activityAskedAt: Instant?

    /// The payment run this console drives, if any: its simulation and what to commit, post and heartbeat
    /// next (`PaymentRunDriver`, the same `storedesk simulate` follows; this screen only carries it out).
    var driver: PaymentRunDriver?
    /// The simulation this console runs, if any.
    public var simulation: PaymentSimulation? { driver?.simulation }
    /// Its payment run in the store: the work it has in flight is this console's while the run lives.
    var run: PaymentRun?
    public var paused = false
    /// Simulated seconds per wall-clock second.
    public var speed: Double = 1
    /// Whether the run's pace is measured on the real wall clock (`ScreenContext.wall`), or (a harness's
    /// ticks without one) on the console's clock.
    var pacedByWall = false
    /// The latest instant this console's simulation stamped a row at: where its commits moved the store's
    /// clock, and so the console's.
    var lastStamped: Instant?
    /// Purchases per simulated second when a simulation starts here.
    public var rate: Double = 2

    /// The console's own callback URL (`:callback URL`): every app's callbacks go there; nil leaves each
    /// app's own URL (`apps set APP --callback-url`), or StoreDesk's in-process game server.
    public var callbackURL: String?
    /// Where the running simulation POSTs each app's callbacks (apps absent are answered in process).
    public var routes: [String: String] = [:]
    /// Callbacks POSTed and not answered yet.
    public var inFlight: Int { driver?.inFlight ?? 0 }
    /// Which simulation a reply belongs to: a reply to a stopped simulation's callback is dropped.
    var generation = 0
    /// How the latest callback attempts fared at real game servers (from the store: other processes' too).
    public var deliveries = CallbackDeliveries()

    /// One sparkline column per 5 s of the store's clock, the last 6 minutes.
    public static let activityBucket = Instant.Duration.seconds(5)
    public static let activityBuckets = 72
    static let activityInterval = Instant.Duration.seconds(1)
    /// The sparklines' lines in the header.
    static let activityLines = 2

    /// Callbacks POSTed at once at most, like `simulate --concurrency`'s default.
    static let concurrency = 16
    /// The attempts the header's delivery figures cover.
    static let deliveriesWindow = 500

    public init() {}

    public var rows: [StoreTransaction] { list.rows }
    public var selected: Int { list.selected }
    public var selectedRow: StoreTransaction? { list.selectedRow }

    /// The speeds `+` and `-` step through.
    public static let speeds: [Double] = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000]

    /// Results of this screen's effects.
    public enum Event: Sendable {
        case page(ListWindow<StoreTransaction>.Page)
        case counts([TransactionState: Int])
        /// How many transactions in the queue are Sandbox purchases.
        case sandboxCount(Int)
        /// How many transactions a filter the state counts do not cover matches (`ListPager.count`).
        case counted(ListWindow<StoreTransaction>.Counted)
        case tally(EventTally, at: Instant)
        /// The sparklines' buckets.
        case activity(QueueActivity)
        case detail(QueueDetail?)
        /// The simulation may start: the store's catalogue, and the run started for it (nil when there
        /// is nothing to simulate).
        case started(PaymentCatalogue, PaymentRunStart?, seed: UInt64)
        /// A write of the simulation's steps was refused (nothing of it written): the simulation stops.
        case simulationFailed(String)
        /// The run's heartbeat or end was written: nothing to show.
        case runRecorded
        case finished(Result<StoreTransaction, TransactionRefusal>)
        /// How the latest callback attempts fared at real game servers.
        case deliveries(CallbackDeliveries)
        /// The steps simulation `generation` handed out last were committed: the callbacks of their orders
        /// may be POSTed.
        case committed(generation: Int)
        /// A game server's reply to a callback of simulation `generation`.
        case replied(OutboundCallback, url: String, CallbackReply, generation: Int)
    }

    /// Where each app's callbacks go: the console's `:callback URL` for every app, else each app's own URL.
    static func routes(apps: [App], override: String?) -> [String: String] {
        Dictionary(uniqueKeysWithValues: apps.compactMap { app in (override ?? app.callbackURL).map { (app.id, $0) } })
    }

    /// The filter as a query: `state:`, `env:`, `user:`, `product:` words, the rest matched against ids.
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
            case "env", "e":
                if let environment = StoreEnvironment.allCases.first(where: { $0.rawValue.lowercased().hasPrefix(parts[1].lowercased()) }) {
                    query.environment = environment
                } else {
                    problem = "no environment '\(parts[1])' (have: sandbox, production)"
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

    /// The queue as the store pages it, for the current filter.
    var source: ListWindow<StoreTransaction>.Source {
        var query = Self.query(filter).0
        query.oldestFirst = !sort.descending
        return { [query] in $0.queue(query) }
    }

    /// Shows what `read` reads, with the counters and the throughput.
    func show(_ read: @escaping ListWindow<StoreTransaction>.Read, now: Instant) -> [Effect] {
        let after = lastEventId
        return [
            Self.read { store in Event.page(try read(store)) },
            Self.read { store in Event.counts(try store.queueCounts()) },
            Self.read { store in Event.sandboxCount(try store.sandboxQueueCount()) },
            Self.read { store in Event.deliveries(try store.recentDeliveries(limit: Self.deliveriesWindow)) },
            Self.read { store in Event.tally(try store.eventTally(after: after), at: now) },
        ]
    }

    /// The first page of the filtered queue.
    mutating func reload(pageSize: Int, now: Instant) -> [Effect] {
        show(list.reload(pageSize: pageSize, source: source), now: now) + countEffect(forget: true)
    }

    /// The visible page again from its first row, the selection kept on the same transaction.
    mutating func refresh(pageSize: Int, now: Instant) -> [Effect] {
        show(list.refresh(pageSize: pageSize, source: source), now: now) + countEffect(forget: false)
    }

    /// The list's count: the state counts (read with every page) when the filter is at most a state,
    /// else nil (the store's count, `countEffect`).
    /// `title` with its word on Sandbox purchases: how many `env:production` hides, or how many are listed
    /// (none when only Sandbox ones are).
    func titled(_ title: String, width: Int) -> String {
        let environment = Self.query(filter).0.environment
        guard environment != .sandbox else { return title }
        return RestoresScreen.titled(title, sandbox: sandboxCount, hidden: environment == .production, width: width)
    }

    /// The filter with Sandbox purchases hidden (`env:production` first) or shown (no `env:` word).
    static func filter(_ filter: String, hidingSandbox: Bool) -> String {
        var words = filter.split(separator: " ").map(String.init).filter { word in
            let key = word.lowercased()
            return !key.hasPrefix("env:") && !key.hasPrefix("e:")
        }
        if hidingSandbox { words.insert("env:production", at: 0) }
        return words.joined(separator: " ")
    }

    var stateCount: ListCount? {
        let (query, _) = Self.query(filter)
        guard query.userId == nil, query.product == nil, query.text == nil, query.environment == nil else { return nil }
        return .exact(query.state.map { counts[$0] ?? 0 } ?? counts.values.reduce(0, +))
    }

    /// The store's count for a filter the state counts do not cover, read after the frame.
    mutating func countEffect(forget: Bool) -> [Effect] {
        guard stateCount == nil else { return [] }
        let read = list.countRead(source: source, forget: forget)
        return [Self.readAfterFrame { store in .counted(try read(store)) }]
    }

    /// Reads the sparklines' window ending at `now` when the last read is `activityInterval` old.
    mutating func activityEffect(now: Instant) -> [Effect] {
        if let asked = activityAskedAt, now >= asked, now.duration(since: asked) < Self.activityInterval { return [] }
        activityAskedAt = now
        let window = QueueActivity.Window.ending(at: now, bucket: Self.activityBucket, count: Self.activityBuckets)
        return [Self.read { store in Event.activity(try store.queueActivity(window)) }]
    }

    func detailEffect() -> [Effect] {
        guard let id = selectedRow?.id else { return [] }
        return [Self.read { store in Event.detail(try store.queueDetail(transactionId: id)) }]
    }

    // MARK: - Reducer

    mutating func move(_ command: Command, pageSize: Int, now: Instant) -> [Effect] {
        switch list.move(command, pageSize: pageSize, source: source) {
        case .none: return []
        case .stayed: return detailEffect()
        case .read(let read): return show(read, now: now)
        }
    }

    public mutating func apply(_ event: Event, _ context: inout ScreenContext) -> [Effect] {
        switch event {
        case .page(let page):
            guard let moved = list.show(page) else { return [] }
            if moved { detailScroll = 0 }
            if selectedRow == nil { detail = nil }
            return detailEffect()
        case .counts(let counts):
            self.counts = counts
            return []
        case .sandboxCount(let count):
            sandboxCount = count
            return []
        case .counted(let counted):
            list.show(counted)
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
        case .activity(let activity):
            // A read of an older window arriving late is dropped.
            if let shown = self.activity, shown.window.start > activity.window.start { return [] }
            self.activity = activity
            return []
        case .started(let catalogue, let began, let seed):
            guard let began else {
                context.status = StatusMessage("nothing to simulate: " + (catalogue.problem(path: "the store") ?? "the store has no run"), .error)
                return []
            }
            stopDelivering()
            routes = Self.routes(apps: catalogue.apps, override: callbackURL)
            var simulation = PaymentSimulation(
                PaymentSimulation.Configuration(
                    seconds: Self.liveSeconds, rate: rate, seed: seed, faults: [], start: context.clock,
                    accounts: catalogue.accounts, apps: catalogue.apps, products: catalogue.products, run: began.run.id,
                    idPrefix: "live", storeKitTesting: catalogue.storeKitTesting, remoteApps: Set(routes.keys)))
            simulation.resume(began.inFlight)
            var driver = PaymentRunDriver(
                simulation, speed: speed, concurrency: Self.concurrency, batch: Self.batch, heartbeatInterval: PaymentRun.heartbeatInterval)
            driver.resetPace(to: Self.wall(context))
            pacedByWall = context.wall != nil
            self.driver = driver
            run = began.run
            paused = false
            let resumed = began.inFlight.isEmpty ? "" : "; took over \(began.inFlight.count) left in flight"
            let http = routes.isEmpty ? "" : "; callbacks POSTed to " + Self.routesText(routes, apps: catalogue.apps.count)
            context.status = StatusMessage(
                "\(Self.environment.rawValue) simulation running (run \(began.run.id)) at \(Self.speedText(speed)), \(Self.rateText(rate)) purchases/s\(resumed)\(http)",
                .success)
            return []
        case .simulationFailed(let message):
            // The refused write left nothing behind; the next run takes over what this one had in flight.
            driver = nil
            run = nil
            stopDelivering()
            context.status = StatusMessage("simulation stopped: \(message)", .error)
            return refresh(pageSize: listRows(context), now: context.clock)
        case .runRecorded:
            return []
        case .deliveries(let deliveries):
            self.deliveries = deliveries
            return []
        case .committed(let generation):
            guard generation == self.generation else { return [] }
            driver?.committed()
            return refresh(pageSize: listRows(context), now: context.clock) + drive(context)
        case .replied(let callback, let url, let reply, let generation):
            guard generation == self.generation, driver != nil else { return [] }
            driver?.replied(callback, with: reply, url: url)
            return drive(context)
        case .finished(.success(let transaction)):
            context.status = StatusMessage("\(transaction.id) finished: removed from the queue (\(transaction.state.rawValue))", .success)
            return refresh(pageSize: listRows(context), now: context.clock)
        case .finished(.failure(let refusal)):
            context.status = StatusMessage("finish refused: \(refusal.message)", .warning)
            return []
        }
    }

    /// A live simulation's arrival window: a year, so it never runs dry while the console is open.
    static let liveSeconds = 365 * 24 * 3600

    /// The console's simulations buy with Apple's test money; `storedesk simulate --environment
    /// production` is the way to make Production purchases.
    static let environment = StoreEnvironment.sandbox

    /// Who starts, stops or sets faults on this console's run, and how it is set, for the audit log.
    func runAudit(_ context: ScreenContext, seed: UInt64? = nil) -> RunAudit {
        RunAudit(
            staff: context.session.staff, at: context.clock,
            settings: RunAudit.settings(environment: Self.environment, seconds: nil, rate: rate, seed: seed ?? simulation?.configuration.seed ?? 0))
    }

    /// Steps a commit of this console's run holds at most.
    static let batch = 4096

    /// The wall clock a run's speed is measured on: real time (`ScreenContext.wall`), so the console's
    /// clock catching up with the run's own commits neither slows it (10× moved the clock 52 s in 10 s when
    /// that wait was counted out) nor feeds it; without one (a harness's ticks), the console's clock.
    static func wall(_ context: ScreenContext) -> Instant { context.wall ?? context.clock }

    /// Carries out what the run's driver says now: the simulation's steps since the last call committed (in
    /// one transaction), the callbacks of committed orders POSTed, the heartbeat of an idle run.
    mutating func drive(_ context: ScreenContext) -> [Effect] {
        guard var driver, let run else { return [] }
        driver.speed = speed
        driver.paused = paused
        if (context.wall != nil) != pacedByWall {
            // The real clock showed up (or went): the pace counts on it from here.
            pacedByWall = context.wall != nil
            driver.resetPace(to: Self.wall(context))
        }
        let (actions, _) = driver.next(wall: Self.wall(context))
        var effects: [Effect] = []
        let generation = self.generation
        for action in actions {
            switch action {
            case .commit(let changes):
                if let latest = changes.compactMap(\.latestStamp).max() { lastStamped = max(lastStamped ?? latest, latest) }
                effects.append(Self.commit(changes, run: run) { .committed(generation: generation) })
            case .post(let callback):
                guard let url = routes[callback.appId] else {
                    // Its route was cleared before it left: a failed delivery, which the queue's backoff retries
                    // by the route of the moment.
                    let reply = CallbackReply.failed(.other("no callback URL for app \(callback.appId) any more"), latencyMicros: 0)
                    effects.append(Self.read { _ in .replied(callback, url: "", reply, generation: generation) })
                    continue
                }
                effects.append(Self.post(callback.body, to: url) { .replied(callback, url: url, $0, generation: generation) })
            case .heartbeat:
                effects.append(Self.write { store in
                    do {
                        try store.heartbeat(run)
                        return .runRecorded
                    } catch {
                        return .simulationFailed(Self.describe(error))
                    }
                })
            }
        }
        // A harness's clock jumps to the run's own stamps as they are committed: that is not time passing.
        if context.wall == nil, let lastStamped { driver.holdPace(until: lastStamped) }
        self.driver = driver
        return effects
    }

    /// Runs to the next due step only (the clock is paused); false when nothing is due.
    mutating func step(_ context: ScreenContext) -> (due: Bool, effects: [Effect]) {
        guard driver?.step() == true else { return (false, []) }
        return (true, drive(context))
    }

    /// Forgets the callbacks of a simulation that stopped: replies still on their way are dropped, and
    /// their orders stay pending for the next run to deliver.
    mutating func stopDelivering() {
        generation += 1
        driver?.forgetCallbacks()
        routes = [:]
    }

    /// `http://127.0.0.1:8080/callback (every app)`, or `3 apps' own URLs`.
    static func routesText(_ routes: [String: String], apps: Int) -> String {
        let urls = Set(routes.values)
        if urls.count == 1, let url = urls.first { return url + (routes.count == apps ? " (every app)" : " (\(routes.count) of \(apps) apps)") }
        return "\(routes.count) apps' own URLs"
    }

    /// Writes the simulation's steps as its run's; a refusal (another process took the run over, the
    /// store stayed locked) stops the simulation instead of letting it run on ahead of the store.
    static func commit(_ changes: [PaymentChange], run: PaymentRun, then result: @escaping @Sendable () -> Event) -> Effect {
        Self.write { store in
            do {
                try store.apply(changes, run: run)
                return result()
            } catch {
                return .simulationFailed(describe(error))
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
