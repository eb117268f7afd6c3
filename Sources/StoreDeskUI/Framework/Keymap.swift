/// What a key can ask the console itself to do; a screen's own keys ask for its typed `Action`s.
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
    case copy
}

/// One row of the keymap: the single table that drives dispatch, the footer, the `?` overlay and
/// the README's key list. The console's own rows carry a `Command`; a screen's rows are its
/// `ScreenCommand`s, their action and guard kept typed inside.
public struct Binding: Sendable {
    public var keys: [Key]
    /// The console's command, or nil for a screen's own.
    public var command: Command?
    /// A word or two for the footer.
    public var help: String
    /// A sentence for the help overlay and the README.
    public var summary: String
    /// Whether it writes to the store: absent from dispatch when the store is read-only.
    public var writes: Bool
    /// The screen it belongs to; nil for every screen.
    public var screen: ScreenID?
    /// Why it cannot be used right now (role, read-only store, the screen's state), or nil when it can.
    let reason: @Sendable (AppState) -> String?
    /// What it does, its guard passed.
    let run: @Sendable (inout AppState, Key) -> [Effect]

    /// A row of the console's own.
    init(_ keys: [Key], _ command: Command, help: String, summary: String) {
        self.keys = keys
        self.command = command
        self.help = help
        self.summary = summary
        self.writes = false
        self.screen = nil
        self.reason = { _ in nil }
        self.run = { state, key in
            var command = command
            if case .goToTab = command, case .character(let c) = key, let n = c.wholeNumberValue { command = .goToTab(n) }
            return state.perform(command)
        }
    }

    /// A screen's own row.
    init<S: ConsoleScreen>(_ declared: ScreenCommand<S>, action: S.Action) {
        keys = declared.keys
        command = nil
        help = declared.help
        summary = declared.summary
        writes = declared.writes
        screen = S.id
        reason = { state in declared.unavailableReason(session: state.session, screen: state.screenState(S.self)) }
        run = { state, _ in state.update(S.self) { $0.perform(action, &$1) } }
    }

    /// The keys as the footer and help show them: `j/↓`.
    public var keyLabel: String { keys.map(\.label).joined(separator: "/") }

    public func applies(to screen: ScreenID) -> Bool { self.screen.map { $0 == screen } ?? true }

    /// The reason it is unavailable, including the read-only store for writes.
    public func unavailableReason(in state: AppState) -> String? { reason(state) }
}

public enum Keymap {
    /// Every binding: the global ones, then each screen's own (in tab order). Order is the order in
    /// help and the README.
    public static let all: [Binding] = global + ScreenRegistry.all.flatMap { $0.keymapRows }

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
        Binding(
            [.character("y")], .copy, help: "copy id",
            summary: "Copy the selected row's id to the terminal's clipboard (OSC 52; in tmux: set -g set-clipboard on)."),
    ]

    /// The footer's hints on a screen, most used first: the moves, the screen's own, then the
    /// console's.
    public static func footer(for screen: ScreenID) -> [Binding] {
        func console(_ commands: [Command]) -> [Binding] { commands.compactMap { command in global.first { $0.command == command } } }
        let own = ScreenRegistry.type(of: screen)?.footerRows ?? []
        return console([.down, .open, .filter, .nextPane]) + own + console([.commandLine, .help, .quit])
    }

    /// The binding a key triggers on the current screen: the screen's own first, so a screen may
    /// give a key a meaning of its own. Write bindings are not registered at all when the store is
    /// read-only.
    public static func binding(for key: Key, in state: AppState) -> Binding? {
        let candidates = all.filter { $0.keys.contains(key) && $0.applies(to: state.screen) && !($0.writes && state.session.readOnly) }
        return candidates.first { $0.screen != nil } ?? candidates.first
    }

    /// The write binding a key would trigger on the current screen if the store were writable: how a
    /// read-only console says why a write key did nothing.
    public static func writeBinding(for key: Key, in state: AppState) -> Binding? {
        all.first { $0.writes && $0.keys.contains(key) && $0.applies(to: state.screen) }
    }

    /// The bindings the help overlay lists for the current screen, write ones included (dimmed when
    /// unavailable).
    public static func helpEntries(for state: AppState) -> [Binding] { all.filter { $0.applies(to: state.screen) } }

    /// The README's key table, generated from the same bindings.
    public static var markdownTable: String {
        var lines = ["| keys | action | screens | writes |", "| --- | --- | --- | --- |"]
        for b in all {
            let keys = b.keys.count > 4 ? "1…9" : b.keyLabel
            let screens = b.screen?.title ?? "all"
            lines.append("| `\(keys)` | \(b.summary) | \(screens) | \(b.writes ? "yes" : "") |")
        }
        return lines.joined(separator: "\n")
    }
}
