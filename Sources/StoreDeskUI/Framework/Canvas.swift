import StoreDeskCore

/// A grid of cells the views draw into: each cell one column, holding a character (or the right half
/// of a wide one) and the role it is drawn in. The terminal layer diffs two canvases and writes only
/// the cells that changed; tests turn a canvas into plain text.
///
///     var canvas = Canvas(size: Size(width: 80, height: 24))
///     canvas.write("张伟", at: Point(x: 2, y: 1), role: .title)
public struct Canvas: Equatable, Sendable {
    public struct Cell: Equatable, Sendable {
        /// The character; empty for the right half of a wide character.
        public var character: String
        public var role: Role
        /// True for the second column of a two-column character.
        public var isContinuation: Bool { character.isEmpty }

        public static let blank = Cell(character: " ", role: .text)
    }

    public let size: Size
    public private(set) var cells: [Cell]

    public init(size: Size) {
        self.size = size
        self.cells = Array(repeating: .blank, count: max(0, size.width * size.height))
    }

    public subscript(x: Int, y: Int) -> Cell { cells[y * size.width + x] }

    /// Writes text from `point`, by columns, clipped at `maxWidth` columns (and the canvas edge).
    /// Control characters are drawn escaped (`\e`, `\n`: `ControlCharacters`), as every text command
    /// prints them, so stored text shows what it holds and cannot reach the terminal as a sequence.
    /// With `ellipsis`, text cut at the limit ends in `…` (cutting only spaces is no loss and shows none),
    /// found as the text is drawn: no pass over it beforehand.
    /// Returns the number of columns written.
    @discardableResult
    public mutating func write(_ text: some StringProtocol, at point: Point, role: Role, maxWidth: Int? = nil, ellipsis: Bool = false) -> Int {
        guard point.y >= 0, point.y < size.height, point.x < size.width else { return 0 }
        let limit = min(size.width, point.x + (maxWidth ?? size.width))
        var x = point.x
        // Where the last character drawn starts: an ellipsis replaces it when no column is left.
        var last = x
        let escaped = ControlCharacters.escaped(text)
        var index = escaped.startIndex
        while index < escaped.endIndex {
            let character = escaped[index]
            var scalars = character.unicodeScalars.makeIterator()
            guard let only = scalars.next() else {
                escaped.formIndex(after: &index)
                continue
            }
            if scalars.next() == nil {
                // The common case: one scalar, one cell.
                let w = TextWidth.columns(of: only)
                if w > 0 {
                    if x + w > limit {
                        if ellipsis { x = endWithEllipsis(escaped[index...], x: x, last: last, limit: limit, y: point.y, role: role) }
                        break
                    }
                    last = x
                    put(String(character), width: w, x: x, y: point.y, role: role)
                    x += w
                }
                escaped.formIndex(after: &index)
                continue
            }
            // A cluster is written whole or not at all, in the cells every terminal draws it in.
            let pieces = TextWidth.cells(of: character)
            let w = pieces.reduce(0) { $0 + $1.width }
            if w > 0 {
                if x + w > limit {
                    if ellipsis { x = endWithEllipsis(escaped[index...], x: x, last: last, limit: limit, y: point.y, role: role) }
                    break
                }
                last = x
                for piece in pieces {
                    put(piece.text, width: piece.width, x: x, y: point.y, role: role)
                    x += piece.width
                }
            }
            escaped.formIndex(after: &index)
        }
        return x - point.x
    }

    /// Marks text cut at `limit`: `…` in the next free column, or over the last character drawn (its
    /// second column blanked); nothing when what was cut is only spaces. Returns where the text ends.
    private mutating func endWithEllipsis(_ rest: Substring, x: Int, last: Int, limit: Int, y: Int, role: Role) -> Int {
        guard rest.contains(where: { $0 != " " }), limit > 0 else { return x }
        if x < limit {
            put("…", width: 1, x: x, y: y, role: role)
            return x + 1
        }
        guard last < x else { return x }
        put("…", width: 1, x: last, y: y, role: role)
        for blank in (last + 1)..<x { put(" ", width: 1, x: blank, y: y, role: role) }
        return x
    }

    /// One cell's text at column `x` (a wide one takes the next column too); nothing left of the canvas.
    private mutating func put(_ text: String, width: Int, x: Int, y: Int, role: Role) {
        guard x >= 0 else { return }
        clearWide(at: x, y: y)
        if width == 2 { clearWide(at: x + 1, y: y) }
        cells[y * size.width + x] = Cell(character: text, role: role)
        if width == 2 { cells[y * size.width + x + 1] = Cell(character: "", role: role) }
    }

    /// Keeps wide characters whole: overwriting either half blanks the other.
    private mutating func clearWide(at x: Int, y: Int) {
        let index = y * size.width + x
        if cells[index].isContinuation, x > 0 {
            cells[index - 1] = Cell(character: " ", role: cells[index - 1].role)
        } else if x + 1 < size.width, cells[index + 1].isContinuation, TextWidth.columns(of: cells[index].character) == 2 {
            cells[index + 1] = Cell(character: " ", role: cells[index + 1].role)
        }
    }

    /// Fills a rectangle with spaces in a role.
    public mutating func fill(_ rect: Rect, role: Role) {
        let r = rect.clipped(to: Rect(x: 0, y: 0, width: size.width, height: size.height))
        guard r.width > 0, r.height > 0 else { return }
        for y in r.y..<(r.y + r.height) {
            if r.x > 0, cells[y * size.width + r.x].isContinuation {
                cells[y * size.width + r.x - 1] = Cell(character: " ", role: cells[y * size.width + r.x - 1].role)
            }
            for x in r.x..<(r.x + r.width) { cells[y * size.width + x] = Cell(character: " ", role: role) }
        }
    }

    /// A line of `text` padded to the rectangle's width, so a selected row is highlighted end to end.
    public mutating func writeLine(_ text: some StringProtocol, in rect: Rect, row: Int, role: Role) {
        guard row >= 0, row < rect.height else { return }
        fill(Rect(x: rect.x, y: rect.y + row, width: rect.width, height: 1), role: role)
        write(text, at: Point(x: rect.x, y: rect.y + row), role: role, maxWidth: rect.width)
    }

    /// A box-drawing frame with an optional title in its top edge.
    public mutating func frame(_ rect: Rect, title: String = "", role: Role) {
        guard rect.width >= 2, rect.height >= 2 else { return }
        let right = rect.x + rect.width - 1, bottom = rect.y + rect.height - 1
        write("┌" + String(repeating: "─", count: rect.width - 2) + "┐", at: Point(x: rect.x, y: rect.y), role: role)
        write("└" + String(repeating: "─", count: rect.width - 2) + "┘", at: Point(x: rect.x, y: bottom), role: role)
        if rect.height > 2 {
            for y in (rect.y + 1)..<bottom {
                write("│", at: Point(x: rect.x, y: y), role: role)
                write("│", at: Point(x: right, y: y), role: role)
            }
        }
        if !title.isEmpty && rect.width > 6 {
            write(" " + title.fitted(to: rect.width - 6) + " ", at: Point(x: rect.x + 2, y: rect.y), role: role)
        }
    }

    /// The canvas as plain text, one line a row, trailing spaces trimmed: what golden files hold.
    public var plainText: String {
        var lines: [String] = []
        lines.reserveCapacity(size.height)
        for y in 0..<size.height {
            var line = ""
            for x in 0..<size.width { line += cells[y * size.width + x].character }
            while line.hasSuffix(" ") { line.removeLast() }
            lines.append(line)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The roles used on one row, as a compact run list (`text×10 title×4 ...`), for style assertions.
    public func roles(row y: Int) -> [Role] { (0..<size.width).map { self[$0, y].role } }
}

public struct Point: Hashable, Sendable {
    public var x: Int
    public var y: Int
    public init(x: Int, y: Int) {
        self.x = x
        self.y = y
    }
}

public struct Size: Hashable, Sendable, CustomStringConvertible {
    public var width: Int
    public var height: Int
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// Parses `120x40`.
    public init?(_ text: String) {
        let parts = text.lowercased().split(separator: "x")
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w > 0, h > 0, w <= 1000, h <= 1000 else {
            return nil
        }
        self.init(width: w, height: h)
    }

    public var description: String { "\(width)x\(height)" }
}

public struct Rect: Hashable, Sendable, CustomStringConvertible {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public var isEmpty: Bool { width <= 0 || height <= 0 }

    public func contains(_ point: Point) -> Bool { point.x >= x && point.x < x + width && point.y >= y && point.y < y + height }

    /// The rectangle inside a one-cell frame.
    public var inset: Rect { Rect(x: x + 1, y: y + 1, width: max(0, width - 2), height: max(0, height - 2)) }

    public func clipped(to bounds: Rect) -> Rect {
        let left = max(x, bounds.x), top = max(y, bounds.y)
        let right = min(x + width, bounds.x + bounds.width), bottom = min(y + height, bounds.y + bounds.height)
        return Rect(x: left, y: top, width: max(0, right - left), height: max(0, bottom - top))
    }

    public var description: String { "\(x),\(y) \(width)x\(height)" }
}

extension Canvas {
    /// The frame for a terminal that cannot draw symbols (`--ascii`, a locale that is not UTF-8, TERM linux
    /// or vt100): every symbol the console draws (frames, marks, arrows, bars, quotes) becomes its ASCII
    /// stand-in, in its one column; letters of any script are left as they are.
    public mutating func useASCIISymbols() {
        for index in cells.indices {
            let text = cells[index].character
            guard let scalar = text.unicodeScalars.first, !scalar.isASCII, text.unicodeScalars.count == 1,
                let ascii = Self.asciiSymbol(scalar)
            else { continue }
            cells[index].character = String(ascii)
        }
    }

    /// A one-column symbol's ASCII stand-in, or nil for anything else (a letter, a two-column character).
    static func asciiSymbol(_ scalar: Unicode.Scalar) -> Character? {
        switch scalar.value {
        case 0x2500, 0x2501, 0x2504, 0x2505, 0x2508, 0x2509, 0x254C, 0x254D, 0x2550, 0x2574, 0x2576, 0x2578, 0x257A: return "-"
        case 0x2502, 0x2503, 0x2506, 0x2507, 0x250A, 0x250B, 0x254E, 0x254F, 0x2551, 0x2575, 0x2577, 0x2579, 0x257B: return "|"
        case 0x2500...0x257F: return "+"
        case 0x2580...0x259F: return "#"
        default: break
        }
        switch scalar {
        case "●", "◆", "■", "★": return "*"
        case "○", "◇", "□", "☆": return "o"
        case "▸", "▶", "►", "→", "›", "»": return ">"
        case "◂", "◀", "◄", "←", "‹", "«": return "<"
        case "↑", "▲", "△": return "^"
        case "↓", "▼", "▽": return "v"
        case "✓", "✔": return "v"
        case "✗", "✘", "×": return "x"
        case "…", "·", "•", "∙": return "."
        case "—", "–", "‒", "−": return "-"
        case "“", "”", "„": return "\""
        case "‘", "’", "‚": return "'"
        case "¥": return "Y"
        default: return nil
        }
    }
}
