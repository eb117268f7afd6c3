/// A key press as the console sees it, independent of curses: keys are data.
public enum Key: Hashable, Sendable {
    case character(Character)
    case ctrl(Character)
    case up, down, left, right
    case pageUp, pageDown, home, end
    case enter, escape, tab, backTab, backspace, delete
    case function(Int)

    /// How the key is written in the footer, the help overlay and the README.
    public var label: String {
        switch self {
        case .character(" "): "space"
        case .character(let c): String(c)
        case .ctrl(let c): "ctrl-" + String(c)
        case .up: "↑"
        case .down: "↓"
        case .left: "←"
        case .right: "→"
        case .pageUp: "pgup"
        case .pageDown: "pgdn"
        case .home: "home"
        case .end: "end"
        case .enter: "enter"
        case .escape: "esc"
        case .tab: "tab"
        case .backTab: "shift-tab"
        case .backspace: "backspace"
        case .delete: "del"
        case .function(let n): "F\(n)"
        }
    }
}
