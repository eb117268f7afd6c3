/// A line of typed text with a cursor, edited as readline edits one: what a prompt holds.
///
/// A prefilled value (`LineEditor(prefilled: "s14")`) is a suggestion: the first character typed
/// replaces it whole, while a key that moves the cursor or deletes keeps it for editing.
///
///     var line = LineEditor(prefilled: "s14")
///     line.edit(.character("s"))   // "s"
///     line.edit(.character("9"))   // "s9"
///     line.edit(.ctrl("a"))        // cursor at 0
public struct LineEditor: Sendable, Equatable {
    /// The text, a character each (a cursor position is an index here).
    public private(set) var characters: [Character]
    /// Where the next character goes: 0 ... characters.count.
    public private(set) var cursor: Int
    /// Still the value the prompt was opened with, untouched: the first character typed replaces it.
    public private(set) var isPrefilled: Bool

    public init(prefilled text: String = "") {
        characters = Array(text)
        cursor = characters.count
        isPrefilled = !text.isEmpty
    }

    public var text: String {
        get { String(characters) }
        set {
            characters = Array(newValue)
            cursor = characters.count
            isPrefilled = false
        }
    }

    /// The text before and after the cursor, for drawing it.
    public var beforeCursor: String { String(characters[..<cursor]) }
    public var afterCursor: String { String(characters[cursor...]) }

    /// The keys a line takes, as readline has them: returns false for a key it does not edit with.
    @discardableResult
    public mutating func edit(_ key: Key) -> Bool {
        switch key {
        case .character(let c):
            if isPrefilled {
                characters = []
                cursor = 0
            }
            characters.insert(c, at: cursor)
            cursor += 1
        case .left, .ctrl("b"): cursor = max(0, cursor - 1)
        case .right, .ctrl("f"): cursor = min(characters.count, cursor + 1)
        case .home, .ctrl("a"): cursor = 0
        case .end, .ctrl("e"): cursor = characters.count
        case .backspace, .ctrl("h"):
            guard cursor > 0 else { break }
            characters.remove(at: cursor - 1)
            cursor -= 1
        case .delete, .ctrl("d"):
            guard cursor < characters.count else { break }
            characters.remove(at: cursor)
        case .ctrl("u"):
            characters.removeSubrange(..<cursor)
            cursor = 0
        case .ctrl("k"):
            characters.removeSubrange(cursor...)
        case .ctrl("w"):
            // The word before the cursor, and the spaces after it, as readline's unix-word-rubout.
            var start = cursor
            while start > 0, characters[start - 1] == " " { start -= 1 }
            while start > 0, characters[start - 1] != " " { start -= 1 }
            characters.removeSubrange(start..<cursor)
            cursor = start
        default:
            return false
        }
        isPrefilled = false
        return true
    }
}
