import ArgumentParser
import Foundation
import StoreDeskCore
import StoreDeskStoreAPI
import StoreDeskUI

/// `storedesk snapshot`: one rendered frame of a screen as plain text (no terminal needed).
struct SnapshotCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snapshot", abstract: "Print one rendered frame of a screen as plain text (no terminal needed).")

    @OptionGroup var store: StoreOptions
    @OptionGroup var console: ConsoleOptions
    @Option(help: "The screen: \(ScreenID.allCases.map(\.rawValue).joined(separator: ", ")).") var screen: String = "users"
    @Option(help: ArgumentHelp("The terminal size.", valueName: "WIDTHxHEIGHT")) var size = Size(width: 120, height: 40)
    @Option(help: "Select this user id.") var select: String?
    @Option(help: "Apply this list filter.") var filter: String?

    var request: SnapshotRequest {
        SnapshotRequest(
            store: store.location, staff: console.staff.staff, look: console.look, screen: screen, size: size,
            select: select, filter: filter)
    }

    func run() throws { try request.run() }
}

/// Everything `storedesk snapshot` needs, as a plain value. Scripts, tests and benchmarks call the
/// snapshot many times, and most of a short process's life went to ArgumentParser's reflection
/// (every first `as?` of a property wrapper scans the binary's protocol conformances), so a command
/// line made only of the snapshot's own options is read by `init?(arguments:)` instead; anything
/// else (help, an unknown option, a missing value) goes through ArgumentParser as before.
struct SnapshotRequest: Equatable {
    var store = StoreLocation()
    var staff = Staff()
    var look = Look()
    var screen = "users"
    var size = Size(width: 120, height: 40)
    var select: String?
    var filter: String?

    init(
        store: StoreLocation = StoreLocation(), staff: Staff = Staff(), look: Look = Look(), screen: String = "users",
        size: Size = Size(width: 120, height: 40), select: String? = nil, filter: String? = nil
    ) {
        self.store = store
        self.staff = staff
        self.look = look
        self.screen = screen
        self.size = size
        self.select = select
        self.filter = filter
    }

    /// The request for `arguments` (after the executable's name) when they are `snapshot` followed only
    /// by its own options (see `PlainCommandLine`), every value one the option takes; nil for anything
    /// else (ArgumentParser then reads it, and refuses a bad value).
    init?(arguments: [String]) {
        guard let line = PlainCommandLine(
            arguments, command: "snapshot", flags: ["migrate", "readonly", "no-color", "ascii"],
            options: ["db", "role", "as", "theme", "screen", "size", "select", "filter"], positionals: 0)
        else { return nil }
        store.migrate = line.flags.contains("migrate")
        staff.readonly = line.flags.contains("readonly")
        look.ascii = line.flags.contains("ascii")
        look.noColor = line.flags.contains("no-color")
        for (name, value) in line.options {
            switch name {
            case "db": store.db = value
            case "role":
                guard let role = StaffRole(argument: value) else { return nil }
                staff.role = role
            case "as": staff.actor = value
            case "theme": look.theme = value
            case "screen": screen = value
            case "size":
                guard let parsed = Size(argument: value) else { return nil }
                size = parsed
            case "select": select = value
            default: filter = value
            }
        }
    }

    /// Prints the frame and ends the process (exit status 0; a size too small for the console, 1) without tearing down the store's
    /// connection and dispatch queues: there is nothing to flush in a read-only store, and the teardown
    /// started threads of its own.
    func run() throws -> Never {
        let trace = PhaseTrace()
        var kept: (any Store)?
        let canvas = try reporting { () throws -> Canvas in
            guard let screenID = ScreenID.named(screen) else {
                throw StoreError.invalidArgument("unknown screen '\(screen.echoed)' (have: \(ScreenID.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            // A frame too small to hold the console is not a frame: refused in one line, exit 1.
            guard !Layout(size: size).isTooSmall else {
                let need = Layout.minimum
                throw StoreError.invalidArgument("--size \(size) is too small: the console needs at least \(need.width)x\(need.height)")
            }
            trace.mark("arguments")
            // Theme files are looked up only for --theme: the default theme is built in.
            let catalog = ThemeCatalog(environment: look.themeInForce.name == nil ? [:] : environmentValues("XDG_CONFIG_HOME", "HOME"))
            let (theme, themeWarnings) = try look.loadTheme(catalog)
            for warning in themeWarnings { warn(warning) }
            trace.mark("theme")
            // The clock is read first on a probe, so a store whose clock is no date is refused untouched.
            let opened = try store.open(.readOnly, verifying: { _ = try $0.clock() })
            kept = opened
            trace.mark("open store")
            let wall = Instant(Date())
            let clock = ConsoleClock(store: try opened.now(wall: wall), wall: wall)
            var state = AppState(
                size: size, session: staff.session(), storePath: opened.path, clock: clock.now(wall: wall),
                timeZone: .local, themeName: theme.name, themeNames: [])
            state.clockSource = clock.source
            state.glyphs = look.glyphs
            state.screen = screenID
            let canvas = try Snapshot.render(state: state, theme: theme, store: opened, catalog: catalog, select: select, filter: filter)
            trace.mark("render")
            return canvas
        }
        // The canvas is drawn text already: it shows controls escaped, and its newlines end its rows.
        Swift.print(canvas.plainText, terminator: "")
        trace.mark("print")
        withExtendedLifetime(kept) { exit(0) }
    }
}

/// `STOREDESK_TRACE=1` prints how long each phase of a command took, on stderr.
final class PhaseTrace {
    let enabled = environmentValue("STOREDESK_TRACE") == "1"
    var last = DispatchTime.now()

    func mark(_ phase: String) {
        guard enabled else { return }
        let now = DispatchTime.now()
        let ms = Double(now.uptimeNanoseconds - last.uptimeNanoseconds) / 1_000_000
        FileHandle.standardError.write(Data(String(format: "%-12@ %6.2f ms\n", phase, ms).utf8))
        last = now
    }
}
