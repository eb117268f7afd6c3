import StoreDeskCore

/// Text broken into lines of at most a width in columns, at spaces: a date, an id or a word is never
/// split between lines. Only a word longer than a whole line (a JSON body, a URL) is broken, by
/// grapheme, each piece filling its line and the rest going on the next: nothing is cut, so no piece
/// ends in `…` (which says text was cut, as a list's cell does).
///
///     TextWrap.lines("queued at 2026-11-20T08:02:18Z then follows", width: 24)
///     // ["queued at", "2026-11-20T08:02:18Z", "then follows"]
///     TextWrap.lines("{\"channel\":\"appstore\"}", width: 10)
///     // ["{\"channel\"", ":\"appstore", "\"}"]
public enum TextWrap {
    /// Control characters show as their escapes (`\n`), as every text command prints them.
    public static func lines(_ text: String, width: Int) -> [String] {
        let width = max(2, width)
        var lines: [String] = []
        var line = "", lineWidth = 0
        for word in ControlCharacters.escaped(text).split(separator: " ") {
            let wordWidth = word.columns
            if lineWidth > 0, lineWidth + 1 + wordWidth <= width {
                line += " " + word
                lineWidth += 1 + wordWidth
                continue
            }
            if lineWidth > 0 { lines.append(line) }
            guard wordWidth > width else {
                line = String(word)
                lineWidth = wordWidth
                continue
            }
            // A word longer than a line: pieces that fill their lines, the rest goes on.
            var piece = "", pieceWidth = 0
            for character in word {
                let w = TextWidth.columns(of: character)
                if pieceWidth + w > width {
                    lines.append(piece)
                    piece = ""
                    pieceWidth = 0
                }
                piece.append(character)
                pieceWidth += w
            }
            line = piece
            lineWidth = pieceWidth
        }
        if lineWidth > 0 || lines.isEmpty { lines.append(line) }
        return lines
    }
}

extension TextWrap {
    /// One line of a labelled value: in the value's column, or from the pane's left edge (under the
    /// label) when it is a part or an id wider than the column.
    public struct FieldLine: Sendable, Hashable {
        public var text: String
        public var fromEdge: Bool
        public init(_ text: String, fromEdge: Bool = false) {
            self.text = text
            self.fromEdge = fromEdge
        }
    }

    /// A labelled value made of parts (`10000039`, `sid s4`, `role r1`) as lines: parts packed while they
    /// fit the value's column (`valueWidth`), joined by ` · `, and a line broken only between them. A part
    /// wider than the column (a date and time, an id) goes whole on a line of its own from the pane's
    /// edge, where it has the pane's `width`; only a part wider than the pane is broken at its own spaces,
    /// and only a word wider than the pane is broken (`lines`).
    ///
    ///     TextWrap.field(["10000039", "sid s4", "role r1"], valueWidth: 20, width: 31)
    ///     // ["10000039 · sid s4", "role r1"]
    ///     TextWrap.field(["com.storedesk.starvoyage.vip.monthly ×1", "星海征途"], valueWidth: 25, width: 36)
    ///     // [edge "com.storedesk.starvoyage.vip.monthly", "×1 · 星海征途"]
    public static func field(_ parts: [String], valueWidth: Int, width: Int) -> [FieldLine] {
        let valueWidth = max(2, valueWidth), width = max(valueWidth, width)
        var result: [FieldLine] = []
        var line = "", lineWidth = 0
        func flush() {
            if lineWidth > 0 { result.append(FieldLine(line)) }
            line = ""
            lineWidth = 0
        }
        /// Adds `text` (no wider than the column) to the line after `separator`, or starts a new line.
        func pack(_ text: Substring, _ separator: String) {
            let textWidth = text.columns
            if lineWidth > 0, lineWidth + separator.columns + textWidth <= valueWidth {
                line += separator + text
                lineWidth += separator.columns + textWidth
            } else {
                flush()
                line = String(text)
                lineWidth = textWidth
            }
        }
        for part in parts.map({ ControlCharacters.escaped($0) }) where !part.isEmpty {
            let partWidth = part.columns
            if partWidth <= valueWidth {
                pack(part[...], " · ")
            } else if partWidth <= width {
                flush()
                result.append(FieldLine(part, fromEdge: true))
            } else {
                var separator = " · "
                for word in part.split(separator: " ") {
                    if word.columns <= valueWidth {
                        pack(word, separator)
                    } else {
                        flush()
                        result += lines(String(word), width: width).map { FieldLine($0, fromEdge: true) }
                    }
                    separator = " "
                }
            }
        }
        flush()
        return result.isEmpty ? [FieldLine("")] : result
    }
}
