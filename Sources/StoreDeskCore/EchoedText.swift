/// Text a person or a file gave, as a message repeats it: control characters escaped
/// (`ControlCharacters`), and at most `limit` characters, then `…` and how long the text was. A message
/// says which value it is about; a 128 KB search text pasted by mistake is not worth a terminal's
/// scrollback, nor a log line's.
///
///     EchoedText.cut("10000001")                                  // "10000001"
///     EchoedText.cut(String(repeating: "a", count: 131_072))      // 80 × "a" + "… (131,072 characters)"
///
/// Every message that names a value it was given (an id, a search text, an option's value) names it
/// through this one function, so none echoes more than a line.
public enum EchoedText {
    /// The characters a message keeps of a value.
    public static let limit = 80

    /// The text as a message may repeat it: whole when at most `limit` characters (graphemes), else its
    /// first `limit`, `…` and the whole text's length in characters.
    @inlinable
    public static func cut(_ text: some StringProtocol, limit: Int = limit) -> String {
        var end = text.startIndex
        var kept = 0
        while end < text.endIndex && kept < limit {
            text.formIndex(after: &end)
            kept += 1
        }
        guard end < text.endIndex else { return ControlCharacters.escaped(text) }
        return ControlCharacters.escaped(text[..<end]) + "… (" + grouped(text.count) + " characters)"
    }

    /// `131072` as `131,072`.
    @usableFromInline
    static func grouped(_ n: Int) -> String {
        var digits = String(n), out = ""
        while digits.count > 3 {
            out = "," + digits.suffix(3) + out
            digits.removeLast(3)
        }
        return digits + out
    }
}

extension StringProtocol {
    /// The text as a message repeats it (`EchoedText.cut`): controls escaped, at most 80 characters.
    public var echoed: String { EchoedText.cut(self) }
}
