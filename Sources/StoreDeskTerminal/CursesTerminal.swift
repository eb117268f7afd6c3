import CNcurses
import Foundation
import StoreDeskUI

/// The only code that talks to curses: draws canvases (only the cells that changed), reads keys with
/// a timeout, follows resizes, and always gives the terminal back as it found it.
///
/// Every call happens on the main thread, the one the console loop runs on.
public final class CursesTerminal: ConsoleDevice {
    private var screen: UnsafeMutablePointer<WINDOW>?
    private var previous: Canvas?
    private var previousTheme: Theme?
    private var pairs: [PairKey: Int32] = [:]
    private var nextPair: Int32 = 1
    public private(set) var depth: ColorDepth = .mono
    private var started = false
    private let forceMono: Bool
    /// Whether the terminal reports clicks and the wheel (`--no-mouse`: no).
    private let mouse: Bool
    /// The key code curses returns for the start of an SGR mouse report (`ESC [ <`), defined at start.
    static let mouseReport: Int32 = 0x7F00

    struct PairKey: Hashable {
        var foreground: Color
        var background: Color
    }

    public init(noColor: Bool, mouse: Bool = true) {
        self.forceMono = noColor
        self.mouse = mouse
    }

    /// Takes over the terminal: locale first (or CJK turns to blanks), raw keys, no echo, colours; and
    /// a fault (a trap, a crash) gives the terminal back before the process ends.
    public func start() {
        _ = sd_setlocale_all()
        sd_install_fault_restore()
        screen = initscr()
        started = true
        raw()
        noecho()
        nonl()
        keypad(screen, true)
        set_escdelay(25)
        curs_set(0)
        if mouse {
            // xterm's button reports (1000) in SGR form (1006), which tmux passes on: `ESC [ < b ; x ; y M`.
            // curses gives the prefix its own code and the rest is read here, whatever the terminfo says.
            _ = define_key("\u{1B}[<", Self.mouseReport)
            Self.send("\u{1B}[?1000h\u{1B}[?1006h")
        }
        if !forceMono && has_colors() {
            start_color()
            use_default_colors()
            let colors = sd_colors()
            let env = ProcessInfo.processInfo.environment["COLORTERM"] ?? ""
            if colors >= 0x1000000 || ((env == "truecolor" || env == "24bit") && colors >= 0x1000000) {
                depth = .trueColor
            } else if colors >= 256 {
                depth = .indexed256
            } else {
                depth = .ansi8
            }
        }
    }

    /// Gives the terminal back. Safe to call more than once, from every way out.
    public func stop() {
        guard started else { return }
        started = false
        if mouse { Self.send("\u{1B}[?1006l\u{1B}[?1000l") }
        curs_set(1)
        endwin()
        sd_remove_fault_restore()
    }

    public var size: Size { Size(width: Int(sd_cols()), height: Int(sd_lines())) }

    public func nextEvent(timeoutMilliseconds: Int) -> DeviceEvent? {
        wtimeout(screen, Int32(timeoutMilliseconds))
        var ch: wint_t = 0
        let result = wget_wch(screen, &ch)
        if result == ERR { return nil }
        if result == KEY_CODE_YES {
            let code = Int32(ch)
            if code == sd_key_resize() {
                previous = nil
                return .resize(size)
            }
            if code == Self.mouseReport { return readMouseReport().map(DeviceEvent.mouse) }
            return Self.functionKey(code).map(DeviceEvent.key)
        }
        return Self.characterKey(UInt32(ch)).map(DeviceEvent.key)
    }

    static func functionKey(_ code: Int32) -> Key? {
        switch code {
        case KEY_UP: .up
        case KEY_DOWN: .down
        case KEY_LEFT: .left
        case KEY_RIGHT: .right
        case KEY_PPAGE: .pageUp
        case KEY_NPAGE: .pageDown
        case KEY_HOME: .home
        case KEY_END: .end
        case KEY_ENTER: .enter
        case KEY_BACKSPACE: .backspace
        case KEY_DC: .delete
        case KEY_BTAB: .backTab
        case KEY_F0 + 1...KEY_F0 + 12: .function(Int(code - KEY_F0))
        default: nil
        }
    }

    static func characterKey(_ value: UInt32) -> Key? {
        switch value {
        case 9: return .tab
        case 10, 13: return .enter
        case 27: return .escape
        case 8, 127: return .backspace
        case 1...26: return .ctrl(Character(Unicode.Scalar(value + 96) ?? "?"))
        default:
            guard let scalar = Unicode.Scalar(value) else { return nil }
            return .character(Character(scalar))
        }
    }

    public func present(_ canvas: Canvas, theme: Theme) {
        if previousTheme != theme || previous?.size != canvas.size {
            previous = nil
            previousTheme = theme
            werase(screen)
        }
        let width = canvas.size.width
        for y in 0..<canvas.size.height {
            for x in 0..<width {
                let cell = canvas[x, y]
                if cell.isContinuation { continue }
                if let previous, previous[x, y] == cell,
                    x + 1 >= width || previous[x + 1, y] == canvas[x + 1, y]
                {
                    continue
                }
                draw(cell, x: x, y: y, style: theme.style(cell.role))
            }
        }
        previous = canvas
        wnoutrefresh(screen)
        doupdate()
    }

    private func draw(_ cell: Canvas.Cell, x: Int, y: Int, style: Style) {
        var attributes = sd_a_normal()
        if style.bold { attributes |= sd_a_bold() }
        if style.underline { attributes |= sd_a_underline() }
        if style.reverse { attributes |= sd_a_reverse() }
        if style.dim { attributes |= sd_a_dim() }
        if style.italic { attributes |= sd_a_italic() }
        let pair = depth == .mono ? 0 : pairNumber(style)
        // A canvas cell holds one spacing character and its combining marks (`TextWidth.cells(of:)`), as a
        // cchar_t does: setcchar stops at a second spacing character, which once left a dangling ZWJ that
        // joined the next cell on screen. At most CCHARW_MAX (5) characters with the terminating zero.
        var wide = Array(cell.character.unicodeScalars.map { wchar_t(bitPattern: $0.value) }.prefix(4))
        wide.append(0)
        _ = sd_put_wide(screen, Int32(y), Int32(x), wide, attributes, pair)
    }

    /// The rest of an SGR mouse report after `ESC [ <`: `b ; x ; y` and `M` (press) or `m` (release).
    private func readMouseReport() -> MouseEvent? {
        var text = ""
        wtimeout(screen, 50)
        while text.count < 24 {
            var ch: wint_t = 0
            guard wget_wch(screen, &ch) != ERR, let scalar = Unicode.Scalar(UInt32(ch)) else { return nil }
            if scalar == "M" || scalar == "m" { return Self.mouseEvent(text, pressed: scalar == "M") }
            text.unicodeScalars.append(scalar)
        }
        return nil
    }

    static func mouseEvent(_ parameters: String, pressed: Bool) -> MouseEvent? {
        let numbers = parameters.split(separator: ";").compactMap { Int($0) }
        guard numbers.count == 3 else { return nil }
        return MouseEvent.sgr(button: numbers[0], x: numbers[1], y: numbers[2], pressed: pressed)
    }

    /// Bytes for the terminal itself, past curses (mode switches, the clipboard).
    static func send(_ text: String) {
        let bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            let n = bytes[written...].withUnsafeBufferPointer { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            written += n
        }
    }

    /// OSC 52 (`ESC ] 52 ; c ; BASE64 BEL`): the terminal (or tmux with `set-clipboard on`) puts the text on
    /// its clipboard. Written straight to the terminal after the frame (curses has flushed its own
    /// output by then); it moves no cursor and draws nothing.
    public func copy(_ text: String) { Self.send(Self.osc52(text)) }

    static func osc52(_ text: String) -> String { "\u{1B}]52;c;" + Data(text.utf8).base64EncodedString() + "\u{07}" }

    /// Colour pairs are made on demand for each foreground/background combination the theme uses.
    private func pairNumber(_ style: Style) -> Int32 {
        let key = PairKey(foreground: style.foreground.degraded(to: depth), background: style.background.degraded(to: depth))
        if let known = pairs[key] { return known }
        guard nextPair < sd_color_pairs() else { return 0 }
        let pair = nextPair
        nextPair += 1
        _ = sd_init_pair(pair, colorNumber(key.foreground), colorNumber(key.background))
        pairs[key] = pair
        return pair
    }

    private func colorNumber(_ color: Color) -> Int32 {
        switch color {
        case .terminalDefault: -1
        case .indexed(let i): Int32(i)
        case .rgb(let r, let g, let b): (Int32(r) << 16) | (Int32(g) << 8) | Int32(b)
        }
    }
}
