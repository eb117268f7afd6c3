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

/// A mouse event as the console sees it (the terminal's SGR report, decoded by the terminal layer): where,
/// in the canvas's cells (0-based).
public enum MouseEvent: Hashable, Sendable {
    case click(Point)
    case wheelUp(Point)
    case wheelDown(Point)

    public var point: Point {
        switch self {
        case .click(let p), .wheelUp(let p), .wheelDown(let p): p
        }
    }

    /// An xterm SGR mouse report's parameters (`ESC [ < b ; x ; y M`, 1-based cells; `m` is a release):
    /// a left press is a click, buttons 64 and 65 the wheel; anything else (other buttons, motion,
    /// releases) is nil.
    public static func sgr(button: Int, x: Int, y: Int, pressed: Bool) -> MouseEvent? {
        guard pressed, x >= 1, y >= 1, button & 32 == 0 else { return nil }
        let point = Point(x: x - 1, y: y - 1)
        switch button & ~(4 | 8 | 16) {
        case 0: return .click(point)
        case 64: return .wheelUp(point)
        case 65: return .wheelDown(point)
        default: return nil
        }
    }
}
