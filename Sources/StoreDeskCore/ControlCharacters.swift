/// Stored or typed text made safe to show on a terminal: every control character written as a visible
/// escape, so a name, a reason or an imported id can neither move the cursor, clear the screen, retitle
/// the window nor split one output line into two.
///
/// Text comes into the store from people and files (a decline reason, an imported
/// `originalTransactionId`, a player's name); the console and every text command show it through this
/// one function. JSON output needs no help: its encoder escapes controls itself.
///
///     ControlCharacters.escaped("\u{1B}]0;PWNED\u{07}red")   // "\\e]0;PWNED\\ared"
///     ControlCharacters.escaped("张伟")                       // "张伟" (unchanged, no copy made)
public enum ControlCharacters {
    /// Whether a scalar must not reach a terminal as it is: C0 controls (tab and newline too: the output
    /// lays out its own columns and lines), DEL, C1 controls (U+0080–U+009F: `U+009B` is a CSI on some
    /// terminals), the line and paragraph separators, and the bidirectional overrides and isolates that
    /// let text show in another order than it is stored.
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    /// Whether the text holds any character `isControl` flags.
    ///
    /// `@inlinable`, like the generic `escaped`, so a caller in another module (the canvas draws every
    /// text through them) gets a copy compiled for its own text type. Called through `StringProtocol`'s
    /// witness table instead, its first use made the runtime look up `unicodeScalars`' type by name and
    /// scan the binary's every protocol conformance (a few percent of the console's first frame).
    @inlinable
    public static func contains(in text: some StringProtocol) -> Bool {
        // Bytes first: every flagged scalar starts with a byte below 0x20, 0x7F, 0xC2 or 0xE2.
        for byte in text.utf8 where byte < 0x20 || byte == 0x7F || byte == 0xC2 || byte == 0xE2 {
            return text.unicodeScalars.contains(where: isControl)
        }
        return false
    }

    /// The text with every control written as an escape: `\t \n \r \e \a \b \f \v`, else `\xHH` below
    /// U+0080 and `\u{HHHH}` above. Everything else, CJK and emoji included, is kept as it is.
    ///
    /// `@inlinable`, so each caller compiles it for its own text type: called from another module through
    /// `StringProtocol`'s witness table, it paid a call for every byte (a few percent of `serve`'s time,
    /// which escapes each request's log line).
    @inlinable
    public static func escaped(_ text: some StringProtocol) -> String {
        guard contains(in: text) else { return String(text) }
        var out = ""
        out.unicodeScalars.reserveCapacity(text.unicodeScalars.count + 8)
        for scalar in text.unicodeScalars {
            guard isControl(scalar) else {
                out.unicodeScalars.append(scalar)
                continue
            }
            out += escape(scalar)
        }
        return out
    }

    /// One control's escape.
    @usableFromInline
    static func escape(_ scalar: Unicode.Scalar) -> String {
        switch scalar.value {
        case 0x09: return "\\t"
        case 0x0A: return "\\n"
        case 0x0D: return "\\r"
        case 0x1B: return "\\e"
        case 0x07: return "\\a"
        case 0x08: return "\\b"
        case 0x0C: return "\\f"
        case 0x0B: return "\\v"
        default:
            let hex = String(scalar.value, radix: 16, uppercase: true)
            if scalar.value < 0x80 { return "\\x" + (hex.count < 2 ? "0" : "") + hex }
            return "\\u{" + hex + "}"
        }
    }
}

extension StringProtocol {
    /// The text with control characters escaped (`ControlCharacters.escaped`): how stored text is shown.
    public var controlsEscaped: String { ControlCharacters.escaped(self) }
}
