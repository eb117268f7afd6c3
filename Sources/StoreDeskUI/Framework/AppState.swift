import Foundation
import StoreDeskCore

/// Which pane has the keyboard.
public enum Focus: Sendable, Hashable {
    case list, detail
}

/// What the bottom line is doing: showing a message, or taking typed input.
public enum InputMode: Sendable, Equatable {
    case normal
    /// Typing after `/`; the list follows every keystroke.
    case filter(previous: String)
    /// Typing after `:`.
    case command(text: String)
    /// The `?` overlay, scrolled by this many lines.
    case help(scroll: Int)
    /// A screen asked for a line of text (`ConsoleScreen.prompt`); `enter` hands it the answer.
    case prompt(Prompt)
    /// The message log (`:messages`), scrolled to this line (nil: the newest at the bottom).
    case messages(scroll: Int?)
}

/// A line of text a screen asked for: what the status line says, what has been typed (a `LineEditor`),
/// the rule the answer must pass, and the action the answer becomes on that screen.
///
/// It stays open until it is answered or escaped: an answer `refuse` finds wrong keeps it open with the
/// reason beside it, and every key goes to the line, never to the screen behind.
public struct Prompt: Sendable, Equatable {
    /// How the line is typed and shown.
    public enum Kind: Sendable, Equatable {
        /// A line of text, edited as readline edits one.
        case text
        /// A secret (an AppKey): drawn as `•` while typed, never kept in the history.
        case secret
        /// A yes/no question: `y` or `n` answers on the key, without enter.
        case yesNo
    }

    public var label: String
    public var line: LineEditor
    public var kind: Kind
    public let screen: ScreenID
    /// Where its answers are remembered for ↑/↓ (the label unless the screen names it); nil: not kept.
    public let historyKey: String?
    /// Why the last answer was refused, shown beside the line until one is accepted.
    public var refusal: String?
    /// The history entry shown while ↑/↓ browse it (an index from the newest), and the line typed before.
    var browsing: HistoryPlace?
    /// Why an answer is refused (nil: accepted), asked before the screen sees it.
    let refuse: @Sendable (String) -> String?
    let answer: @Sendable (String) -> Message

    init(
        label: String, text: String, kind: Kind = .text, screen: ScreenID, history: String? = nil,
        refuse: @escaping @Sendable (String) -> String? = { _ in nil }, answer: @escaping @Sendable (String) -> Message
    ) {
        self.label = label
        self.line = LineEditor(prefilled: text)
        self.kind = kind
        self.screen = screen
        self.historyKey = kind == .text ? (history ?? label) : nil
        self.refuse = refuse
        self.answer = answer
    }

    /// What has been typed.
    public var text: String {
        get { line.text }
        set { line.text = newValue }
    }

    public static func == (a: Prompt, b: Prompt) -> Bool {
        a.label == b.label && a.line == b.line && a.kind == b.kind && a.screen == b.screen && a.refusal == b.refusal
    }
}

public struct StatusMessage: Sendable, Hashable {
    public enum Kind: Sendable, Hashable { case info, success, warning, error }
    public var text: String
    public var kind: Kind
    /// How far work still running got: the next report replaces it, and only the first is logged.
    public var progress: Bool
    public init(_ text: String, _ kind: Kind = .info, progress: Bool = false) {
        self.text = text
        self.kind = kind
        self.progress = progress
    }
}

/// The whole console as a value: what is on screen is a function of this and the theme.
public struct AppState: Sendable {
    public var size: Size
    public var session: Session
    public var storePath: String
    public var apps: [App] = []
    public var appIndex = 0
    public var environment: StoreEnvironment = .production
    /// The console's one clock: the instant every screen answers at (see `ConsoleClock`).
    public var clock: Instant
    /// Which clock that is, for the header.
    public var clockSource: ConsoleClock.Source = .store
    /// The wall clock at the last tick, as the runtime read it: real time, which never jumps when the
    /// console's clock catches up with a write. Nil where ticks come without it (a test's harness).
    public var wall: Instant?
    /// The wall clock when the console last wrote where its clock stands (`shareClock`).
    var clockSharedAt: Instant?
    public var timeZone: TimeZone
    /// What pictures are drawn with (see `TimelineBar.Glyphs.detect`).
    public var glyphs: TimelineBar.Glyphs = .unicode
    public var screen: ScreenID = .users
    public var focus: Focus = .list
    public var mode: InputMode = .normal
    /// The message of the last action: cleared by the next action or screen change, and every one
    /// logged with its time, whole, in `messages` (`:messages` shows them).
    public var status: StatusMessage? {
        didSet {
            if let status, status != oldValue, !(status.progress && oldValue?.progress == true) { log(status) }
        }
    }
    /// Every message shown this session, oldest first (at most `MessageLog.limit`).
    public var messages: [LoggedMessage] = []
    /// What was answered at each prompt (by its history key) and at `:` (`commandHistory`), oldest first.
    var history: [String: [String]] = [:]
    /// The `:` history entry ↑/↓ show (an index from the newest), and the line typed before.
    var commandBrowsing: HistoryPlace?
    /// Completions Tab offered for the `:` line, shown above it until the next key.
    var commandChoices: [String] = []
    public var themeName: String
    public var themeNames: [String]
    /// The state of every screen used so far, so each keeps its place when you come back. A screen is
    /// made the first time it is needed: a snapshot of one screen builds no other.
    public var screens: [ScreenID: any ConsoleScreen] = [:]
    /// Screens shown at least once (started).
    var started: Set<ScreenID> = []
    public var quitting = false
    /// Store calls are still out past a frame's wait (`Message.storeWaiting`): the header says "loading…".
    public var storeWaiting = false
    /// The last store call found the store's server unreachable (`Message.storeReachable`): the header
    /// says "reconnecting…" until a call answers again.
    public var storeUnreachable = false

    public init(
        size: Size, session: Session, storePath: String, clock: Instant, timeZone: TimeZone, themeName: String,
        themeNames: [String]
    ) {
        self.size = size
        self.session = session
        self.storePath = storePath
        self.clock = clock
        self.timeZone = timeZone
        self.themeName = themeName
        self.themeNames = themeNames
    }

    /// The app in context, for the header.
    public var app: App? { apps.indices.contains(appIndex) ? apps[appIndex] : nil }

    /// The first effects: the apps for the header, and the shown screen's data.
    public mutating func start() -> [Effect] {
        let load: Effect = .read { store in .appsLoaded(try store.apps()) }
        return [load] + show(screen)
    }

    /// The Users screen's state.
    public var users: UsersScreen {
        get { screenState(UsersScreen.self) }
        set { screens[UsersScreen.id] = newValue }
    }

    /// One screen's state by its type: a screen's state is looked up by the type's own id, so the cast
    /// always holds (here and in `update`, through which every action and event reaches it typed).
    public func screenState<S: ConsoleScreen>(_ type: S.Type) -> S { screens[S.id] as? S ?? S() }

    /// What screens see of the console.
    public var context: ScreenContext {
        ScreenContext(
            session: session, clock: clock, timeZone: timeZone, apps: apps, app: app, environment: environment,
            layout: layout, focus: focus, status: status, mode: mode, glyphs: glyphs, wall: wall)
    }

    /// Runs one screen's reducer, typed, with the console's context, and takes back what it changed: how
    /// every action, event and key of a screen reaches it.
    mutating func update<S: ConsoleScreen, R>(_ type: S.Type, _ body: (inout S, inout ScreenContext) -> R) -> R {
        // Taken out of the dictionary while it changes, so its arrays are not copied on write.
        var state = screens.removeValue(forKey: S.id) as? S ?? S()
        var context = self.context
        let result = body(&state, &context)
        screens[S.id] = state
        take(context, from: state)
        return result
    }

    /// Runs the shown screen's lifecycle (start, refresh, tick, filter, moves) with the console's context.
    mutating func withCurrent<R>(_ body: (inout any ConsoleScreen, inout ScreenContext) -> R) -> R {
        with(screen, body)
    }

    mutating func with<R>(_ id: ScreenID, _ body: (inout any ConsoleScreen, inout ScreenContext) -> R) -> R {
        var state: any ConsoleScreen = screens.removeValue(forKey: id) ?? ScreenRegistry.type(of: id)?.init() ?? UsersScreen()
        var context = self.context
        let result = body(&state, &context)
        screens[id] = state
        take(context, from: state)
        return result
    }

    /// What a screen changed of the console: the focus, the status line, the input mode, and the app in
    /// view (the header follows the Login screen's app).
    private mutating func take(_ context: ScreenContext, from state: any ConsoleScreen) {
        focus = context.focus
        status = context.status
        mode = context.mode
        if let id = state.appInView, let index = apps.firstIndex(where: { $0.id == id }) { appIndex = index }
    }

    /// Makes a screen the shown one: started the first time, refreshed after.
    mutating func show(_ id: ScreenID) -> [Effect] {
        // A message belongs to the screen it was said on.
        if id != screen { status = nil }
        screen = id
        if started.insert(id).inserted { return with(id) { $0.start(&$1) } }
        return with(id) { $0.refresh(&$1) }
    }

    /// The shown screen's state.
    public var current: any ConsoleScreen { screens[screen] ?? ScreenRegistry.type(of: screen)?.init() ?? UsersScreen() }

    /// The panes for the terminal's size and the shown screen (whether its list widens on a wide terminal).
    public var layout: Layout { Layout(size: size, widensList: ScreenRegistry.type(of: screen)?.widensList ?? true) }
}
