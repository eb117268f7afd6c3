import ArgumentParser
import Foundation
import StoreDeskCore
import StoreDeskStoreAPI
import StoreDeskOpener
import StoreDeskUI

struct BenchCommand: ParsableCommand {
    static func since(_ start: DispatchTime) -> Double {
        Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1_000_000
    }

    static let configuration = CommandConfiguration(
        commandName: "bench", abstract: "Benchmarks that print figures (see Benchmarks/run.sh).",
        subcommands: [Filter.self, Find.self, Queue.self, Import.self])

    /// Types filter text into the Users screen one key at a time, as a person would, and times each
    /// keystroke from key to finished frame (reducer, queries, render).
    struct Filter: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "filter", abstract: "Time each filter keystroke on the Users screen.")
        @OptionGroup var store: StoreOptions
        @Option(help: "Texts to type, comma separated.") var texts: String = "王,张伟,Chen,Alex Ng,138,0000,2000123,emma_pro,zzzz-nobody,欧阳"
        @Option(help: ArgumentHelp("The terminal size.", valueName: "WIDTHxHEIGHT")) var size = Size(width: 120, height: 40)

        func run() throws {
            let runtime = try BenchCommand.console(store, size: size, role: .operator)
            var samples: [Double] = [], slices: [Double] = [], complete: [Double] = []
            var worst = ("", 0.0)
            for text in texts.split(separator: ",") {
                runtime.dispatch(.key(.character("/")))
                var typed = ""
                for character in text {
                    typed.append(character)
                    let start = DispatchTime.now()
                    // As the console does: the key, then a frame; a long scan goes on in slices after it.
                    runtime.dispatch(.key(.character(character)), settle: false)
                    _ = runtime.state.render()
                    let ms = BenchCommand.since(start)
                    samples.append(ms)
                    if ms > worst.1 { worst = (typed, ms) }
                    var sliceStart = DispatchTime.now()
                    while runtime.performDeferred() {
                        _ = runtime.state.render()
                        slices.append(BenchCommand.since(sliceStart))
                        sliceStart = DispatchTime.now()
                    }
                    complete.append(BenchCommand.since(start))
                }
                runtime.dispatch(.key(.escape))
            }
            func percentile(_ values: [Double], _ p: Double) -> Double {
                let sorted = values.sorted()
                return sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
            }
            print(String(format: "keystroke answered: %d keys  p50 %.2f ms  p95 %.2f ms  max %.2f ms (typing “%@”)",
                         samples.count, percentile(samples, 0.5), percentile(samples, 0.95), worst.1, worst.0))
            print(String(format: "      later scan slices: %d  p95 %.2f ms  max %.2f ms;  full result: p50 %.2f ms  max %.2f ms",
                         slices.count, percentile(slices, 0.95), slices.max() ?? 0, percentile(complete, 0.5), complete.max() ?? 0))
        }
    }

    /// The headless payment pipeline (simulate, sign, verify, decide, persist with events) against the
    /// same rows written with raw prepared SQLite inserts, in the same run, on scratch demo stores.
    struct Queue: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "queue",
            abstract: "Transactions per second of the headless payment pipeline beside raw SQLite inserts.")
        @Option(help: "About how many purchase attempts to run.") var transactions: Int = 20_000
        @Option(help: "The simulation's seed.") var seed: UInt64 = 1
        @Option(help: "At most this many steps per SQLite transaction (each step always with its events).") var batch: Int = 4096

        func validate() throws {
            guard (1...1_000_000).contains(batch) else { throw fail("--batch must be from 1 to 1000000, got \(batch)") }
            // The engine-only pass keeps every change in memory: two million is a few gigabytes.
            guard (1...2_000_000).contains(transactions) else { throw fail("--transactions must be from 1 to 2000000, got \(transactions)") }
        }

        func run() throws {
            try reporting {
                let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
                    "storedesk-bench-" + UUID().uuidString)
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                defer { try? FileManager.default.removeItem(at: folder) }
                func scratch(_ name: String) throws -> SQLiteBaselines.ScratchStore {
                    try SQLiteBaselines.demoStore(at: folder.appendingPathComponent(name).path)
                }
                let pipelineStore = try scratch("pipeline.sqlite").store
                let rawStore = try scratch("raw.sqlite")
                // A run of each store's own (both fresh, so both are run 1 and number the same order ids).
                let pipelineRun = try pipelineStore.startRun(.bench, takingOver: false).run
                let rawRun = try rawStore.store.startRun(.bench, takingOver: false).run
                let catalogue = try pipelineStore.paymentCatalogue()
                let rate = 1000.0
                let configuration = PaymentSimulation.Configuration(
                    seconds: max(1, Int((Double(transactions) / rate).rounded(.up))), rate: rate, seed: seed,
                    start: Instant(millis: 1_800_000_000_000), accounts: catalogue.accounts, apps: catalogue.apps,
                    products: catalogue.products, run: pipelineRun.id, idPrefix: "bench")

                // The engine alone: requests, states, receipts, signing, verifying, grant decisions.
                var engineOnly = PaymentSimulation(configuration)
                var start = DispatchTime.now()
                let changes = engineOnly.runCollecting()
                let engineMs = BenchCommand.since(start)

                // The whole pipeline: the same run, each step committed with its events.
                // The engine on this thread, the SQLite writer on the other core.
                var simulation = PaymentSimulation(configuration)
                start = DispatchTime.now()
                try PaymentPipeline.run(into: pipelineStore, run: pipelineRun, batch: batch) { emit in try simulation.run(emit) }
                let pipelineMs = BenchCommand.since(start)

                // The baseline: the same rows, raw prepared inserts, the same steps per transaction.
                start = DispatchTime.now()
                try rawStore.insertRaw(changes, run: rawRun, batch: batch)
                let rawMs = BenchCommand.since(start)

                let attempts = simulation.summary.attempts
                let rows = changes.reduce(0) { total, change in
                    total + change.events.count + (change.transaction == nil ? 0 : 1) + (change.order == nil ? 0 : 1)
                        + (change.callback == nil ? 0 : 1) + (change.grant == nil ? 0 : 1)
                }
                func perSecond(_ ms: Double) -> Int { Int((Double(attempts) / max(ms, 0.001) * 1000).rounded()) }
                print(
                    "queue: \(attempts.formattedWithSeparators) purchase attempts, \(simulation.summary.grants.formattedWithSeparators) grants, "
                        + "\(rows.formattedWithSeparators) rows in \(changes.count.formattedWithSeparators) steps, \(batch) steps per commit")
                print(
                    String(
                        format: "  pipeline (sign, verify, persist)  %8.1f ms  %@ transactions/s (engine and writer on two cores)", pipelineMs,
                        perSecond(pipelineMs).formattedWithSeparators))
                print(
                    String(
                        format: "  engine only (no store)            %8.1f ms  %@ transactions/s", engineMs,
                        perSecond(engineMs).formattedWithSeparators))
                print(
                    String(
                        format: "  raw SQLite inserts, same rows     %8.1f ms  %@ transactions/s   pipeline/raw %.2fx",
                        rawMs, perSecond(rawMs).formattedWithSeparators, pipelineMs / max(rawMs, 0.001)))
            }
        }
    }
}
