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
}

/// A line of text a screen asked for: what the status line says, what has been typed, and the action
/// the answer becomes on that screen.
public struct Prompt: Sendable, Equatable {
    public var label: String
    public var text: String
    public let screen: ScreenID
    let answer: @Sendable (String) -> Message

    init(label: String, text: String, screen: ScreenID, answer: @escaping @Sendable (String) -> Message) {
        self.label = label
        self.text = text
        self.screen = screen
        self.answer = answer
    }

    public static func == (a: Prompt, b: Prompt) -> Bool { a.label == b.label && a.text == b.text && a.screen == b.screen }
}

public struct StatusMessage: Sendable, Hashable {
    public enum Kind: Sendable, Hashable { case info, success, warning, error }
    public var text: String
    public var kind: Kind
    public init(_ text: String, _ kind: Kind = .info) {
        self.text = text
        self.kind = kind
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
    public var timeZone: TimeZone
    public var screen: ScreenID = .users
    public var focus: Focus = .list
    public var mode: InputMode = .normal
    public var status: StatusMessage?
    public var themeName: String
    public var themeNames: [String]
    /// The state of every screen used so far, so each keeps its place when you come back. A screen is
    /// made the first time it is needed: a snapshot of one screen builds no other.
    public var screens: [ScreenID: any ConsoleScreen] = [:]
    /// Screens shown at least once (started).
    var started: Set<ScreenID> = []
    public var quitting = false

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
            layout: layout, focus: focus, status: status, mode: mode)
    }

    /// Runs one screen's reducer, typed, with the console's context, and takes back what it changed: how
    /// every action, event and key of a screen reaches it.
    mutating func update<S: ConsoleScreen, R>(_ type: S.Type, _ body: (inout S, inout ScreenContext) -> R) -> R {
        // Taken out of the dictionary while it changes, so its arrays are not copied on write.
        var state = screens.removeValue(forKey: S.id) as? S ?? S()
        var context = self.context
        let result = body(&state, &context)
        screens[S.id] = state
        focus = context.focus
        status = context.status
        mode = context.mode
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
        focus = context.focus
        status = context.status
        mode = context.mode
        return result
    }

    /// Makes a screen the shown one: started the first time, refreshed after.
    mutating func show(_ id: ScreenID) -> [Effect] {
        screen = id
        if started.insert(id).inserted { return with(id) { $0.start(&$1) } }
        return with(id) { $0.refresh(&$1) }
    }

    /// The shown screen's state.
    public var current: any ConsoleScreen { screens[screen] ?? ScreenRegistry.type(of: screen)?.init() ?? UsersScreen() }

    public var layout: Layout { Layout(size: size) }
}
