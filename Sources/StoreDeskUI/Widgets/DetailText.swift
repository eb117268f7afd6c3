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
