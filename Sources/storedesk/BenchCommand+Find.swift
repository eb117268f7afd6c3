import ArgumentParser
import Foundation
import StoreDeskCore
import StoreDeskUI

extension BenchCommand {
    /// A read-only console on the store at `size`, its first frame's reads done, as a person at `role`
    /// would have it: what the in-process benchmarks type into.
    static func console(_ store: StoreOptions, size: Size, role: StaffRole) throws -> ConsoleRuntime {
        let database = try reporting { try store.open(.readOnly) }
        let catalog = ThemeCatalog()
        let wall = Instant(Date())
        let clock = ConsoleClock(store: try reporting { try database.now(wall: wall) }, wall: wall)
        var state = AppState(
            size: size, session: Session(role: role, actor: "bench", readOnly: true),
            storePath: database.path, clock: clock.now(wall: wall), timeZone: .local, themeName: "dark",
            themeNames: catalog.names)
        state.clockSource = clock.source
        let runtime = ConsoleRuntime(state: state, theme: .builtInDefault, store: database, catalog: catalog)
        runtime.settle()
        return runtime
    }

    /// `:find ID` typed into the console, as a person would, timed from Enter to the finished frame that
    /// shows what it found (the reducer, the store's index seeks, the render): "within one frame" means
    /// under the console's 30 ms key timeout.
    struct Find: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "find", abstract: "Time `:find ID` in the console, from Enter to the frame that shows the result.")
        @OptionGroup var store: StoreOptions
        @Argument(help: "The ids to find, each of which must find something.") var ids: [String]
        @Option(help: "Times each id is found.") var rounds: Int = 10
        @Option(help: ArgumentHelp("The terminal size.", valueName: "WIDTHxHEIGHT")) var size = Size(width: 120, height: 40)

        func validate() throws {
            guard !ids.isEmpty else { throw fail("give at least one id to find") }
            guard (1...1000).contains(rounds) else { throw fail("--rounds must be from 1 to 1000, got \(rounds)") }
        }

        func run() throws {
            let runtime = try BenchCommand.console(store, size: size, role: .support)
            var samples: [Double] = []
            for _ in 0..<rounds {
                for id in ids {
                    for character in ":find " + id { runtime.dispatch(.key(.character(character))) }
                    let start = DispatchTime.now()
                    runtime.dispatch(.key(.enter))
                    let frame = runtime.state.render()
                    samples.append(BenchCommand.since(start))
                    let find = runtime.state.screenState(FindScreen.self)
                    guard runtime.state.screen == .find, find.shownQuery == id, !find.results.isEmpty,
                        frame.plainText.contains(id)
                    else {
                        throw fail("`:find \(id)` showed nothing found")
                    }
                }
            }
            let sorted = samples.sorted()
            func percentile(_ p: Double) -> Double { sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] }
            print(String(format: "console :find: %d finds of %d ids  p50 %.2f ms  p95 %.2f ms  max %.2f ms (Enter to the frame showing the result)",
                         samples.count, ids.count, percentile(0.5), percentile(0.95), sorted.last ?? 0))
        }
    }
}
