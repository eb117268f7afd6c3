import ArgumentParser
import Foundation
import StoreDeskCore
import StoreDeskNetwork
import StoreDeskStoreAPI
import StoreDeskUI

/// `storedesk simulate`: the payment queue, headless, written into the store as it runs.
struct SimulateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Run the payment queue simulation headless against the store and print a summary.",
        discussion: """
            Faults (KIND[:ARG], repeatable): clientCrash, networkDrop, duplicateCallback, tamperedSign, \
            tamperedField, askToBuy, failedPayment take a probability (default 0.2); serverDown takes seconds \
            (default 10, from a quarter of the run). Every step is committed with its event, so a kill at any \
            moment leaves a store that `storedesk check` finds clean. What a run has in flight is its own while \
            it lives; a new run first takes over what runs that are gone left in flight (purchases still \
            settling or deferred, orders not yet called back, grants not yet finished), never a live run's work. \
            Purchases are Sandbox (Apple's test money) unless --environment production; each is made from a \
            game account the store has for the player in the product's app. The run's start (with its faults) \
            and its stop are on the audit log (`audit --action simulate`), under --as.
            """)

    @Option(help: "Simulated seconds during which purchases arrive.") var seconds: Int = 60
    @Option(help: "Purchase attempts per simulated second.") var rate: Double = 10
    @Option(help: "The simulation's seed: the same seed gives the same run.") var seed: UInt64 = 1
    @Option(name: .customLong("fault"), help: ArgumentHelp("Inject a fault (repeatable).", valueName: "kind[:arg]"))
    var faults: [String] = []
    @Option(help: "Simulated seconds per wall-clock second (0: as fast as possible).") var speed: Double = 0
    @Option(
        name: .customLong("callback-url"),
        help: ArgumentHelp(
            "POST every app's callbacks to this game server URL (default: each app's own callback URL, if set).",
            valueName: "url"))
    var callbackURL: String?
    @Option(help: "Callbacks in flight at most (with --callback-url).") var concurrency = 16
    @Option(help: "Seconds a game server has to answer a callback (with --callback-url).") var timeout: Double = CallbackPoster.defaultTimeout
    @Option(help: "The App Store environment the run's purchases are made in.") var environment: EnvironmentChoice = .sandbox
    @OptionGroup var staff: StaffOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup var store: StoreOptions

    /// The slowest pace a run may take: a simulated second every 100 wall-clock seconds.
    static let slowestSpeed = 0.01

    /// The option rules, checked before the store is opened, so a bad value leaves the file untouched.
    func validate() throws {
        if let problem = PaymentSimulation.Configuration.problem(seconds: seconds, rate: rate, speed: speed) { throw fail(problem) }
        // A speed just above 0 (4.9e-324) is not "as fast as possible" but a run that never ends.
        guard speed == 0 || speed >= Self.slowestSpeed else {
            throw fail(
                "--speed must be 0 (as fast as possible) or from \(Self.slowestSpeed) to \(Int(PaymentSimulation.Configuration.largestSpeed)), got \(speed)")
        }
        if staff.readonly { throw fail("--readonly: `storedesk simulate` writes the store, so nothing was done") }
        if let callbackURL { _ = try checkedCallbackURL(callbackURL, option: "--callback-url") }
        guard (1...1024).contains(concurrency) else { throw fail("--concurrency must be from 1 to 1024, got \(concurrency)") }
        guard timeout > 0, timeout.isFinite, timeout <= 300 else {
            throw fail("--timeout must be above 0 and at most 300 seconds, got \(timeout)")
        }
        do throws(PaymentFault.ParseError) {
            _ = try parsedFaults()
        } catch {
            throw fail(error.description)
        }
    }

    /// The `--fault` values, in the order given.
    func parsedFaults() throws(PaymentFault.ParseError) -> [PaymentFault] {
        var parsed: [PaymentFault] = []
        for fault in faults { parsed.append(try PaymentFault.parse(fault)) }
        return parsed
    }

    func run() async throws {
        try await reporting {
            let url = callbackURL
            let parsed = try parsedFaults()
            let database = try store.open(.readWrite)
            let catalogue = try database.paymentCatalogue()
            if let problem = catalogue.problem(path: database.path) { throw StoreError.invalidArgument(problem) }
            let start = try database.commandNow().instant
            let audit = RunAudit(
                staff: StaffMember(name: staff.staff.actorName, role: staff.role), at: start,
                settings: RunAudit.settings(environment: environment.environment, seconds: seconds, rate: rate, seed: seed), faults: parsed)
            // This run's number and lock first, and the work of runs that are gone (killed, or ended with
            // purchases still in flight) with it; a live run's work stays with that run. Audited with it.
            let began = try database.startRun(.simulate, takingOver: true, audit: audit)
            let run = began.run
            // Callbacks go to a real game server: every app's to --callback-url when given, else each app's
            // own callback URL (`apps set APP --callback-url URL`); apps with neither keep the in-process one.
            let urls = Dictionary(uniqueKeysWithValues: catalogue.apps.compactMap { app in (url ?? app.callbackURL).map { (app.id, $0) } })
            var simulation = PaymentSimulation(
                PaymentSimulation.Configuration(
                    seconds: seconds, rate: rate, seed: seed, faults: parsed, start: start, accounts: catalogue.accounts,
                    apps: catalogue.apps, products: catalogue.products, run: run.id, idPrefix: "sim",
                    storeKitTesting: catalogue.storeKitTesting, remoteApps: Set(urls.keys), environment: environment.environment))
            simulation.resume(began.inFlight)
            // One driver says what to commit, post, heartbeat and wait for; how it is done depends on the run.
            var driver = PaymentRunDriver(simulation, speed: speed, concurrency: concurrency, batch: 1024, heartbeatInterval: PaymentRun.heartbeatInterval)
            if urls.isEmpty && speed == 0 {
                // As fast as possible, every callback answered in process: the engine here, the writer on the
                // other core.
                try PaymentPipeline.run(into: database, run: run, batch: 64) { emit in try driver.runInProcess(emit) }
            } else {
                // Paced by the wall clock, or waiting on real game servers' replies.
                let poster = urls.isEmpty ? nil : CallbackPoster(timeout: timeout, connectionsPerHost: concurrency)
                let loop = PaymentRunLoop(store: database, run: run, poster: poster, urls: urls)
                do {
                    try await loop.run(&driver)
                } catch {
                    try? await poster?.shutdown()
                    throw error
                }
                try await poster?.shutdown()
            }
            simulation = driver.simulation
            // What is still due after the window stays in flight, free for the next run at once.
            var stop = audit
            stop.at = try database.commandNow().instant
            try database.endRun(run, audit: stop)
            try output.show(
                SimulateReport(
                    summary: simulation.summary, run: run.id, tookOver: began.tookOverFrom, path: database.path, seconds: seconds,
                    rate: rate, seed: seed, faults: parsed, storeKit: catalogue.storeKitTesting))
        }
    }
}
