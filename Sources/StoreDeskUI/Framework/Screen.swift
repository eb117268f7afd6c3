import Foundation
import StoreDeskCore
import StoreDeskStoreAPI

/// A screen's name: its `:` command, its `--screen` value and its key in `AppState.screens`.
public struct ScreenID: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    /// The screens in tab order (their number is their place).
    public static var allCases: [ScreenID] { ScreenRegistry.all.map { $0.id } }

    /// The title the tab bar shows.
    public var title: String { ScreenRegistry.type(of: self)?.title ?? rawValue }

    /// The short title the tab bar falls back to (`ConsoleScreen.shortTitle`).
    public var shortTitle: String { ScreenRegistry.type(of: self)?.shortTitle ?? title }

    /// A known screen by its name, or nil.
    public static func named(_ name: String) -> ScreenID? { allCases.first { $0.rawValue == name } }
}

/// What a screen sees of the console while it reduces or renders, and what it may change besides
/// its own state: the focus, the status line and the input mode.
public struct ScreenContext: Sendable {
    public let session: Session
    /// The console's one clock: every screen answers at this instant (see `ConsoleClock`).
    public let clock: Instant
    public let timeZone: TimeZone
    public let apps: [App]
    public let app: App?
    public let environment: StoreEnvironment
    public let layout: Layout
    public var focus: Focus
    public var status: StatusMessage?
    public var mode: InputMode
    /// What pictures (the timeline bar) are drawn with: block elements, or ASCII (`--ascii`, a locale
    /// that is not UTF-8, TERM linux or vt100).
    public var glyphs: TimelineBar.Glyphs = .unicode
    /// Real time at the last tick (`AppState.wall`): what a screen measures elapsed time by when the
    /// console's clock may jump (a simulation's own commits move it); nil in a harness.
    public var wall: Instant? = nil

    /// Rows of data the list pane shows.
    public var pageSize: Int { layout.listRows }
    public var isFiltering: Bool {
        if case .filter = mode { return true }
        return false
    }

    /// A move key while the detail pane has the focus scrolls the detail (`scroll`, a page being `page`
    /// rows, the list's by default) and leaves the list where it is: returns whether it did.
    ///
    ///     if context.scrollsDetail(command, &detailScroll) { return [] }
    public func scrollsDetail(_ command: Command, _ scroll: inout Int, page: Int? = nil) -> Bool {
        guard focus == .detail else { return false }
        scroll = DetailScroll.moved(scroll, by: command, page: page ?? pageSize)
        return true
    }
}

/// One screen of the console: its state, its reducer and its view, with its own typed `Action`s (what
/// its keys and `:` verbs ask for) and `Event`s (what its effects bring back). Adding a screen means
/// writing one of these and listing it in `ScreenRegistry.all`.
///
/// A key binding, its `:` verb, its help and its guard are one `ScreenCommand` in `commands`; the
/// console checks the guard (role, read-only store, the screen's own state) before `perform` sees the
/// action, and the footer, `?` help, `:` completion and the README follow from the same declaration.
public protocol ConsoleScreen: Sendable {
    /// What this screen's own keys and `:` verbs ask for.
    associatedtype Action: Sendable & Equatable = NoAction
    /// What this screen's effects bring back to `apply`.
    associatedtype Event: Sendable = NoEvent

    /// The screen's name (`:users`, `--screen users`).
    static var id: ScreenID { get }
    /// The tab's title.
    static var title: String { get }
    /// The tab's title where the tab bar has no room for every title whole (`Subs`): the title itself
    /// unless the screen gives a shorter one.
    static var shortTitle: String { get }
    /// Whether the list pane takes more than half of a wide terminal (`Layout`), so its columns widen to
    /// their cells; false for a screen whose detail pane is its picture (the login panel's preview).
    static var widensList: Bool { get }
    /// This screen's own commands, in the order help lists them.
    static var commands: [ScreenCommand<Self>] { get }
    /// The actions whose hints the footer shows on this screen, after the list moves. A screen that names
    /// none shows every key of its `commands`, in their order (a key is never left out of the footer by
    /// forgetting a list); one that names them chooses which and in what order.
    static var footer: [Action] { get }

    init()

    /// The current filter, or nil when the screen has none (then `/` says so).
    var filterText: String? { get }

    /// The first data, when the screen is first shown.
    mutating func start(_ context: inout ScreenContext) -> [Effect]
    /// Fetch what is visible again: the store changed, the size changed, `Ctrl-R`, or the screen
    /// is shown again. Keep the selection on the same item.
    mutating func refresh(_ context: inout ScreenContext) -> [Effect]
    /// The console clock moved (every second; faster while a screen runs something live).
    mutating func tick(_ context: inout ScreenContext) -> [Effect]
    /// The terminal's size changed (`context.layout` is the new one): what the model keeps at a pane's
    /// width is made again here, not in the view.
    mutating func resized(_ context: inout ScreenContext) -> [Effect]
    /// The filter changed by one keystroke (or `:filter TEXT`).
    mutating func setFilter(_ text: String, _ context: inout ScreenContext) -> [Effect]
    /// One of the console's commands that reach a screen: the moves, `open` and `back`.
    mutating func perform(_ command: Command, _ context: inout ScreenContext) -> [Effect]
    /// One of this screen's own actions, its guard already passed.
    mutating func perform(_ action: Action, _ context: inout ScreenContext) -> [Effect]
    /// A result of one of this screen's effects.
    mutating func apply(_ event: Event, _ context: inout ScreenContext) -> [Effect]
    /// Select the item with this id (`:select ID`, `snapshot --select ID`).
    mutating func select(id: String, _ context: inout ScreenContext) -> [Effect]
    /// A key before the keymap sees it, for a screen's own modal input (a picker, an editor).
    /// Return nil to let the keymap handle it.
    mutating func intercept(_ key: Key, _ context: inout ScreenContext) -> [Effect]?
    /// How fast the screen wants ticks while it is shown, or nil for the console's 1 s.
    var tickInterval: TimeInterval? { get }
    /// The ids of the rows it shows, for tab completion of `:select ID` and the like (cheap: what is on screen).
    var completionIds: [String] { get }
    /// The columns its list can be sorted by (`:sort` completes them); empty for a list of one order.
    var sortColumns: [String] { get }
    /// The id of the selected row, as a ticket would give it (`y` copies it); nil when nothing is selected.
    var selectedId: String? { get }
    /// A click on the list pane at `point` (canvas cells): select the row drawn there. Nothing by default.
    mutating func click(at point: Point, in list: Rect, _ context: inout ScreenContext) -> [Effect]
    /// The app this screen is about when it chose one of its own (the Login screen's): the header follows it.
    var appInView: String? { get }

    /// Draws the body: everything between the tab bar and the footer.
    func render(into canvas: inout Canvas, layout: Layout, context: ScreenContext)
}

/// The `Action` of a screen that has no commands of its own.
public enum NoAction: Sendable, Equatable {}

/// The `Event` of a screen whose effects bring nothing back (or that has none).
public enum NoEvent: Sendable {}

extension ConsoleScreen {
    public static var shortTitle: String { title }
    public static var widensList: Bool { true }
    public static var commands: [ScreenCommand<Self>] { [] }
    public static var footer: [Action] { commands.compactMap { $0.keys.isEmpty ? nil : $0.action } }
    public var filterText: String? { nil }
    public var tickInterval: TimeInterval? { nil }
    public var completionIds: [String] { [] }
    public var sortColumns: [String] { [] }
    public var selectedId: String? { nil }
    public mutating func click(at point: Point, in list: Rect, _ context: inout ScreenContext) -> [Effect] { [] }
    public var appInView: String? { nil }

    public mutating func start(_ context: inout ScreenContext) -> [Effect] { refresh(&context) }
    public mutating func tick(_ context: inout ScreenContext) -> [Effect] { [] }
    public mutating func resized(_ context: inout ScreenContext) -> [Effect] { [] }
    public mutating func setFilter(_ text: String, _ context: inout ScreenContext) -> [Effect] { [] }
    public mutating func select(id: String, _ context: inout ScreenContext) -> [Effect] {
        context.status = StatusMessage("\(Self.title) has nothing to select by id", .error)
        return []
    }
    public mutating func intercept(_ key: Key, _ context: inout ScreenContext) -> [Effect]? { nil }
}

extension ConsoleScreen where Action == NoAction {
    public mutating func perform(_ action: NoAction, _ context: inout ScreenContext) -> [Effect] {}
}

extension ConsoleScreen where Event == NoEvent {
    public mutating func apply(_ event: NoEvent, _ context: inout ScreenContext) -> [Effect] {}
}

extension ConsoleScreen {
    /// A read whose result comes back to this screen's `apply`.
    public static func read(_ body: @escaping @Sendable (any ConsoleStore) throws -> Event) -> Effect {
        .read { store in .screen(ScreenMessage(Self.self, event: try body(store))) }
    }

    /// A read performed after the next frame is drawn (a list's count): the console shows what it has and
    /// this fills in after, never delaying a keystroke's frame. The loop performs one deferred effect a
    /// turn before drawing: the outer `later` only queues the inner one, whose read runs the turn after.
    public static func readAfterFrame(_ body: @escaping @Sendable (any ConsoleStore) throws -> Event) -> Effect {
        .later(.later(read(body)))
    }

    /// A write whose result comes back to this screen's `apply` (never performed on a read-only store).
    public static func write(_ body: @escaping @Sendable (any ConsoleStore) throws -> Event) -> Effect {
        .write { store in .screen(ScreenMessage(Self.self, event: try body(store))) }
    }

    /// POSTs a callback to a game server; the reply comes back to this screen's `apply` when it arrives.
    public static func post(_ body: String, to url: String, then event: @escaping @Sendable (CallbackReply) -> Event) -> Effect {
        .post(body: body, url: url) { reply in .screen(ScreenMessage(Self.self, event: event(reply))) }
    }

    /// Asks for a line of text on the status line; `enter` performs `answer(text)` on this screen once
    /// `refuse` (when given) finds nothing wrong with it. A refused answer keeps the prompt open with the
    /// reason beside it. `text` is a suggestion the first character typed replaces; `refusal` re-opens
    /// a prompt whose answer the screen (or the store) refused later, with what was typed and why.
    ///
    ///     Self.prompt("reason to decline \(id)", history: "decline reason", &context,
    ///                 refuse: { $0.isEmpty ? "a decline needs a reason" : nil }) { .decline(reason: $0) }
    public static func prompt(
        _ label: String, text: String = "", kind: Prompt.Kind = .text, history: String? = nil, refusal: String? = nil,
        _ context: inout ScreenContext, refuse: (@Sendable (String) -> String?)? = nil,
        answer: @escaping @Sendable (String) -> Action
    ) {
        var prompt = Prompt(label: label, text: text, kind: kind, screen: id, history: history, refuse: refuse ?? { _ in nil }) {
            .screen(ScreenMessage(Self.self, action: answer($0)))
        }
        if let refusal {
            prompt.text = text
            prompt.refusal = refusal
            context.status = StatusMessage(refusal, .warning)
        }
        context.mode = .prompt(prompt)
    }
}

/// A message for one screen, typed when it was made (an action, or an effect's event) and delivered
/// to that screen's state by the console.
public struct ScreenMessage: Sendable {
    public let screen: ScreenID
    let deliver: @Sendable (inout AppState) -> [Effect]

    init<S: ConsoleScreen>(_ type: S.Type, event: S.Event) {
        screen = S.id
        deliver = { state in state.update(S.self) { $0.apply(event, &$1) } }
    }

    /// An action for the screen (a prompt's answer: the key that asked passed its guard already).
    init<S: ConsoleScreen>(_ type: S.Type, action: S.Action) {
        screen = S.id
        deliver = { state in state.update(S.self) { $0.perform(action, &$1) } }
    }
}

/// Every screen, in tab order. The one list to extend when a screen is added.
public enum ScreenRegistry {
    public static let all: [any ConsoleScreen.Type] = [
        UsersScreen.self,
        QueueScreen.self,
        RestoresScreen.self,
        AuditScreen.self,
        SubscriptionsScreen.self,
        CodesScreen.self,
        LoginScreen.self,
        OneTapScreen.self,
        FindScreen.self,
        ConsumptionScreen.self,
    ]

    static func type(of id: ScreenID) -> (any ConsoleScreen.Type)? { all.first { $0.id == id } }
}
