import StoreDeskCore

/// One message of the session as the message log keeps it: when (the console's clock) and what, whole.
public struct LoggedMessage: Sendable, Equatable {
    public var at: Instant
    public var message: StatusMessage
}

/// The two overlays over the body, `?` help and `:messages`: each covers the panes whole (nothing of
/// them shows beside it), wraps its lines to its width and scrolls.
extension AppState {
    /// How many messages the log keeps.
    static let messageLimit = 1000

    /// Adds a message to the log, stamped with the console's clock.
    mutating func log(_ message: StatusMessage) {
        messages.append(LoggedMessage(at: clock, message: message))
        if messages.count > Self.messageLimit { messages.removeFirst(messages.count - Self.messageLimit) }
    }

    /// Where an overlay goes: the whole body, between the tab bar and the footer.
    var overlayRect: Rect {
        let list = layout[.list]
        return Rect(x: 0, y: list.y, width: size.width, height: list.height)
    }

    /// Columns an overlay's text has: inside its frame, a space either side.
    var overlayTextWidth: Int { max(10, overlayRect.width - 4) }

    /// Lines an overlay shows at once.
    var overlayRows: Int { max(1, overlayRect.height - 2) }

    /// The first line shown when an overlay of `count` lines is scrolled to `scroll` (nil: the end).
    func overlayFirstLine(_ scroll: Int?, count: Int) -> Int {
        let last = max(0, count - overlayRows)
        return min(max(0, scroll ?? last), last)
    }

    /// The scroll an overlay's key asks for (any other key leaves it), or nil for a key that closes it.
    func overlayScroll(_ key: Key, from scroll: Int?, count: Int) -> Int? {
        let first = overlayFirstLine(scroll, count: count), page = max(1, overlayRows - 1)
        switch key {
        case .escape, .character("q"), .enter: return nil
        case .character("j"), .down: return first + 1
        case .character("k"), .up: return first - 1
        case .pageDown, .character(" "), .ctrl("f"): return first + page
        case .pageUp, .ctrl("b"): return first - page
        case .character("g"), .home: return 0
        case .character("G"), .end: return Int.max
        default: return first
        }
    }

    /// Draws an overlay: a frame over the whole body, the lines from `scroll`, and where they stand.
    func renderOverlay(into canvas: inout Canvas, title: String, lines: [[Span]], scroll: Int?) {
        let box = overlayRect
        canvas.fill(box, role: .text)
        canvas.frame(box, title: title.fitted(to: max(0, box.width - 6)), role: .borderFocused)
        let inner = box.inset
        let first = overlayFirstLine(scroll, count: lines.count)
        for (row, line) in lines.dropFirst(first).prefix(inner.height).enumerated() {
            var x = inner.x + 1
            for span in line {
                x += canvas.write(span.text, at: Point(x: x, y: inner.y + row), role: span.role, maxWidth: inner.x + inner.width - 1 - x)
            }
        }
        if lines.count > inner.height {
            let place = " \(first + 1)-\(min(lines.count, first + inner.height)) of \(lines.count) "
            canvas.write(place, at: Point(x: box.x + box.width - 2 - place.columns, y: box.y + box.height - 1), role: .borderFocused)
        }
    }

    /// A label in a column of `labelWidth` and text wrapped beside it: continuation lines indented under the text.
    /// A label wider than its column goes on a line of its own, the text below it.
    func hangingLines(_ label: String, _ text: String, labelWidth: Int, labelRole: Role, role: Role) -> [[Span]] {
        let width = max(8, overlayTextWidth - labelWidth)
        let wrapped = wrap(text, width: width).map { $0.fitted(to: width) }
        let own = label.columns >= labelWidth ? [[Span(label.fitted(to: overlayTextWidth), labelRole)]] : []
        return own + (wrapped.isEmpty ? [""] : wrapped).enumerated().map { index, line in
            [Span((index == 0 && own.isEmpty ? label : "").padded(to: labelWidth), labelRole), Span(line, role)]
        }
    }

    // MARK: - Help

    /// The `?` overlay's lines: every key of this screen (unavailable ones dimmed, with the reason),
    /// every `:` command with its argument, and how a typed line is edited.
    var helpLines: [[Span]] {
        var lines: [[Span]] = []
        func heading(_ text: String) {
            if !lines.isEmpty { lines.append([]) }
            lines += wrap(text, width: overlayTextWidth).map { [Span($0.fitted(to: overlayTextWidth), .title)] }
        }
        let entries = Keymap.helpEntries(for: self)
        let keyLabels = entries.map { $0.keys.count > 4 ? "1…9" : $0.keyLabel } + Self.lineEditingHelp.map(\.0)
        let keyWidth = min(16, keyLabels.map(\.columns).max() ?? 8) + 2
        heading("Keys")
        for binding in entries {
            let keys = binding.keys.count > 4 ? "1…9" : binding.keyLabel
            if let reason = binding.unavailableReason(in: self) {
                lines += hangingLines(keys, binding.summary, labelWidth: keyWidth, labelRole: .helpDisabled, role: .helpDisabled)
                lines += hangingLines("", "unavailable: " + reason, labelWidth: keyWidth, labelRole: .helpDisabled, role: .helpDisabled)
            } else {
                lines += hangingLines(keys, binding.summary, labelWidth: keyWidth, labelRole: .helpKey, role: .helpText)
            }
        }
        heading("Commands (type : and the command; tab completes, ↑/↓ recall)")
        let verbs = ConsoleCommandLine.verbs
        let verbWidth = min(28, verbs.map { ConsoleCommandLine.usage($0).columns }.max() ?? 8) + 2
        for verb in verbs {
            let owner = verb.screen.map { " (\($0.title))" } ?? ""
            lines += hangingLines(ConsoleCommandLine.usage(verb), verb.summary + owner, labelWidth: verbWidth, labelRole: .helpKey, role: .helpText)
        }
        heading("Typing a line (prompts, :, /)")
        for (keys, text) in Self.lineEditingHelp {
            lines += hangingLines(keys, text, labelWidth: keyWidth, labelRole: .helpKey, role: .helpText)
        }
        return lines
    }

    static let lineEditingHelp: [(String, String)] = [
        ("enter", "Send the line; a refused answer keeps the prompt open with the reason beside it."),
        ("esc", "Cancel: nothing is sent."),
        ("←/→ home/end", "Move the cursor (ctrl-b/ctrl-f, ctrl-a/ctrl-e too)."),
        ("backspace/del", "Delete before or under the cursor."),
        ("ctrl-u/ctrl-k", "Delete to the start or to the end of the line."),
        ("ctrl-w", "Delete the word before the cursor."),
        ("↑/↓", "Earlier answers at this prompt (and earlier : lines)."),
        ("y/n", "Answer a yes/no question on the key."),
        ("(typing)", "A suggested value is replaced by the first character typed."),
    ]

    mutating func handleHelp(_ key: Key, scroll: Int) -> [Effect] {
        let count = helpLines.count
        guard key != .character("?"), let next = overlayScroll(key, from: scroll, count: count) else {
            mode = .normal
            return []
        }
        mode = .help(scroll: overlayFirstLine(next, count: count))
        return []
    }

    func renderHelp(into canvas: inout Canvas, scroll: Int) {
        renderOverlay(into: &canvas, title: "Help: \(screen.title) · j/k scroll · esc closes", lines: helpLines, scroll: scroll)
    }

    // MARK: - Messages

    /// The message log's lines, oldest first: the console's time, then the whole text, wrapped.
    var messageLines: [[Span]] {
        guard !messages.isEmpty else { return [[Span("no messages yet", .muted)]] }
        return messages.flatMap { logged in
            let time = String(logged.at.secondsText(in: timeZone).suffix(8))
            return hangingLines(time, logged.message.text, labelWidth: 10, labelRole: .muted, role: Self.role(of: logged.message.kind))
        }
    }

    static func role(of kind: StatusMessage.Kind) -> Role {
        switch kind {
        case .info: .statusInfo
        case .success: .statusSuccess
        case .warning: .statusWarning
        case .error: .statusError
        }
    }

    mutating func handleMessages(_ key: Key, scroll: Int?) -> [Effect] {
        let count = messageLines.count
        guard let next = overlayScroll(key, from: scroll, count: count) else {
            mode = .normal
            return []
        }
        // At the last line the log follows new messages; scrolled up, it stays where it is.
        let first = overlayFirstLine(next, count: count)
        mode = .messages(scroll: first >= overlayFirstLine(nil, count: count) ? nil : first)
        return []
    }

    func renderMessages(into canvas: inout Canvas, scroll: Int?) {
        renderOverlay(
            into: &canvas, title: "Messages (\(messages.count)) · j/k scroll · esc closes", lines: messageLines, scroll: scroll)
    }
}
