import ArgumentParser
import Foundation
import StoreDeskCore
import StoreDeskStoreAPI

extension EventsCommand {
    /// `storedesk events simulate PLAYER`: the console's live demo subscription, headless. A simulated
    /// subscription runs from the store's clock at a StoreKit testing time rate, with customer actions at
    /// set seconds, and everything Apple would have sent is imported in one transaction.
    struct Simulate: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "simulate",
            abstract: "Run a demo subscription through time at a StoreKit testing rate and import what Apple would send.",
            discussion: """
                The player subscribes at the store's clock (default product: their app's monthly one); \
                each --step ACTION@SECONDS acts that many seconds later (\(SubscriptionDemoAction.names)); \
                the run ends --for seconds after the start. At --rate 30s a month lasts 30 seconds and the \
                grace period and billing retry shrink alike. The notifications are imported as from \
                `simulation` and the store's clock moves to the end of the run. A refused step or bad input \
                imports nothing. Needs --role developer.
                """)

        @OptionGroup var store: StoreOptions
        @OptionGroup var staff: StaffOptions
        @Argument(help: "The player's user id.") var user: String
        @Option(help: "The auto-renewable product (default: the app's monthly subscription).") var product: String?
        @Option(help: "The time rate: 30s (a month every 30 seconds), 5m, or real (default: the app's StoreKit configuration's, else 30s).")
        var rate: SimulationRate?
        @Option(name: .customLong("for"), help: "How long the run lasts, in seconds from the purchase.") var seconds = 120
        @Option(name: .customLong("step"), help: "ACTION@SECONDS, repeatable: \(SubscriptionDemoAction.names).")
        var steps: [String] = []
        @OptionGroup var output: OutputOptions

        /// The steps in time order, checked before the store is opened.
        func parsedSteps() throws -> [(seconds: Int, action: SubscriptionDemoAction)] {
            try steps.map { text in
                let parts = text.split(separator: "@", maxSplits: 1).map(String.init)
                guard parts.count == 2, let action = SubscriptionDemoAction.parse(parts[0]) else {
                    throw StoreError.invalidArgument("--step '\(text.echoed)': expected ACTION@SECONDS with ACTION one of \(SubscriptionDemoAction.names)")
                }
                guard let at = Int(parts[1]), at > 0, at <= seconds else {
                    throw StoreError.invalidArgument("--step '\(text.echoed)': SECONDS must be a whole number from 1 to --for (\(seconds))")
                }
                return (at, action)
            }
            .enumerated().sorted { ($0.element.seconds, $0.offset) < ($1.element.seconds, $1.offset) }.map(\.element)
        }

        /// Why `--for` is refused at this rate, if it is: a run covers at most ten years of subscription time.
        func spanProblem(at rate: TimeRate, named name: String) -> String? {
            let longest = rate.longestRealRun.millis / 1000
            guard !(1...longest).contains(Int64(seconds)) else { return nil }
            return "--for must be from 1 to \(longest) seconds at --rate \(name) (ten years of subscription time), got \(seconds)"
        }

        /// The option rules, who may drive a simulation among them, before the store is opened. Without
        /// --rate, real time (the slowest) bounds --for here; the app's own rate is checked again in `run()`
        /// once the store says which it is.
        func validate() throws {
            if let problem = spanProblem(at: rate?.timeRate ?? .realTime, named: rate?.rawValue ?? "real (the slowest)") {
                throw fail(problem)
            }
            _ = try reporting(parsedSteps)
            if staff.readonly { throw fail("--readonly: `storedesk events simulate` writes the store, so nothing was done") }
            guard staff.role.may(.driveSubscriptionDemo) else { throw fail("--role \(staff.role): driving a simulation needs --role developer") }
        }

        func run() throws {
            let (result, refusals) = try reporting { () throws -> (SimulateJSON, [String]) in
                let chosenRate = rate?.timeRate
                let steps = try parsedSteps()
                let database = try store.open(.readWrite)
                let start = try database.commandNow().instant
                let setup = try database.subscriptionDemoSetup(userId: user, productId: product, at: start)
                // Without --rate, the app's StoreKit configuration decides, as Xcode's test session would.
                let rate = try chosenRate ?? database.storeKitTimeRate(appId: setup.app.id)?.timeRate ?? .monthEvery30Seconds
                if chosenRate == nil, let problem = spanProblem(at: rate, named: "\(rate.name) (the app's StoreKit configuration)") {
                    throw StoreError.invalidArgument(problem)
                }
                let end = start.adding(.seconds(Int64(seconds)))
                guard end.isSupported else {
                    throw StoreError.invalidArgument(
                        "--for \(seconds) s from the store's clock \(start.iso8601) ends after 9999-12-31, the last date a store keeps")
                }
                var simulation = setup.simulation(start: start, rate: rate)
                let id = try simulation.purchase(setup.product.id, at: start, appAccountToken: setup.appAccountToken)
                for step in steps {
                    let at = start.adding(.seconds(Int64(step.seconds)))
                    do {
                        try step.action.apply(to: &simulation, id, at: at)
                    } catch {
                        throw StoreError.invalidArgument("--step \(step.action)@\(step.seconds) refused: \(error); nothing was imported")
                    }
                }
                try simulation.advance(to: end)
                let report = try database.recordSimulatedNotifications(simulation.timeline.events, at: end, rate: rate)
                let records = try database.subscriptionRecords(userId: setup.userId)
                let info = records.snapshot(at: end).subscription(originalTransactionId: id)
                let refusals = report.lines.compactMap { line in
                    line.outcome.name == "rejected" ? "notification \(line.notificationUUID ?? "\(line.line)"): \(line.outcome.reason ?? "")" : nil
                }
                return (SimulateJSON(
                    originalTransactionId: id, userId: setup.userId, productId: setup.product.id, rate: rate.name,
                    start: start.iso8601, end: end.iso8601, imported: report.imported, rejected: report.rejected,
                    notifications: records.events.filter { $0.originalTransactionId == id }.sorted { $0.signedDate < $1.signedDate }
                        .map(SubsJSON.EventJSON.init),
                    subscription: info.map(SubsJSON.InfoJSON.init)), refusals)
            }
            for refusal in refusals { warn(refusal) }
            try output.show(result)
            if result.rejected > 0 { throw ExitCode(2) }
        }
    }
}
