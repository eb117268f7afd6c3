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

    /// A known screen by its name, or nil.
    public static func named(_ name: String) -> ScreenID? { allCases.first { $0.rawValue == name } }
}

/// What a screen sees of the console while it reduces or renders, and what it may change besides
/// its own state: the focus, the status line and the input mode.
public struct ScreenContext: Sendable {
    public let session: Session
    public let clock: Instant
    public let timeZone: TimeZone
    public let apps: [App]
    public let app: App?
    public let environment: StoreEnvironment
    public let layout: Layout
    public var focus: Focus
    public var status: StatusMessage?
    public var mode: InputMode

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

    /// Asks for a line of text; `enter` sends `Command.submit(action, text)` to this screen.
    public mutating func prompt(_ label: String, action: String, text: String = "") {
        mode = .prompt(label: label, text: text, action: action)
    }
}

/// One screen of the console: its state, its reducer and its view, and the keys and `:` verbs only
/// it has. Adding a screen means writing one of these and listing it in `ScreenRegistry.all`.
public protocol ConsoleScreen: Sendable {
    /// The screen's name (`:users`, `--screen users`).
    static var id: ScreenID { get }
    /// The tab's title.
    static var title: String { get }
    /// Keys only this screen has, usually `Command.screen(...)`; they join `Keymap.all`.
    static var bindings: [Binding] { get }
    /// Commands whose hints the footer shows on this screen, after the list moves.
    static var footer: [Command] { get }
    /// `:` verbs only this screen has (going to the screen by its name is automatic).
    static var verbs: [ConsoleCommandLine.Verb] { get }

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
    /// The filter changed by one keystroke (or `:filter TEXT`).
    mutating func setFilter(_ text: String, _ context: inout ScreenContext) -> [Effect]
    /// A command from the keymap or the command line: moves, `open`, and this screen's own.
    mutating func perform(_ command: Command, _ context: inout ScreenContext) -> [Effect]
    /// A result of one of this screen's effects (the value it wrapped with `event(_:)`).
    mutating func apply(_ event: any Sendable, _ context: inout ScreenContext) -> [Effect]
    /// One of this screen's `:` verbs.
    mutating func run(verb: String, argument: String, _ context: inout ScreenContext) -> [Effect]
    /// Select the item with this id (`:select ID`, `snapshot --select ID`).
    mutating func select(id: String, _ context: inout ScreenContext) -> [Effect]
    /// A key before the keymap sees it, for a screen's own modal input (a picker, an editor).
    /// Return nil to let the keymap handle it.
    mutating func intercept(_ key: Key, _ context: inout ScreenContext) -> [Effect]?
    /// How fast the screen wants ticks while it is shown, or nil for the console's 1 s.
    var tickInterval: TimeInterval? { get }

    /// Draws the body: everything between the tab bar and the footer.
    func render(into canvas: inout Canvas, layout: Layout, context: ScreenContext)
}

extension ConsoleScreen {
    public static var bindings: [Binding] { [] }
    public static var footer: [Command] { [] }
    public static var verbs: [ConsoleCommandLine.Verb] { [] }
    public var filterText: String? { nil }
    public var tickInterval: TimeInterval? { nil }

    public mutating func start(_ context: inout ScreenContext) -> [Effect] { refresh(&context) }
    public mutating func tick(_ context: inout ScreenContext) -> [Effect] { [] }
    public mutating func setFilter(_ text: String, _ context: inout ScreenContext) -> [Effect] { [] }
    public mutating func run(verb: String, argument: String, _ context: inout ScreenContext) -> [Effect] {
        context.status = StatusMessage("unknown command ':\(verb)' on \(Self.title)", .error)
        return []
    }
    public mutating func select(id: String, _ context: inout ScreenContext) -> [Effect] {
        context.status = StatusMessage("\(Self.title) has nothing to select by id", .error)
        return []
    }
    public mutating func intercept(_ key: Key, _ context: inout ScreenContext) -> [Effect]? { nil }

    /// Wraps one of this screen's results as an action routed back to it.
    public static func event(_ value: any Sendable) -> Action { .screen(id, value) }

    /// A read whose result comes back to this screen.
    public static func read(_ body: @escaping @Sendable (any ConsoleStore) throws -> any Sendable) -> Effect {
        .read { db in event(try body(db)) }
    }

    /// A write whose result comes back to this screen.
    public static func write(_ body: @escaping @Sendable (any ConsoleStore) throws -> any Sendable) -> Effect {
        .write { db in event(try body(db)) }
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
    ]

    static func type(of id: ScreenID) -> (any ConsoleScreen.Type)? { all.first { $0.id == id } }
}
