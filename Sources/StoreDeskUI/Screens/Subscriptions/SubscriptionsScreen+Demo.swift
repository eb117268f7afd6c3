import Foundation
import StoreDeskCore
import StoreDeskStoreAPI

/// A subscription a developer drives live on the Subscriptions screen, as StoreKit testing does in Xcode:
/// a `SubscriptionSimulation` at a `TimeRate` (by default a month every 30 seconds, grace and billing
/// retry scaled alike), started at the console's clock. Every tick plays it up to the clock, and what
/// Apple would have sent is written to the store as notifications from `simulation`, so the row moves
/// between states on screen, the Users screen's profile shows it, and `storedesk subs` answers for it.
public struct SubscriptionDemo: Sendable {
    public var setup: SubscriptionDemoSetup
    public var simulation: SubscriptionSimulation
    public var originalTransactionId: String
    /// Renewals fail to bill from now on (`b` again fixes the payment method).
    public var billingProblem = false
    public var autoRenew = true
    /// Notifications already in the store.
    var written: Set<String> = []

    /// What the simulation has sent that the store does not hold yet.
    var unwritten: [SubscriptionEvent] { simulation.timeline.events.filter { !written.contains($0.notificationUUID) } }
}

extension SubscriptionsScreen {
    /// The rates a demo can run at, as StoreKit testing offers them.
    static let demoRates: [TimeRate] = [.monthEvery30Seconds, .monthEvery5Minutes, .realTime]

    /// Needs a demo running in this console.
    static let needsDemo: @Sendable (SubscriptionsScreen) -> String? = {
        $0.demo == nil ? "no demo subscription runs (n starts one)" : nil
    }

    static let demoCommands: [ScreenCommand<SubscriptionsScreen>] = [
        .key(
            .character("n"), action: .demo, help: "demo",
            summary: "Start a demo subscription for a player (PLAYER [PRODUCT]) that renews live at the demo's time rate.",
            permission: .driveSubscriptionDemo, writes: true,
            verb: ScreenVerb("demo", argument: "PLAYER [PRODUCT]|stop|rate 30s|5m|real", summary: "drive a live demo subscription") {
                parseDemoVerb($0)
            }),
        .key(
            .character("t"), action: .nextRate, help: "rate",
            summary: "The next demo's time rate: a month every 30 seconds, every 5 minutes, or real time.",
            permission: .driveSubscriptionDemo),
        .key(
            .character("b"), action: .billing, help: "billing",
            summary: "Demo: renewals start failing to bill (grace period, then billing retry), or the payment method is fixed.",
            permission: .driveSubscriptionDemo, writes: true, unavailable: needsDemo),
        .key(
            .character("a"), action: .autoRenew, help: "auto-renew",
            summary: "Demo: turn auto-renew off (expires at the period's end, voluntarily) or on again.",
            permission: .driveSubscriptionDemo, writes: true, unavailable: needsDemo),
        .key(
            .character("c"), action: .change, help: "change plan",
            summary: "Demo: change to another product of the group: a dearer one upgrades at once, a cheaper one at renewal.",
            permission: .driveSubscriptionDemo, writes: true, unavailable: needsDemo),
        .key(
            .character("R"), action: .refund, help: "refund", summary: "Demo: Apple refunds the current period: revoked, access removed.",
            permission: .driveSubscriptionDemo, writes: true, unavailable: needsDemo),
        .key(
            .character("x"), action: .stopDemo, help: "stop demo",
            summary: "Stop driving the demo subscription (its notifications stay in the store).",
            permission: .driveSubscriptionDemo, unavailable: needsDemo),
    ]

    /// `:demo PLAYER [PRODUCT]`, `:demo stop`, `:demo rate 30s|5m|real`.
    static func parseDemoVerb(_ argument: String) -> Result<Action, VerbProblem> {
        let words = argument.split(separator: " ").map(String.init)
        switch words.first {
        case nil:
            return .failure(VerbProblem(":demo takes PLAYER [PRODUCT], stop, or rate 30s|5m|real"))
        case "stop":
            return .success(.stopDemo)
        case "rate":
            let rates = ["30s": TimeRate.monthEvery30Seconds, "5m": .monthEvery5Minutes, "real": .realTime]
            guard words.count == 2, let rate = rates[words[1]] else { return .failure(VerbProblem(":demo rate takes 30s, 5m or real")) }
            return .success(.demoRate(rate))
        default:
            return .success(.startDemo(argument))
        }
    }

    /// The status line's name for a rate: `a month every 30 s`.
    static func rateText(_ rate: TimeRate) -> String {
        switch rate.realMillisPerMonth {
        case nil: "real time"
        case let ms? where ms % 60_000 == 0: "a month every \(ms / 60_000) min"
        case let ms?: "a month every \(ms / 1000) s"
        }
    }

    mutating func performDemo(_ action: Action, _ context: inout ScreenContext) -> [Effect] {
        switch action {
        case .demo:
            openDemoPrompt(text: selectedRow?.subscription.userId ?? "", refusal: nil, &context)
            return []
        case .startDemoTyped(let text):
            demoTyped = text
            return startDemo(text, &context)
        case .startDemo(let text):
            demoTyped = nil
            return startDemo(text, &context)
        case .nextRate:
            let index = Self.demoRates.firstIndex(of: demoRate) ?? 0
            demoRate = Self.demoRates[(index + 1) % Self.demoRates.count]
            context.status = StatusMessage("the next demo runs at \(Self.rateText(demoRate))", .info)
            return []
        case .demoRate(let rate):
            demoRate = rate
            context.status = StatusMessage("the next demo runs at \(Self.rateText(rate))", .info)
            return []
        case .billing:
            return act(demo?.billingProblem == true ? .billingFixed : .billingFails, &context)
        case .autoRenew:
            return act(.autoRenew(demo?.autoRenew == false), &context)
        case .change:
            guard let demo else { return [] }
            let others = demo.setup.catalogue.filter {
                $0.subscriptionGroup == demo.setup.product.subscriptionGroup && $0.id != currentDemoProduct
            }
            let ids = others.map(\.id)
            Self.prompt("change to (\(ids.joined(separator: ", ")))", history: "change to", &context, refuse: { text in
                ids.contains(text.trimmingCharacters(in: .whitespaces)) ? nil : "change to one of \(ids.joined(separator: ", ")), got '\(text)'"
            }) { .changeTo($0) }
            return []
        case .changeTo(let text):
            return act(.change(productId: text.trimmingCharacters(in: .whitespaces)), &context)
        case .refund:
            return act(.refund, &context)
        case .stopDemo:
            guard let demo else { return [] }
            self.demo = nil
            context.status = StatusMessage("demo \(demo.originalTransactionId) stopped; its notifications stay in the store", .info)
            return []
        case .nextState, .sort, .export, .supportRefund, .supportUnrefund, .supportExtend, .supportToken, .supportTyped, .supportGo:
            return []
        }
    }

    /// Asks for the demo's player (and product); `refusal` re-opens it with what was typed and why not.
    func openDemoPrompt(text: String, refusal: String?, _ context: inout ScreenContext) {
        Self.prompt(
            "demo subscription: PLAYER [PRODUCT]", text: text, history: "demo", refusal: refusal, &context,
            refuse: { (1...2).contains($0.split(separator: " ").count) ? nil : "a demo subscription needs PLAYER [PRODUCT], got '\($0)'" }
        ) { .startDemoTyped($0) }
    }

    var currentDemoProduct: String? {
        demo.flatMap { $0.simulation.subscription($0.originalTransactionId)?.productId }
    }

    /// Reads what the demo needs; `demoReady` starts it.
    mutating func startDemo(_ text: String, _ context: inout ScreenContext) -> [Effect] {
        let words = text.split(separator: " ").map(String.init)
        guard (1...2).contains(words.count) else {
            context.status = StatusMessage("a demo subscription needs PLAYER [PRODUCT], got '\(text)'", .error)
            return []
        }
        let (user, product, now) = (words[0], words.count > 1 ? words[1] : nil, context.clock)
        return [Self.read { store in
            do {
                return .demoReady(try store.subscriptionDemoSetup(userId: user, productId: product, at: now))
            } catch let error as StoreError {
                return .demoFailed(error.description)
            }
        }]
    }

    mutating func applyDemo(_ event: Event, _ context: inout ScreenContext) -> [Effect] {
        switch event {
        case .demoReady(let setup):
            demoTyped = nil
            var simulation = setup.simulation(start: context.clock, rate: demoRate)
            do {
                let id = try simulation.purchase(setup.product.id, at: context.clock, appAccountToken: setup.appAccountToken)
                demo = SubscriptionDemo(setup: setup, simulation: simulation, originalTransactionId: id)
                context.status = StatusMessage(
                    "demo \(id): \(setup.userName) subscribes to \(setup.product.id), \(Self.rateText(demoRate)); b billing, a auto-renew, c change, R refund, x stop",
                    .success)
            } catch {
                context.status = StatusMessage("demo not started: \(error)", .error)
                return []
            }
            filter = demo?.originalTransactionId ?? filter
            state = nil
            return writeDemoEvents(context) + reload(pageSize: Self.listRows(context), now: context.clock)
        case .demoFailed(let message):
            // Typed at the prompt: the prompt opens again with the text and the reason, nothing leaks.
            if let typed = demoTyped {
                demoTyped = nil
                openDemoPrompt(text: typed, refusal: "demo not started: \(message)", &context)
                return []
            }
            context.status = StatusMessage("demo not started: \(message)", .error)
            return []
        case .demoWritten(let uuids, let rejected):
            demo?.written.formUnion(uuids)
            if let rejected { context.status = StatusMessage("demo notification refused: \(rejected)", .error) }
            return []
        default:
            return []
        }
    }

    /// Plays the demo up to the clock and writes what it sent.
    mutating func tickDemo(_ context: inout ScreenContext) -> [Effect] {
        guard var demo, context.clock > demo.simulation.now else { return [] }
        do {
            try demo.simulation.advance(to: context.clock)
        } catch {
            context.status = StatusMessage("demo: \(error)", .error)
        }
        self.demo = demo
        return writeDemoEvents(context)
    }

    /// One customer action on the demo, at the console's clock.
    private mutating func act(_ action: SubscriptionDemoAction, _ context: inout ScreenContext) -> [Effect] {
        guard var demo else {
            context.status = StatusMessage("no demo subscription runs (n starts one)", .warning)
            return []
        }
        // Two keys within one tick would sign two notifications at the same instant, which the store
        // cannot order: each action comes a millisecond after the last at least.
        let now = max(context.clock, Instant(millis: demo.simulation.now.millis + 1))
        do {
            context.status = StatusMessage(try action.apply(to: &demo.simulation, demo.originalTransactionId, at: now), .success)
            switch action {
            case .billingFails, .billingFixed: demo.billingProblem = action == .billingFails
            case .autoRenew(let on): demo.autoRenew = on
            case .change, .refund: break
            }
        } catch {
            context.status = StatusMessage("refused: \(error)", .error)
        }
        self.demo = demo
        return writeDemoEvents(context)
    }

    private func writeDemoEvents(_ context: ScreenContext) -> [Effect] {
        guard let demo, !demo.unwritten.isEmpty, !context.session.readOnly else { return [] }
        let events = demo.unwritten, now = max(context.clock, demo.simulation.now)
        return [Self.write { store in
            let report = try store.recordSimulatedNotifications(events, at: now, rate: demo.simulation.rate)
            let rejected = report.lines.first { $0.outcome.name == "rejected" }.map { $0.outcome.reason ?? $0.outcome.name }
            return .demoWritten(Set(events.map(\.notificationUUID)), rejected: rejected)
        }]
    }
}
