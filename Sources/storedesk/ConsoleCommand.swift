import ArgumentParser
import Foundation
import StoreDeskCore
import StoreDeskStore
import StoreDeskTerminal
import StoreDeskUI

/// Set from a signal handler (async-signal-safe), read by the console loop.
nonisolated(unsafe) var receivedSignal: sig_atomic_t = 0

struct ConsoleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "console", abstract: "Open the console (the default when no subcommand is given).")

    @OptionGroup var store: StoreOptions
    @OptionGroup var console: ConsoleOptions
    @Option(help: "Seconds between checks for changes made by other processes.") var refresh: Double = 1

    func run() throws {
        let (database, session, theme, warnings, catalog) = try reporting {
            guard refresh > 0, refresh <= 3600 else { throw StoreError.invalidArgument("--refresh must be between 0 and 3600 seconds, got \(refresh)") }
            guard isatty(0) == 1, isatty(1) == 1 else {
                throw StoreError.invalidArgument("the console needs a terminal; for scripts use a subcommand with --json (see storedesk --help)")
            }
            let catalog = ThemeCatalog()
            let (theme, warnings) = try console.loadTheme(catalog)
            let session = try console.session()
            let database = try store.open(console.readonly ? .readOnly : .readWriteConcurrent)
            return (database, session, theme, warnings, catalog)
        }
        var state = AppState(
            size: Size(width: 80, height: 24), session: session, storePath: database.path, clock: Instant(Date()),
            timeZone: .current, themeName: theme.name, themeNames: catalog.names)
        if let first = warnings.first { state.status = StatusMessage(first, .warning) }
        let runtime = ConsoleRuntime(state: state, theme: theme, database: database, catalog: catalog)
        let terminal = CursesTerminal(noColor: console.monochrome)
        // A parent may have left these blocked (a test runner's thread, a supervisor): the console
        // must still hear a resize and still give the terminal back on TERM, HUP and INT.
        var unblock = sigset_t()
        sigemptyset(&unblock)
        for sig in [SIGTERM, SIGHUP, SIGINT, SIGWINCH] { sigaddset(&unblock, sig) }
        pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
        for sig in [SIGTERM, SIGHUP, SIGINT] {
            signal(sig) { receivedSignal = $0 }
        }
        terminal.start()
        defer { terminal.stop() }
        runtime.run(
            device: terminal, refreshInterval: refresh, now: { Instant(Date()) }, shouldStop: { receivedSignal != 0 })
        terminal.stop()
        if receivedSignal != 0 { throw ExitCode(128 + receivedSignal) }
    }
}

struct SnapshotCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snapshot", abstract: "Print one rendered frame of a screen as plain text (no terminal needed).")

    @OptionGroup var store: StoreOptions
    @OptionGroup var console: ConsoleOptions
    @Option(help: "The screen: \(ScreenID.allCases.map(\.rawValue).joined(separator: ", ")).") var screen: String = "users"
    @Option(help: "The terminal size, WIDTHxHEIGHT.") var size: String = "120x40"
    @Option(help: "Select this user id.") var select: String?
    @Option(help: "Apply this list filter.") var filter: String?

    func run() throws {
        let trace = PhaseTrace()
        let canvas = try reporting { () throws -> Canvas in
            guard let screenID = ScreenID.named(screen) else {
                throw StoreError.invalidArgument("unknown screen '\(screen)' (have: \(ScreenID.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            guard let terminalSize = Size(size) else {
                throw StoreError.invalidArgument("--size must look like 120x40, got '\(size)'")
            }
            trace.mark("arguments")
            let catalog = ThemeCatalog()
            let (theme, _) = try console.loadTheme(catalog)
            trace.mark("theme")
            let database = try store.open(.readOnly)
            trace.mark("open store")
            let clock = try database.clock() ?? Instant(Date())
            var state = AppState(
                size: terminalSize, session: try console.session(), storePath: database.path, clock: clock,
                timeZone: .current, themeName: theme.name, themeNames: [])
            state.screen = screenID
            let canvas = try Snapshot.render(state: state, theme: theme, database: database, catalog: catalog, select: select, filter: filter)
            trace.mark("render")
            return canvas
        }
        print(canvas.plainText, terminator: "")
        trace.mark("print")
    }
}

/// `STOREDESK_TRACE=1` prints how long each phase of a command took, on stderr.
final class PhaseTrace {
    let enabled = ProcessInfo.processInfo.environment["STOREDESK_TRACE"] == "1"
    var last = DispatchTime.now()

    func mark(_ phase: String) {
        guard enabled else { return }
        let now = DispatchTime.now()
        let ms = Double(now.uptimeNanoseconds - last.uptimeNanoseconds) / 1_000_000
        FileHandle.standardError.write(Data(String(format: "%-12@ %6.2f ms\n", phase, ms).utf8))
        last = now
    }
}
