/// What a key can ask the console to do.
public enum Command: Hashable, Sendable {
    case quit
    case help
    case commandLine
    case filter
    case back
    case nextPane, previousPane
    case nextTab, previousTab
    case goToTab(Int)
    case up, down, top, bottom, pageUp, pageDown
    case open
    case refresh
    /// A command only one screen has, by name (its bindings live in the screen's own table).
    case screen(String)
    /// A line typed into a screen's prompt (`ScreenContext.prompt`), for the action it named.
    case submit(String, String)
}

/// One row of the keymap: the single table that drives dispatch, the footer, the `?` overlay and
/// the README's key list.
public struct Binding: Sendable {
    public var keys: [Key]
    public var command: Command
    /// A word or two for the footer.
    public var help: String
    /// A sentence for the help overlay and the README.
    public var summary: String
    /// Whether it writes to the store: absent from dispatch when the store is read-only.
    public var writes: Bool
    /// The screens it applies to; nil for every screen.
    public var screens: Set<ScreenID>?
    /// Why the binding cannot be used right now, or nil when it can.
    public var disabledReason: @Sendable (AppState) -> String?

    public init(
        _ keys: [Key], _ command: Command, help: String, summary: String, writes: Bool = false,
        screens: Set<ScreenID>? = nil,
        disabledReason: @escaping @Sendable (AppState) -> String? = { _ in nil }
    ) {
        self.keys = keys
        self.command = command
        self.help = help
        self.summary = summary
        self.writes = writes
        self.screens = screens
        self.disabledReason = disabledReason
    }

    /// The keys as the footer and help show them: `j/↓`.
    public var keyLabel: String { keys.map(\.label).joined(separator: "/") }

    public func applies(to screen: ScreenID) -> Bool { screens.map { $0.contains(screen) } ?? true }

    /// The reason it is unavailable, including the read-only store for writes.
    public func unavailableReason(in state: AppState) -> String? {
        if writes && state.session.readOnly { return "the store is open read-only" }
        return disabledReason(state)
    }
}

public enum Keymap {
    /// Every binding, global ones first. Order is the order in help and the README.
    /// Every binding: the global ones, then each screen's own (in tab order).
    public static let all: [Binding] = global + ScreenRegistry.all.flatMap { type in
        type.bindings.map { binding in
            var binding = binding
            if binding.screens == nil { binding.screens = [type.id] }
            return binding
        }
    }

    /// The bindings every screen shares.
    static let global: [Binding] = [
        Binding([.character("q")], .quit, help: "quit", summary: "Quit (Ctrl-C always quits)."),
        Binding([.ctrl("c")], .quit, help: "quit", summary: "Quit from anywhere, even while typing."),
        Binding([.character("?")], .help, help: "help", summary: "Show every action and its keys."),
        Binding([.character(":")], .commandLine, help: "command", summary: "Command line with tab completion (:users, :theme NAME, :q)."),
        Binding([.character("/")], .filter, help: "filter", summary: "Filter the list as you type; enter keeps it, esc clears it."),
        Binding([.escape], .back, help: "back", summary: "Back out of anything transient: help, filter, command line, detail focus."),
        Binding([.tab], .nextPane, help: "pane", summary: "Focus the next pane."),
        Binding([.backTab], .previousPane, help: "pane", summary: "Focus the previous pane."),
        Binding([.character("]")], .nextTab, help: "next tab", summary: "Next screen."),
        Binding([.character("[")], .previousTab, help: "prev tab", summary: "Previous screen."),
        Binding((1...9).map { Key.character(Character(String($0))) }, .goToTab(0), help: "screen", summary: "Go to screen 1-9 by its number in the tab bar."),
        Binding([.character("k"), .up], .up, help: "up", summary: "Move up one row."),
        Binding([.character("j"), .down], .down, help: "move", summary: "Move down one row."),
        Binding([.character("g"), .home], .top, help: "top", summary: "Go to the first row."),
        Binding([.character("G"), .end], .bottom, help: "bottom", summary: "Go to the last row."),
        Binding([.pageUp, .ctrl("b")], .pageUp, help: "page up", summary: "Up one page."),
        Binding([.pageDown, .ctrl("f")], .pageDown, help: "page down", summary: "Down one page."),
        Binding([.enter], .open, help: "open", summary: "Open the selected row in the detail pane."),
        Binding([.ctrl("r")], .refresh, help: "refresh", summary: "Fetch the visible rows again now."),
    ]

    /// The footer's hints on a screen, most used first: the moves, the screen's own, then the
    /// console's.
    public static func footer(for screen: ScreenID) -> [Binding] {
        let own = ScreenRegistry.type(of: screen)?.footer ?? []
        let order: [Command] = [.down, .open, .filter, .nextPane] + own + [.commandLine, .help, .quit]
        return order.compactMap { command in all.first { $0.command == command && $0.applies(to: screen) } }
    }

    /// The binding a key triggers on the current screen: the screen's own first, so a screen may
    /// give a key a meaning of its own. Write bindings are not registered at all when the store is
    /// read-only.
    public static func binding(for key: Key, in state: AppState) -> Binding? {
        let candidates = all.filter { $0.keys.contains(key) && $0.applies(to: state.screen) && !($0.writes && state.session.readOnly) }
        return candidates.first { $0.screens != nil } ?? candidates.first
    }

    /// The bindings the help overlay lists for the current screen, write ones included (dimmed when
    /// unavailable).
    public static func helpEntries(for state: AppState) -> [Binding] { all.filter { $0.applies(to: state.screen) } }

    /// The README's key table, generated from the same bindings.
    public static var markdownTable: String {
        var lines = ["| keys | action | screens | writes |", "| --- | --- | --- | --- |"]
        for b in all {
            let keys = b.keys.count > 4 ? "1…9" : b.keyLabel
            let screens = b.screens.map { $0.map(\.title).sorted().joined(separator: ", ") } ?? "all"
            lines.append("| `\(keys)` | \(b.summary) | \(screens) | \(b.writes ? "yes" : "") |")
        }
        return lines.joined(separator: "\n")
    }
}
