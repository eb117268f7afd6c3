import StoreDeskCore

/// The bottom line: the last action's message, or the line being typed (`/`, `:`, a prompt). What does
/// not fit on it takes the footer's line too, and a message cut even then ends in `…` (the message log
/// has it whole).
extension AppState {
    func renderStatus(into canvas: inout Canvas, footer: Rect, status line: Rect) {
        switch mode {
        case .filter:
            let x = canvas.write(("/" + (current.filterText ?? "")).tail(fitting: line.width - 1), at: Point(x: line.x, y: line.y), role: .input)
            canvas.write("▏", at: Point(x: line.x + x, y: line.y), role: .input)
            writeHint(["enter keep · esc clear"], into: &canvas, line: line, after: x + 1)
        case .command(let text):
            let x = canvas.write((":" + text).tail(fitting: line.width - 1), at: Point(x: line.x, y: line.y), role: .input)
            canvas.write("▏", at: Point(x: line.x + x, y: line.y), role: .input)
            writeHint(["tab completes · ↑/↓ history · esc cancels", "tab completes · esc cancels", "esc cancels"], into: &canvas, line: line, after: x + 1)
            if !commandChoices.isEmpty { renderChoices(into: &canvas, above: footer) }
        case .prompt(let prompt):
            renderPrompt(prompt, into: &canvas, footer: footer, line: line)
        case .normal, .help, .messages:
            guard let status else { return }
            let role = Self.role(of: status.kind)
            guard status.text.columns > line.width else {
                canvas.write(status.text, at: Point(x: line.x, y: line.y), role: role)
                return
            }
            // Too long for one line: the lines above too (the footer's, then the body's), cut with an
            // ellipsis only past `statusRows` lines (the message log has it whole).
            let lines = wrap(status.text, width: line.width)
            let most = Self.statusRows
            let shown = lines.count > most ? lines.prefix(most - 1) + [lines[(most - 1)...].joined(separator: " ").fitted(to: line.width)] : lines[...]
            for (i, row) in shown.enumerated() {
                let rect = Rect(x: line.x, y: line.y - (shown.count - 1 - i), width: line.width, height: 1)
                canvas.fill(rect, role: .text)
                canvas.write(row.fitted(to: rect.width), at: Point(x: rect.x, y: rect.y), role: role)
            }
        }
    }

    /// A prompt: its label, the typed line with its cursor (a secret as dots), the reason the last answer
    /// was refused, and how to answer or cancel. What does not fit on the one line (a long question, a
    /// long reason) goes whole on the lines above it, wrapped.
    func renderPrompt(_ prompt: Prompt, into canvas: inout Canvas, footer: Rect, line: Rect) {
        let shown: (before: String, after: String) = switch prompt.kind {
        case .secret: (String(repeating: "•", count: prompt.line.beforeCursor.count), String(repeating: "•", count: prompt.line.afterCursor.count))
        case .text: (prompt.line.beforeCursor, prompt.line.afterCursor)
        case .yesNo: ("", "")
        }
        let typed = shown.before + shown.after
        var lead = prompt.kind == .yesNo ? prompt.label + " " : prompt.label + ": "
        var refusal = prompt.refusal.map { "  ✗ " + $0 } ?? ""
        var above: [Span] = []
        if (lead + typed + refusal).columns + 1 > line.width {
            if (lead + typed).columns + 2 > line.width {
                // The question whole, wrapped above: a yes/no one ends on the prompt's own line.
                var rows = wrap(prompt.label, width: line.width)
                lead = prompt.kind == .yesNo ? (rows.popLast() ?? "") + " " : "› "
                above += rows.map { Span($0, .input) }
            }
            if (lead + typed + refusal).columns + 1 > line.width, let reason = prompt.refusal {
                above += wrap("✗ " + reason, width: line.width).map { Span($0, .statusError) }
                refusal = ""
            }
        }
        // How to answer, edit or cancel, on the line above the prompt's own: while a prompt is open the
        // footer's screen keys would not reach the screen anyway.
        let hint: String = switch prompt.kind {
        case .yesNo: "y yes · n no · esc cancels"
        case .secret: "hidden as typed · enter sends · esc cancels · ctrl-u clears"
        case .text: "enter sends · esc cancels · ←/→ home/end move · ctrl-u/k/w delete · ↑/↓ earlier"
        }
        let most = Self.promptRowsAbove - 1
        let kept = above.count > most
            ? [Span("…" + above[above.count - most].text, above[above.count - most].role)] + above.suffix(most - 1)
            : above
        let rows = [Span(hint, .muted)] + kept
        for (i, row) in rows.enumerated() {
            let rect = Rect(x: line.x, y: footer.y - (rows.count - 1 - i), width: line.width, height: 1)
            canvas.fill(rect, role: .text)
            canvas.write(row.text.fitted(to: rect.width), at: Point(x: rect.x, y: rect.y), role: row.role)
        }
        var x = line.x
        x += canvas.write(lead.fitted(to: line.width - 2), at: Point(x: x, y: line.y), role: .input)
        let room = max(1, line.width - (x - line.x) - 1)
        x += canvas.write(shown.before.tail(fitting: room), at: Point(x: x, y: line.y), role: .input)
        x += canvas.write("▏", at: Point(x: x, y: line.y), role: .input)
        x += canvas.write(shown.after, at: Point(x: x, y: line.y), role: .input, maxWidth: max(0, line.x + line.width - x))
        if !refusal.isEmpty {
            canvas.write(refusal.fitted(to: max(0, line.x + line.width - x)), at: Point(x: x, y: line.y), role: .statusError)
        }
    }

    /// How many lines a long message may take, its own and those above it.
    static let statusRows = 4

    /// How many lines above its own a long prompt's question may take.
    static let promptRowsAbove = 6

    /// The first hint that fits at the right of the line after `used` columns, dimmed.
    func writeHint(_ hints: [String], into canvas: inout Canvas, line: Rect, after used: Int) {
        guard let hint = hints.first(where: { used + $0.columns + 3 <= line.width }) else { return }
        canvas.write(hint, at: Point(x: line.x + line.width - hint.columns, y: line.y), role: .muted)
    }

    /// What tab offered for the `:` line, in columns over the bottom of the body.
    func renderChoices(into canvas: inout Canvas, above footer: Rect) {
        let width = min(30, (commandChoices.map(\.columns).max() ?? 1) + 2)
        let columns = max(1, (size.width - 2) / width)
        let maxRows = max(1, overlayRect.height / 2 - 2)
        var choices = commandChoices
        if choices.count > columns * maxRows {
            let left = choices.count - (columns * maxRows - 1)
            choices = Array(choices.prefix(columns * maxRows - 1)) + ["… \(left) more"]
        }
        let rows = (choices.count + columns - 1) / columns
        let box = Rect(x: 0, y: footer.y - rows - 2, width: size.width, height: rows + 2)
        canvas.fill(box, role: .text)
        canvas.frame(box, title: "\(commandChoices.count) choices · tab completes", role: .borderFocused)
        for (i, choice) in choices.enumerated() {
            let point = Point(x: box.x + 1 + (i % columns) * width + 1, y: box.y + 1 + i / columns)
            canvas.write(choice.fitted(to: width - 1), at: point, role: .helpKey)
        }
    }
}

extension StringProtocol {
    /// The end of the text in at most `width` columns, starting with `…` when anything was cut: what a
    /// line being typed shows of itself, the cursor's side kept.
    func tail(fitting width: Int) -> String {
        guard width > 0 else { return "" }
        if fits(in: width) { return String(self) }
        var out: [Character] = []
        var used = 1
        for character in reversed() {
            let w = TextWidth.columns(of: character)
            if used + w > width { break }
            out.append(character)
            used += w
        }
        return "…" + String(out.reversed())
    }
}
