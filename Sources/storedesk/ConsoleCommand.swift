import ArgumentParser
import Foundation
import Synchronization
import StoreDeskCore
import StoreDeskStoreAPI
import StoreDeskOpener
import StoreDeskTerminal
import StoreDeskUI

/// The signal that asks the console to close (0: none yet): stored by a signal handler (a lock-free atomic
/// store is async-signal-safe), read by the console loop.
let receivedSignal = Atomic<Int32>(0)

struct ConsoleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "console", abstract: "Open the console (the default when no subcommand is given).")

    @OptionGroup var store: StoreOptions
    @OptionGroup var console: ConsoleOptions
    @Option(help: "Seconds between checks for changes made by other processes.") var refresh: Double = 1
    @Flag(help: "Leave the mouse to the terminal (its own selection); otherwise a click selects a row or a tab, the wheel scrolls.")
    var noMouse = false

    func validate() throws {
        guard refresh > 0, refresh <= 3600 else { throw fail("--refresh must be between 0 and 3600 seconds, got \(refresh)") }
    }

    func run() throws {
        let (database, session, theme, warnings, catalog) = try reporting {
            guard isatty(0) == 1, isatty(1) == 1 else {
                throw StoreError.invalidArgument("the console needs a terminal; for scripts use a subcommand with --json (see storedesk --help)")
            }
            let catalog = ThemeCatalog()
            var (theme, warnings) = try console.loadTheme(catalog)
            // A config file that was ignored is said on the status line too: stderr is under the screen.
            if let problem = UserConfig.current.problem { warnings.insert(problem, at: 0) }
            var session = console.session()
            // A store this user may not write (a 0444 file, a folder of someone else's) is opened
            // read-only, as a viewer opens a file it cannot save, rather than refused.
            if !session.readOnly, let reason = try? StoreOpener.whyNotWritable(path: store.location.path) {
                session.readOnly = true
                warnings.insert("read-only: \(reason)", at: 0)
            }
            // The clock is read first on a probe (and a writer's open checks the store too), so a store
            // whose clock is no date is refused with its bytes and its folder as they were.
            let database = try store.open(session.readOnly ? .readOnly : .readWriteConcurrent, verifying: { _ = try $0.clock() })
            return (database, session, theme, warnings, catalog)
        }
        let wall = Instant(Date())
        // A console already open on the store shares its clock: this one starts there, not at the last write.
        let clock = try reporting {
            ConsoleClock(store: try database.now(wall: wall), shared: try? database.sharedClock(), wall: wall)
        }
        var state = AppState(
            size: Size(width: 80, height: 24), session: session, storePath: database.path, clock: clock.now(wall: wall),
            timeZone: .local, themeName: theme.name, themeNames: catalog.names)
        state.clockSource = clock.source
        state.glyphs = console.look.glyphs
        if let first = warnings.first { state.status = StatusMessage(first, .warning) }
        let callbacks = ConsoleCallbacks()
        defer { callbacks.shutdown() }
        let runtime = ConsoleRuntime(state: state, theme: theme, store: database, catalog: catalog, callbacks: callbacks)
        let terminal = CursesTerminal(noColor: console.monochrome, mouse: !noMouse)
        // A parent may have left these blocked (a test runner's thread, a supervisor): the console
        // must still hear a resize and still give the terminal back on TERM, HUP and INT.
        var unblock = sigset_t()
        sigemptyset(&unblock)
        for sig in [SIGTERM, SIGHUP, SIGINT, SIGWINCH] { sigaddset(&unblock, sig) }
        pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
        for sig in [SIGTERM, SIGHUP, SIGINT] {
            signal(sig) { receivedSignal.store($0, ordering: .relaxed) }
        }
        terminal.start()
        defer { terminal.stop() }
        runtime.run(device: terminal, refreshInterval: refresh, clock: clock, shouldStop: { receivedSignal.load(ordering: .relaxed) != 0 })
        terminal.stop()
        // The store remembers where the console's clock stood, so the next console, or a command after
        // it, never starts earlier than this one showed (a store busy with another writer can refuse it:
        // the clock then stays where the last write left it, which no stamp is before).
        if !session.readOnly { try? database.remember(clock: runtime.state.clock) }
        let stoppedBy = receivedSignal.load(ordering: .relaxed)
        if stoppedBy != 0 { throw ExitCode(128 + stoppedBy) }
    }
}
