import Foundation
import StoreDeskCore
import StoreDeskStoreAPI

extension ScreenID {
    public static let queue = QueueScreen.id
}

/// The Queue screen in the console: its keys, its `:` verbs, and its reducer's entry points.
extension QueueScreen: ConsoleScreen {
    public static let id = ScreenID("queue")
    public static let title = "Queue"

    /// What this screen's keys, verbs and prompts ask for.
    public enum Action: Sendable, Equatable {
        /// Start the simulation in this console, or stop it.
        case runOrStop
        /// `:sim start|stop|pause|resume|step`.
        case sim(SimulationStep)
        case pause, step, faster, slower
        /// Ask for a fault to inject.
        case fault
        /// Inject a fault (`KIND[:ARG]`), or `clear` them.
        case inject(String)
        case speed(Double)
        case rate(Double)
        /// finishTransaction on the selected transaction.
        case finish
        /// Show only the next state.
        case nextState
        /// Hide Sandbox purchases (`env:production`), or show them again (nil: the other way).
        case sandbox(hidden: Bool?)
        /// `:callback URL`: POST this console's simulation callbacks there; nil (`:callback clear`) goes
        /// back to each app's own URL, or the in-process game server.
        case callback(String?)
        /// Sort the queue by purchase time, either way (`:sort`, `O`).
        case sort(ListSort.Change)
        /// Write the whole list to a file (`:export`).
        case export(ExportRequest)
    }

    /// The queue seeks on `(purchase_date, id)`, either way.
    public static let sortable = ["purchased"]

    /// What `:sim` asks for.
    public enum SimulationStep: String, Sendable, CaseIterable {
        case start, stop, pause, resume, step
    }

    /// Needs a simulation running in this console.
    static let needsSimulation: @Sendable (QueueScreen) -> String? = {
        $0.simulation == nil ? "no simulation runs in this console (r starts one)" : nil
    }

    public static let commands: [ScreenCommand<QueueScreen>] = [
        .key(
            .character("r"), action: .runOrStop, help: "run/stop",
            summary: "Start the payment simulation in this console (taking over work that gone runs left in flight), or stop it.",
            permission: .driveSimulation, writes: true,
            verb: ScreenVerb("sim", argument: "start|stop|pause|resume|step", summary: "drive this console's payment simulation") {
                guard let step = SimulationStep(rawValue: $0) else { return .failure(VerbProblem(":sim takes start, stop, pause, resume or step")) }
                return .success(.sim(step))
            }),
        .key(
            .character(" "), action: .pause, help: "pause", summary: "Pause or resume the simulation's clock.",
            permission: .driveSimulation, writes: true, unavailable: needsSimulation),
        .key(
            .character("."), action: .step, help: "step", summary: "Single step: pause, then run the simulation to its next event.",
            permission: .driveSimulation, writes: true, unavailable: needsSimulation),
        .key(
            .character("+"), .character("="), action: .faster, help: "faster",
            summary: "Speed the simulated clock up (1×, 2×, 5× … 1000×).", permission: .driveSimulation, writes: true,
            unavailable: needsSimulation),
        .key(
            .character("-"), action: .slower, help: "slower", summary: "Slow the simulated clock down.", permission: .driveSimulation,
            writes: true, unavailable: needsSimulation),
        .key(
            .character("x"), action: .fault, help: "fault",
            summary: "Inject a fault: KIND[:ARG] (clientCrash, networkDrop, duplicateCallback, tamperedSign, tamperedField, askToBuy, failedPayment, serverDown:SECONDS) or clear.",
            permission: .driveSimulation, writes: true, unavailable: needsSimulation,
            verb: ScreenVerb("fault", argument: "KIND[:ARG]|clear", summary: "inject a fault into this console's simulation") {
                .success(.inject($0))
            }),
        .key(
            .character("f"), action: .finish, help: "finish",
            summary: "finishTransaction on the selected transaction (refused while purchasing, deferred or not yet granted, or in flight in another process's live run).",
            permission: .driveSimulation, writes: true),
        .key(
            .character("s"), action: .nextState, help: "state",
            summary: "Show only the next state: all, purchasing, purchased, deferred, failed, restored."),
        .key(
            .character("b"), action: .sandbox(hidden: nil), help: "sandbox",
            summary: "Hide Sandbox purchases (a simulation's test money: the filter's env:production), or show them again; the title counts them.",
            verb: ScreenVerb("sandbox", argument: "hide|show", summary: "hide or show Sandbox purchases") { text in
                RestoresScreen.sandboxChoice(text).map { .success(.sandbox(hidden: $0)) }
                    ?? .failure(VerbProblem(":sandbox takes hide or show, got '\(text)'"))
            }),
        .verb(
            "callback", argument: "URL|clear",
            summary: "POST this console's simulation callbacks to a game server (clear: each app's own URL, or in process)",
            permission: .driveSimulation, writes: true
        ) { text in
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed == "clear" { return .success(.callback(nil)) }
            do throws(AppSettingError) {
                return .success(.callback(try AppSettings.parseCallbackURL(trimmed)))
            } catch {
                return .failure(VerbProblem(error.description.replacingOccurrences(of: "--callback-url", with: ":callback")))
            }
        },
        .verb("speed", argument: "1-1000", summary: "simulated seconds per second", permission: .driveSimulation) { text in
            guard let value = Double(text), value >= 1, value <= 1000 else {
                return .failure(VerbProblem(":speed takes a number from 1 to 1000, got '\(text)'"))
            }
            return .success(.speed(value))
        },
        .verb("rate", argument: "PER_SECOND", summary: "purchase attempts per simulated second", permission: .driveSimulation) { text in
            guard let value = Double(text), value > 0, value <= 100_000 else {
                return .failure(VerbProblem(":rate takes purchases per second above 0 and at most 100000, got '\(text)'"))
            }
            return .success(.rate(value))
        },
        .reverseSort(.sort(.reverse), sortable: sortable) { .sort(.to($0)) },
    ] + ScreenCommand.export(noun: "transactions") { .export($0) }

    public static let footer: [Action] = [.runOrStop, .pause, .fault, .nextState, .sandbox(hidden: nil)]

    public var filterText: String? { filter }
    public var tickInterval: TimeInterval? { simulation != nil && !paused ? 0.1 : nil }

    /// Rows of the list: the page less its header (two lines, three while callbacks go over HTTP, and the
    /// sparklines' where the terminal is tall enough) and column titles.
    func listRows(_ context: ScreenContext) -> Int { max(1, context.pageSize - headerHeight(context)) }

    /// The header's lines above the list.
    func headerHeight(_ context: ScreenContext) -> Int {
        (showsDeliveries ? 3 : 2) + (showsActivity(context) ? Self.activityLines : 0)
    }

    /// The sparklines show where the list keeps at least eight rows with them.
    func showsActivity(_ context: ScreenContext) -> Bool {
        context.pageSize - (showsDeliveries ? 3 : 2) - Self.activityLines >= 8
    }

    public mutating func start(_ context: inout ScreenContext) -> [Effect] {
        reload(pageSize: listRows(context), now: context.clock) + activityEffect(now: context.clock)
    }

    public mutating func refresh(_ context: inout ScreenContext) -> [Effect] {
        refresh(pageSize: listRows(context), now: context.clock)
    }

    public mutating func tick(_ context: inout ScreenContext) -> [Effect] {
        let advanced = drive(context)
        // Without a write, the counters and throughput still follow other processes.
        let tally = advanced.isEmpty ? [Self.read { [lastEventId, clock = context.clock] store in Event.tally(try store.eventTally(after: lastEventId), at: clock) }] : advanced
        return tally + activityEffect(now: context.clock)
    }

    public mutating func setFilter(_ text: String, _ context: inout ScreenContext) -> [Effect] {
        guard text != filter else { return [] }
        filter = text
        if let problem = Self.query(text).problem { context.status = StatusMessage(problem, .warning) }
        return reload(pageSize: listRows(context), now: context.clock)
    }

    public mutating func select(id: String, _ context: inout ScreenContext) -> [Effect] {
        filter = id
        return show(list.reload(pageSize: listRows(context), source: source, landing: .row(id)), now: context.clock) + countEffect(forget: true)
    }

    /// Why a fault typed at the prompt is refused (`PaymentFault.parse`'s reason), or nil.
    @Sendable static func faultRefusal(_ text: String) -> String? {
        let text = text.trimmingCharacters(in: .whitespaces)
        guard text != "clear" else { return nil }
        do throws(PaymentFault.ParseError) {
            _ = try PaymentFault.parse(text)
            return nil
        } catch {
            return error.description.replacingOccurrences(of: "--fault", with: "fault")
        }
    }

    mutating func inject(_ text: String, _ context: inout ScreenContext) -> [Effect] {
        guard simulation != nil else {
            context.status = StatusMessage("no simulation runs in this console (r starts one)", .warning)
            return []
        }
        let change: RunAudit.FaultChange
        if text.trimmingCharacters(in: .whitespaces) == "clear" {
            driver?.change { simulation in
                simulation.clearFaults()
                return []
            }
            context.status = StatusMessage("faults cleared: purchases go through cleanly", .success)
            change = .clear
        } else {
            do throws(PaymentFault.ParseError) {
                let fault = try PaymentFault.parse(text.trimmingCharacters(in: .whitespaces))
                driver?.change { simulation in
                    simulation.inject(fault)
                    return []
                }
                context.status = StatusMessage("fault \(fault) injected from now on", .success)
                change = .inject(fault)
            } catch {
                context.status = StatusMessage(error.description.replacingOccurrences(of: "--fault", with: "fault"), .error)
                return []
            }
        }
        guard let run else { return [] }
        let entry = runAudit(context).fault(change, run: run.id)
        return [Self.write { store in
            try store.recordAudit(entry)
            return .runRecorded
        }]
    }

    public mutating func perform(_ command: Command, _ context: inout ScreenContext) -> [Effect] {
        let pageSize = listRows(context)
        switch command {
        case .up, .down, .top, .bottom, .pageUp, .pageDown:
            if context.scrollsDetail(command, &detailScroll, page: pageSize) { return [] }
            return move(command, pageSize: pageSize, now: context.clock)
        case .open:
            context.focus = .detail
            return detailEffect()
        default:
            return []
        }
    }

    public var sortColumns: [String] { Self.sortable }

    /// The queue in this order from its first row.
    mutating func sorted(_ order: ListSort, _ context: inout ScreenContext) -> [Effect] {
        sort = order
        context.status = StatusMessage("queue sorted by \(order.label)", .info)
        return show(list.reload(pageSize: listRows(context), source: source), now: context.clock)
    }

    public mutating func perform(_ action: Action, _ context: inout ScreenContext) -> [Effect] {
        switch action {
        case .sort(let change):
            return sorted(sort.changed(by: change, sortable: Self.sortable), &context)
        case .export(let request):
            return request.effects(source, noun: "transactions")
        case .runOrStop:
            if driver != nil {
                stopDelivering()
                driver = nil
                context.status = StatusMessage("simulation stopped; what was in flight stays in the queue for the next run", .info)
                guard let run else { return [] }
                self.run = nil
                let audit = runAudit(context)
                return [Self.write { store in
                    try store.endRun(run, audit: audit)
                    return .runRecorded
                }]
            }
            let seed = UInt64(truncatingIfNeeded: context.clock.millis)
            let audit = runAudit(context, seed: seed)
            return [Self.write { store in
                let catalogue = try store.paymentCatalogue(userLimit: 1000)
                guard catalogue.problem(path: store.path) == nil else { return .started(catalogue, nil, seed: seed) }
                return .started(catalogue, try store.startRun(.console, takingOver: true, audit: audit), seed: seed)
            }]
        case .sim(let step):
            let action: Action? = switch step {
            case .start: simulation == nil ? .runOrStop : nil
            case .stop: simulation != nil ? .runOrStop : nil
            case .pause: paused ? nil : .pause
            case .resume: paused ? .pause : nil
            case .step: .step
            }
            return action.map { perform($0, &context) } ?? []
        case .pause:
            paused.toggle()
            // No tick comes while paused: the time it stood still is not the run's.
            if (context.wall != nil) == pacedByWall { driver?.holdPace(until: Self.wall(context)) }
            context.status = StatusMessage(paused ? "paused: . steps, space resumes" : "resumed at \(Self.speedText(speed))", .info)
            return []
        case .step:
            paused = true
            let (due, effects) = step(context)
            context.status = StatusMessage(
                due ? "stepped to " + (simulation?.now.secondsText(in: context.timeZone) ?? "") : "nothing is due", .info)
            return effects
        case .faster, .slower:
            let index = Self.speeds.lastIndex { $0 <= speed } ?? 0
            let next = action == .faster ? min(Self.speeds.count - 1, index + 1) : max(0, index - 1)
            speed = Self.speeds[next]
            context.status = StatusMessage("speed \(Self.speedText(speed))", .info)
            return []
        case .speed(let value):
            speed = value
            context.status = StatusMessage("speed \(Self.speedText(speed))", .info)
            return []
        case .rate(let value):
            rate = value
            driver?.change { simulation in
                simulation.setRate(value)
                return []
            }
            context.status = StatusMessage("\(Self.rateText(value)) purchases per simulated second", .info)
            return []
        case .fault:
            Self.prompt("fault (KIND[:ARG] or clear)", history: "fault", &context, refuse: Self.faultRefusal) { .inject($0) }
            return []
        case .inject(let text):
            return inject(text, &context)
        case .callback(let url):
            callbackURL = url
            let where_ = url.map { "callbacks are POSTed to \($0) for every app" }
                ?? "callback URL cleared: each app's own URL, else StoreDesk's in-process game server"
            guard let apps = simulation?.configuration.apps else {
                context.status = StatusMessage(where_ + " once a simulation starts (r)", .success)
                return []
            }
            let routes = Self.routes(apps: apps, override: url)
            self.routes = routes
            driver?.change { simulation in
                simulation.route(remoteApps: Set(routes.keys))
                return []
            }
            context.status = StatusMessage(where_ + " from now on", .success)
            return []
        case .nextState:
            let states: [TransactionState?] = [nil] + TransactionState.allCases.map { $0 }
            let (query, _) = Self.query(filter)
            let index = states.firstIndex(of: query.state) ?? 0
            let next = states[(index + 1) % states.count]
            var words = filter.split(separator: " ").map(String.init).filter { !$0.lowercased().hasPrefix("state:") && !$0.lowercased().hasPrefix("s:") }
            if let next { words.insert("state:" + next.rawValue, at: 0) }
            return setFilter(words.joined(separator: " "), &context)
        case .sandbox(let hidden):
            let hiding = hidden ?? (Self.query(filter).0.environment != .production)
            context.status = StatusMessage(hiding ? "Sandbox purchases hidden (b shows them)" : "Sandbox purchases shown")
            return setFilter(Self.filter(filter, hidingSandbox: hiding), &context)
        case .finish:
            guard let transaction = selectedRow else { return [] }
            if driver != nil, run != nil, simulation?.transactionsById[transaction.id] != nil {
                // Finished by the run itself: committed with its steps, in their order.
                var result: Result<PaymentChange, TransactionRefusal> = .failure(.notInQueue(transactionId: transaction.id))
                driver?.change { simulation in
                    result = simulation.finishNow(transaction.id)
                    return (try? result.get()).map { [$0] } ?? []
                }
                switch result {
                case .success(let change):
                    return apply(.finished(.success(change.transaction ?? transaction)), &context) + drive(context)
                case .failure(let refusal):
                    return apply(.finished(.failure(refusal)), &context)
                }
            }
            let id = transaction.id, at = context.clock, staff = context.session.staff
            return [Self.write { store in .finished(try store.finishTransaction(id: id, at: at, by: staff)) }]
        }
    }
}
