import StoreDeskCore

/// A run of text in one style, for detail panes.
public struct Span: Sendable, Hashable {
    public var text: String
    public var role: Role
    public init(_ text: String, _ role: Role) {
        self.text = text
        self.role = role
    }
}

/// The lines of a detail pane, built as labelled fields, headings and wrapped text, then drawn with
/// `Canvas.draw(_:in:scroll:)`. Every screen's detail pane uses it, so they all read alike.
public struct DetailText: Sendable {
    public private(set) var lines: [[Span]] = []
    public var labelWidth: Int

    public init(labelWidth: Int = 15) { self.labelWidth = labelWidth }

    public mutating func line(_ spans: Span...) { lines.append(spans) }
    public mutating func line(_ spans: [Span]) { lines.append(spans) }

    public mutating func field(_ label: String, _ value: String, _ role: Role = .detailValue) {
        lines.append([Span(label.padded(to: labelWidth), .detailLabel), Span(value, role)])
    }

    /// A labelled value of parts (`10000039 · sid s4 · role r1`) that wraps instead of being cut at the
    /// pane's edge, its lines at most `width` columns: parts joined by ` · ` while they fit the value's
    /// column, and a date or an id wider than the column whole on a line of its own from the pane's
    /// edge, under the label (`TextWrap.field`).
    public mutating func field(_ label: String, _ parts: [String], width: Int, _ role: Role = .detailValue) {
        var labelled = false
        for piece in TextWrap.field(parts, valueWidth: width - labelWidth, width: width) {
            if piece.fromEdge {
                if !labelled { lines.append([Span(label, .detailLabel)]) }
                lines.append([Span(piece.text, role)])
            } else {
                lines.append([Span((labelled ? "" : label).padded(to: labelWidth), .detailLabel), Span(piece.text, role)])
            }
            labelled = true
        }
    }

    /// A line of parts (each a few spans: `attempt 1 accepted`, `HTTP 200`, `08:02:18`) joined by ` · `,
    /// going on to the next line between parts when the next does not fit in `width` columns; the lines
    /// it goes on to start with `indent` (the first part carries its own).
    public mutating func line(parts: [[Span]], width: Int, separator: Role = .muted, indent: String = "") {
        var line: [Span] = [], lineWidth = 0
        for part in parts where !part.isEmpty {
            let partWidth = part.reduce(0) { $0 + $1.text.columns }
            if lineWidth > 0, lineWidth + 3 + partWidth <= width {
                line += [Span(" · ", separator)] + part
                lineWidth += 3 + partWidth
            } else {
                let continues = lineWidth > 0
                if continues { lines.append(line) }
                line = (continues && !indent.isEmpty ? [Span(indent, separator)] : []) + part
                lineWidth = (continues ? indent.columns : 0) + partWidth
            }
        }
        if lineWidth > 0 { lines.append(line) }
    }

    /// A blank line, then the heading.
    public mutating func heading(_ text: String) {
        if !lines.isEmpty { lines.append([]) }
        lines.append([Span(text, .title)])
    }

    /// A sentence broken at spaces into lines of at most `width` columns, the label on the first.
    public mutating func paragraph(_ label: String, _ value: String, width: Int, _ role: Role = .detailValue) {
        wrapped(label, value, width: width, role)
    }

    /// A value broken into lines of at most `width` columns, the label on the first: at spaces, so dates
    /// and words stay whole; only a word longer than a line is broken, its pieces ending in `…`
    /// (`TextWrap`).
    public mutating func wrapped(_ label: String, _ value: String, width: Int, _ role: Role = .detailValue) {
        for (i, chunk) in TextWrap.lines(value, width: max(8, width - labelWidth)).enumerated() {
            lines.append([Span((i == 0 ? label : "").padded(to: labelWidth), .detailLabel), Span(chunk, role)])
        }
    }
}

extension Canvas {
    /// Draws lines of spans into a rect (one column of margin), skipping the first `scroll` lines.
    public mutating func draw(_ lines: [[Span]], in rect: Rect, scroll: Int) {
        let first = min(scroll, max(0, lines.count - rect.height))
        for (row, line) in lines.dropFirst(first).prefix(rect.height).enumerated() {
            var x = rect.x + 1
            for span in line {
                // A span cut at the pane's edge ends in an ellipsis (padding cut is no loss).
                let room = rect.x + rect.width - 1 - x
                guard room > 0 else { break }
                x += write(span.text, at: Point(x: x, y: rect.y + row), role: span.role, maxWidth: room, ellipsis: true)
            }
        }
    }
}
