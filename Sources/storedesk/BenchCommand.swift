import ArgumentParser
import Foundation
import StoreDeskCore
import StoreDeskStore
import StoreDeskUI

struct BenchCommand: ParsableCommand {
    static func since(_ start: DispatchTime) -> Double {
        Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1_000_000
    }

    static let configuration = CommandConfiguration(
        commandName: "bench", abstract: "Benchmarks that print figures (see Benchmarks/run.sh).",
        subcommands: [Filter.self])

    /// Types filter text into the Users screen one key at a time, as a person would, and times each
    /// keystroke from key to finished frame (reducer, queries, render).
    struct Filter: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Time each filter keystroke on the Users screen.")
        @OptionGroup var store: StoreOptions
        @Option(help: "Texts to type, comma separated.") var texts: String = "王,张伟,Chen,Alex Ng,138,0000,2000123,emma_pro,zzzz-nobody,欧阳"
        @Option(help: "The terminal size.") var size: String = "120x40"

        func run() throws {
            let database = try reporting { try store.open(.readOnly) }
            guard let terminalSize = Size(size) else { throw fail("--size must look like 120x40, got '\(size)'") }
            let catalog = ThemeCatalog()
            let state = AppState(
                size: terminalSize, session: Session(role: .operator, actor: "bench", readOnly: true),
                storePath: database.path, clock: Instant(Date()), timeZone: .current, themeName: "dark",
                themeNames: catalog.names)
            let runtime = ConsoleRuntime(state: state, theme: .builtInDefault, database: database, catalog: catalog)
            _ = runtime.settleFirstFrame()
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
}
