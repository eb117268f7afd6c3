import Foundation
import StoreDeskCore
import StoreDeskStore

extension ScreenID {
    public static let queue = QueueScreen.id
}

/// The Queue screen in the console: its keys, its `:` verbs, and its reducer's entry points.
extension QueueScreen: ConsoleScreen {
    public static let id = ScreenID("queue")
    public static let title = "Queue"

    static func developerOnly(_ state: AppState) -> String? {
        state.session.role == .developer ? nil : "driving the simulation needs the developer role"
    }

    static func needsSimulation(_ state: AppState) -> String? {
        developerOnly(state) ?? (state.screenState(QueueScreen.self).simulation == nil ? "no simulation runs in this console (r starts one)" : nil)
    }

    public static let bindings: [Binding] = [
        Binding(
            [.character("r")], .screen("run"), help: "run/stop",
            summary: "Start the payment simulation in this console (taking over work that gone runs left in flight), or stop it.",
            writes: true, disabledReason: developerOnly),
        Binding(
            [.character(" ")], .screen("pause"), help: "pause", summary: "Pause or resume the simulation's clock.",
            writes: true, disabledReason: needsSimulation),
        Binding(
            [.character(".")], .screen("step"), help: "step",
            summary: "Single step: pause, then run the simulation to its next event.", writes: true,
            disabledReason: needsSimulation),
        Binding(
            [.character("+"), .character("=")], .screen("faster"), help: "faster",
            summary: "Speed the simulated clock up (1×, 2×, 5× … 1000×).", writes: true, disabledReason: needsSimulation),
        Binding(
            [.character("-")], .screen("slower"), help: "slower", summary: "Slow the simulated clock down.", writes: true,
            disabledReason: needsSimulation),
        Binding(
            [.character("x")], .screen("fault"), help: "fault",
            summary: "Inject a fault: KIND[:ARG] (clientCrash, networkDrop, duplicateCallback, tamperedSign, tamperedField, askToBuy, failedPayment, serverDown:SECONDS) or clear.",
            writes: true, disabledReason: needsSimulation),
        Binding(
            [.character("f")], .screen("finish"), help: "finish",
            summary: "finishTransaction on the selected transaction (refused while purchasing, deferred or not yet granted).",
            writes: true, disabledReason: developerOnly),
        Binding(
            [.character("s")], .screen("state"), help: "state",
            summary: "Show only the next state: all, purchasing, purchased, deferred, failed, restored."),
    ]

    public static let footer: [Command] = [.screen("run"), .screen("pause"), .screen("fault"), .screen("state")]

    public static let verbs: [ConsoleCommandLine.Verb] = [
        .init(name: "fault", argument: "KIND[:ARG]|clear", summary: "inject a fault into this console's simulation"),
        .init(name: "speed", argument: "1-1000", summary: "simulated seconds per second"),
        .init(name: "rate", argument: "PER_SECOND", summary: "purchase attempts per simulated second"),
        .init(name: "sim", argument: "start|stop|pause|resume|step", summary: "drive this console's payment simulation"),
    ]

    public var filterText: String? { filter }
    public var tickInterval: TimeInterval? { simulation != nil && !paused ? 0.1 : nil }

    static func listRows(_ context: ScreenContext) -> Int { max(1, context.pageSize - 2) }

    public mutating func start(_ context: inout ScreenContext) -> [Effect] {
        fetch(offset: 0, keep: nil, pageSize: Self.listRows(context), now: context.clock)
    }

    public mutating func refresh(_ context: inout ScreenContext) -> [Effect] {
        fetch(offset: offset, keep: selectedRow?.id, pageSize: Self.listRows(context), now: context.clock)
    }

    public mutating func tick(_ context: inout ScreenContext) -> [Effect] {
        let advanced = advance(to: context.clock, pageSize: Self.listRows(context))
        // Without a write, the counters and throughput still follow other processes.
        return advanced.isEmpty ? [Self.read { [lastEventId, clock = context.clock] db in Event.tally(try db.eventTally(after: lastEventId), at: clock) }] : advanced
    }

    public mutating func setFilter(_ text: String, _ context: inout ScreenContext) -> [Effect] {
        guard text != filter else { return [] }
        filter = text
        selected = 0
        if let problem = Self.query(text).problem { context.status = StatusMessage(problem, .warning) }
        return fetch(offset: 0, keep: nil, pageSize: Self.listRows(context), now: context.clock)
    }

    public mutating func apply(_ event: any Sendable, _ context: inout ScreenContext) -> [Effect] {
        guard let event = event as? Event else { return [] }
        return apply(event, &context)
    }

    public mutating func select(id: String, _ context: inout ScreenContext) -> [Effect] {
        filter = id
        selected = 0
        return fetch(offset: 0, keep: id, pageSize: Self.listRows(context), now: context.clock)
    }

    public mutating func run(verb: String, argument: String, _ context: inout ScreenContext) -> [Effect] {
        switch verb {
        case "fault": return inject(argument, &context)
        case "speed":
            guard let value = Double(argument), value >= 1, value <= 1000 else {
                context.status = StatusMessage(":speed takes a number from 1 to 1000, got '\(argument)'", .error)
                return []
            }
            speed = value
            context.status = StatusMessage("speed \(Self.speedText(speed))", .info)
        case "rate":
            guard let value = Double(argument), value > 0, value <= 100_000 else {
                context.status = StatusMessage(":rate takes purchases per second above 0 and at most 100000, got '\(argument)'", .error)
                return []
            }
            rate = value
            simulation?.setRate(value)
            context.status = StatusMessage("\(Self.rateText(value)) purchases per simulated second", .info)
        case "sim":
            let command: Command? = switch argument {
            case "start": simulation == nil ? .screen("run") : nil
            case "stop": simulation != nil ? .screen("run") : nil
            case "pause": paused ? nil : .screen("pause")
            case "resume": paused ? .screen("pause") : nil
            case "step": .screen("step")
            default: nil
            }
            guard ["start", "stop", "pause", "resume", "step"].contains(argument) else {
                context.status = StatusMessage(":sim takes start, stop, pause, resume or step", .error)
                return []
            }
            guard context.session.role == .developer, !context.session.readOnly else {
                context.status = StatusMessage(
                    context.session.readOnly ? "the store is open read-only" : "driving the simulation needs the developer role", .warning)
                return []
            }
            return command.map { perform($0, &context) } ?? []
        default:
            break
        }
        return []
    }

    mutating func inject(_ text: String, _ context: inout ScreenContext) -> [Effect] {
        guard simulation != nil else {
            context.status = StatusMessage("no simulation runs in this console (r starts one)", .warning)
            return []
        }
        if text.trimmingCharacters(in: .whitespaces) == "clear" {
            simulation?.clearFaults()
            context.status = StatusMessage("faults cleared: purchases go through cleanly", .success)
            return []
        }
        do throws(PaymentFault.ParseError) {
            let fault = try PaymentFault.parse(text.trimmingCharacters(in: .whitespaces))
            simulation?.inject(fault)
            context.status = StatusMessage("fault \(fault) injected from now on", .success)
        } catch {
            context.status = StatusMessage(error.description.replacingOccurrences(of: "--fault", with: "fault"), .error)
        }
        return []
    }

    public mutating func perform(_ command: Command, _ context: inout ScreenContext) -> [Effect] {
        let pageSize = Self.listRows(context)
        switch command {
        case .up, .down, .top, .bottom, .pageUp, .pageDown:
            if context.scrollsDetail(command, &detailScroll, page: pageSize) { return [] }
            return move(command, pageSize: pageSize, now: context.clock)
        case .open:
            context.focus = .detail
            return detailEffect()
        case .screen("run"):
            if simulation != nil {
                simulation = nil
                context.status = StatusMessage("simulation stopped; what was in flight stays in the queue for the next run", .info)
                guard let run else { return [] }
                self.run = nil
                return [Self.write { db in
                    try db.endRun(run)
                    return Event.runRecorded
                }]
            }
            let seed = UInt64(truncatingIfNeeded: context.clock.millis)
            return [Self.write { db in
                let catalogue = try db.paymentCatalogue()
                guard !catalogue.userIds.isEmpty, !catalogue.products.isEmpty else { return Event.started(catalogue, nil, seed: seed) }
                return Event.started(catalogue, try db.startRun(.console, takingOver: true), seed: seed)
            }]
        case .screen("pause"):
            paused.toggle()
            lastAdvance = context.clock
            context.status = StatusMessage(paused ? "paused: . steps, space resumes" : "resumed at \(Self.speedText(speed))", .info)
            return []
        case .screen("step"):
            paused = true
            let effects = step()
            context.status = StatusMessage(
                effects.isEmpty ? "nothing is due" : "stepped to " + (simulation?.now.secondsText(in: context.timeZone) ?? ""), .info)
            return effects
        case .screen("faster"), .screen("slower"):
            let index = Self.speeds.lastIndex { $0 <= speed } ?? 0
            let next = command == .screen("faster") ? min(Self.speeds.count - 1, index + 1) : max(0, index - 1)
            speed = Self.speeds[next]
            context.status = StatusMessage("speed \(Self.speedText(speed))", .info)
            return []
        case .screen("fault"):
            context.prompt("fault (KIND[:ARG] or clear)", action: "fault")
            return []
        case .submit("fault", let text):
            return inject(text, &context)
        case .screen("state"):
            let states: [TransactionState?] = [nil] + TransactionState.allCases.map { $0 }
            let (query, _) = Self.query(filter)
            let index = states.firstIndex(of: query.state) ?? 0
            let next = states[(index + 1) % states.count]
            var words = filter.split(separator: " ").map(String.init).filter { !$0.lowercased().hasPrefix("state:") && !$0.lowercased().hasPrefix("s:") }
            if let next { words.insert("state:" + next.rawValue, at: 0) }
            return setFilter(words.joined(separator: " "), &context)
        case .screen("finish"):
            guard let transaction = selectedRow else { return [] }
            if var simulation, let run, simulation.transactionsById[transaction.id] != nil {
                let result = simulation.finishNow(transaction.id)
                self.simulation = simulation
                switch result {
                case .success(let change):
                    return [Self.commit([change], run: run) { Event.finished(.success(change.transaction ?? transaction)) }]
                case .failure(let refusal):
                    return apply(.finished(.failure(refusal)), &context)
                }
            }
            let id = transaction.id, at = context.clock, actor = context.session.actor
            return [Self.write { db in Event.finished(try db.finishTransaction(id: id, at: at, by: actor)) }]
        default:
            return []
        }
    }
}
