import StoreDeskCore

/// Text broken into lines of at most a width in columns, at spaces: a date, an id or a word is never
/// split between lines. Only a word longer than a whole line (a JSON body, a URL) is broken, by
/// grapheme, each piece but its last ending in `…` so the reader sees it goes on.
///
///     TextWrap.lines("queued at 2026-11-20T08:02:18Z then follows", width: 24)
///     // ["queued at", "2026-11-20T08:02:18Z", "then follows"]
///     TextWrap.lines("{\"channel\":\"appstore\"}", width: 10)
///     // ["{\"channel…", "\":\"appsto…", "re\"}"]
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
            // A word longer than a line: pieces of width - 1 columns and an ellipsis, the rest goes on.
            var piece = "", pieceWidth = 0
            for character in word {
                let w = TextWidth.columns(of: character)
                if pieceWidth + w > width - 1 {
                    lines.append(piece + "…")
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
