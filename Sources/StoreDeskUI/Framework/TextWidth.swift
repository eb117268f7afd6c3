import StoreDeskCore

/// Terminal column widths by grapheme cluster: CJK and emoji take two columns, combining marks none,
/// and a cluster of several emoji takes what its cells take as they are drawn.
///
/// Text on screen is cut and padded by columns, never by characters, and a cluster is never split,
/// so a row of Chinese names lines up with a row of Latin ones and a name with 👩‍👧‍👦 in it does too.
///
/// A terminal cell (a curses `cchar_t`) holds one spacing character and the marks that combine with
/// it. A cluster with more than one spacing character cannot go into one cell, and terminals do not
/// agree on how wide they draw one: tmux joins a ZWJ sequence into two columns and draws a skin-toned
/// emoji in four, xterm draws every emoji of a sequence, kitty joins them all. So a cluster is drawn as
/// `cells(of:)`, pieces every terminal draws alike: the emoji of a ZWJ sequence one after another
/// without the joiners (👩‍👧‍👦 as 👩👧👦), a flag as its two regional indicators (which every
/// terminal draws in two columns, joined or not), an emoji without its skin-tone modifier, and no
/// variation selectors or tag characters (❤️ is drawn as ❤ in the one column every terminal gives it).
///
///     "张伟🐉".columns            // 6
///     "张伟🐉".fitted(to: 5)      // "张伟…"
///     "婷妈👩‍👧‍👦".columns        // 10: 婷 妈 👩 👧 👦
public enum TextWidth {
    /// One cell's worth of a cluster: a spacing character with its combining marks, and its width.
    public struct Cell: Equatable, Sendable {
        public var text: String
        public var width: Int
    }
    /// The width of one scalar as a terminal draws it (the rules of wcwidth, with Unicode 15 emoji).
    public static func columns(of scalar: Unicode.Scalar) -> Int {
        let v = scalar.value
        if v == 0 { return 0 }
        if v < 0x20 || (v >= 0x7F && v < 0xA0) { return 0 }
        if v < 0x300 { return 1 }
        // Combining marks, zero-width joiners and variation selectors.
        if (0x300...0x36F).contains(v) || (0x1AB0...0x1AFF).contains(v) || (0x1DC0...0x1DFF).contains(v)
            || (0x20D0...0x20FF).contains(v) || (0xFE20...0xFE2F).contains(v) || v == 0x200B || v == 0x200C
            || v == 0x200D || (0xFE00...0xFE0F).contains(v) || (0xE0100...0xE01EF).contains(v)
        {
            return 0
        }
        if isWide(v) { return 2 }
        // Symbols, arrows, box drawing, shapes and dingbats combine with nothing: the frames' characters
        // are measured without a look at their category.
        if (0x2100..<0x2CEF).contains(v) { return 1 }
        // Every other mark that combines (Thai, Devanagari, Arabic, Hebrew ...), format characters, and
        // the vowels and finals of conjoining Hangul, which join the syllable before them.
        if (0x1160...0x11FF).contains(v) || (0xD7B0...0xD7FF).contains(v) { return 0 }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: return 1
        }
    }

    static func isWide(_ v: UInt32) -> Bool {
        switch v {
        case 0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x23E9...0x23EC, 0x23F0, 0x23F3, 0x25FD...0x25FE,
            0x2614...0x2615, 0x2648...0x2653, 0x267F, 0x2693, 0x26A1, 0x26AA...0x26AB, 0x26BD...0x26BE,
            0x26C4...0x26C5, 0x26CE, 0x26D4, 0x26EA, 0x26F2...0x26F3, 0x26F5, 0x26FA, 0x26FD, 0x2705,
            0x270A...0x270B, 0x2728, 0x274C, 0x274E, 0x2753...0x2755, 0x2757, 0x2795...0x2797, 0x27B0, 0x27BF,
            0x2B1B...0x2B1C, 0x2B50, 0x2B55, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
            0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F,
            0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x16FE0...0x16FE4, 0x17000...0x18AFF, 0x1B000...0x1B2FF,
            0x1F004, 0x1F0CF, 0x1F18E, 0x1F191...0x1F19A, 0x1F200...0x1F202, 0x1F210...0x1F23B, 0x1F240...0x1F248,
            0x1F250...0x1F251, 0x1F260...0x1F265, 0x1F300...0x1F320, 0x1F32D...0x1F335, 0x1F337...0x1F37C,
            0x1F37E...0x1F393, 0x1F3A0...0x1F3CA, 0x1F3CF...0x1F3D3, 0x1F3E0...0x1F3F0, 0x1F3F4, 0x1F3F8...0x1F43E,
            0x1F440, 0x1F442...0x1F4FC, 0x1F4FF...0x1F53D, 0x1F54B...0x1F54E, 0x1F550...0x1F567, 0x1F57A,
            0x1F595...0x1F596, 0x1F5A4, 0x1F5FB...0x1F64F, 0x1F680...0x1F6C5, 0x1F6CC, 0x1F6D0...0x1F6D2,
            0x1F6D5...0x1F6D7, 0x1F6DC...0x1F6DF, 0x1F6EB...0x1F6EC, 0x1F6F4...0x1F6FC, 0x1F7E0...0x1F7EB, 0x1F7F0,
            0x1F90C...0x1F93A, 0x1F93C...0x1F945, 0x1F947...0x1F9FF, 0x1FA70...0x1FAFF, 0x20000...0x2FFFD,
            0x30000...0x3FFFD:
            return true
        default:
            return false
        }
    }

    /// Scalars that are never drawn: joiners, variation selectors, tag characters and other format
    /// characters that only change how a terminal might join what is around them.
    static func isDropped(_ v: UInt32) -> Bool {
        (0x200B...0x200F).contains(v) || (0x2060...0x2064).contains(v) || v == 0xFEFF || (0xFE00...0xFE0F).contains(v)
            || (0xE0000...0xE007F).contains(v) || (0xE0100...0xE01EF).contains(v)
    }

    /// An emoji skin-tone modifier: dropped after the emoji it would tone.
    static func isModifier(_ v: UInt32) -> Bool { (0x1F3FB...0x1F3FF).contains(v) }

    /// The cells one grapheme cluster is drawn in, as every terminal draws them.
    public static func cells(of character: Character) -> [Cell] {
        // The common case: one scalar.
        var iterator = character.unicodeScalars.makeIterator()
        if let only = iterator.next(), iterator.next() == nil {
            let width = columns(of: only)
            return width == 0 ? [] : [Cell(text: String(character), width: width)]
        }
        var cells: [Cell] = []
        for scalar in character.unicodeScalars {
            let v = scalar.value
            if isDropped(v) || (isModifier(v) && !cells.isEmpty) { continue }
            let width = columns(of: scalar)
            if width == 0 {
                // A combining mark stays with the character it marks (none before the first: dropped).
                if !cells.isEmpty { cells[cells.count - 1].text.unicodeScalars.append(scalar) }
            } else {
                cells.append(Cell(text: String(scalar), width: width))
            }
        }
        return cells
    }

    /// The width of one grapheme cluster: the sum of its cells (one scalar's width in the common case).
    /// A control character counts as the escape the canvas draws for it (`\e` is two columns).
    public static func columns(of character: Character) -> Int {
        var scalars = character.unicodeScalars.makeIterator()
        guard let only = scalars.next() else { return 0 }
        if scalars.next() == nil {
            return ControlCharacters.isControl(only) ? ControlCharacters.escaped(String(character)).utf8.count : columns(of: only)
        }
        if character.unicodeScalars.contains(where: ControlCharacters.isControl) { return ControlCharacters.escaped(String(character)).utf8.count }
        return cells(of: character).reduce(0) { $0 + $1.width }
    }

    public static func columns(of text: some StringProtocol) -> Int {
        var total = 0
        for character in text { total += columns(of: character) }
        return total
    }
}

extension StringProtocol {
    /// Width in terminal columns.
    public var columns: Int { TextWidth.columns(of: self) }

    /// Whether the text takes at most `width` columns, measured only as far as `width`: a title or a
    /// prompt holding a 4,000-character filter is cut to the pane every frame, and measuring it whole each
    /// time made typing it cost the square of its length.
    public func fits(in width: Int) -> Bool {
        var used = 0
        for character in self {
            used += TextWidth.columns(of: character)
            if used > width { return false }
        }
        return true
    }

    /// Cut to at most `width` columns, ending in `…` when anything was cut.
    public func fitted(to width: Int) -> String {
        guard width > 0 else { return "" }
        if fits(in: width) { return String(self) }
        var out = ""
        var used = 0
        for character in self {
            let w = TextWidth.columns(of: character)
            if used + w > width - 1 { break }
            out.append(character)
            used += w
        }
        return out + "…"
    }

    /// Cut or padded with spaces to exactly `width` columns.
    public func padded(to width: Int) -> String {
        let cut = fitted(to: width)
        return cut + String(repeating: " ", count: Swift.max(0, width - cut.columns))
    }

    /// Padded on the left to exactly `width` columns (numbers in a column).
    public func leftPadded(to width: Int) -> String {
        let cut = fitted(to: width)
        return String(repeating: " ", count: Swift.max(0, width - cut.columns)) + cut
    }
}
