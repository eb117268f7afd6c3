import Foundation

/// Counts as one stacked bar with its legend, on one line: each part's share of the bar in a fill of
/// its own (`█▓▒░▚`, or `#=+-~` in ASCII), then every part's fill, word and count, so the line reads the
/// same without colour (NO_COLOR). Pure: `spans(width:glyphs:)` fits the line to `width` by shortening
/// the least important parts' words first (to their short word, then to none), then narrowing the bar,
/// then leaving it out; a count is never cut.
///
///     LabelledBar(parts).text(width: 80, glyphs: .unicode)
///     // "████████▓▓▓▓▒░  █ purchasing 12  ▓ purchased 6  ▒ deferred 1  ░ failed 1  ▚ restored 0"
public struct LabelledBar: Sendable, Hashable {
    /// One part: its words, longest first (the last may be empty: the fill and the count alone), its
    /// count, the role it is drawn in and how important its word is (1 is kept longest).
    public struct Part: Sendable, Hashable {
        public var words: [String]
        public var count: Int
        public var role: Role
        public var priority: Int

        public init(_ words: [String], count: Int, role: Role, priority: Int) {
            self.words = words.isEmpty ? [""] : words
            self.count = count
            self.role = role
            self.priority = priority
        }
    }

    public var parts: [Part]
    /// The bar is never wider than this, nor narrower than `minimumBar` (else it is left out).
    public var maximumBar: Int
    public var minimumBar: Int

    public init(_ parts: [Part], maximumBar: Int = 24, minimumBar: Int = 6) {
        self.parts = parts
        self.maximumBar = maximumBar
        self.minimumBar = minimumBar
    }

    static let unicodeFills: [Character] = ["█", "▓", "▒", "░", "▚", "▞"]
    static let asciiFills: [Character] = ["#", "=", "+", "-", "~", "%"]

    /// The fill of the part at `index`.
    public static func fill(_ index: Int, glyphs: TimelineBar.Glyphs) -> Character {
        let fills = glyphs == .unicode ? unicodeFills : asciiFills
        return fills[index % fills.count]
    }

    /// How many columns of a bar `width` wide each part takes: its share, rounded by largest remainder,
    /// and at least one for a part with any count when the bar has room for them all.
    public func columns(width: Int) -> [Int] {
        let total = parts.reduce(0) { $0 + max(0, $1.count) }
        guard width > 0, total > 0 else { return parts.map { _ in 0 } }
        let shares = parts.map { Double(max(0, $0.count)) * Double(width) / Double(total) }
        var columns = shares.map { Int($0) }
        let remainders = shares.enumerated().map { ($0.offset, $0.element - Double(columns[$0.offset])) }.sorted { $0.1 > $1.1 }
        var left = width - columns.reduce(0, +)
        for (index, _) in remainders where left > 0 {
            columns[index] += 1
            left -= 1
        }
        // A small part still shows: a column taken from the widest.
        let nonzero = parts.indices.filter { parts[$0].count > 0 }
        if nonzero.count <= width {
            for index in nonzero where columns[index] == 0 {
                if let widest = columns.indices.max(by: { columns[$0] < columns[$1] }), columns[widest] > 1 {
                    columns[widest] -= 1
                    columns[index] = 1
                }
            }
        }
        return columns
    }

    /// Each part's legend entry at word level `level` (clamped to its words): `█ purchasing 12`, `█12`.
    func entry(_ index: Int, level: Int, glyphs: TimelineBar.Glyphs) -> String {
        let part = parts[index]
        let word = part.words[min(level, part.words.count - 1)]
        let fill = String(Self.fill(index, glyphs: glyphs))
        return word.isEmpty ? fill + part.count.formattedWithSeparators : "\(fill) \(word) \(part.count.formattedWithSeparators)"
    }

    /// The word level each part shows at `width` and the bar's width (0: left out). The least important
    /// words shorten first, one level at a time for all of them; the bar stays while every part keeps a
    /// word, and goes before any part loses its word.
    public func fitted(width: Int, glyphs: TimelineBar.Glyphs) -> (levels: [Int], bar: Int) {
        func legend(_ levels: [Int]) -> Int {
            parts.indices.reduce(0) { $0 + entry($1, level: levels[$1], glyphs: glyphs).count } + 2 * max(0, parts.count - 1)
        }
        func bar(_ levels: [Int]) -> Int { min(maximumBar, width - legend(levels) - 2) }
        func wordsKept(_ levels: [Int]) -> Bool { parts.indices.allSatisfy { !parts[$0].words[levels[$0]].isEmpty } }
        let order = parts.indices.sorted { parts[$0].priority > parts[$1].priority }
        let deepest = parts.map { $0.words.count - 1 }.max() ?? 0
        var levels = parts.map { _ in 0 }
        var steps = [levels]
        for level in stride(from: 1, through: deepest, by: 1) {
            for index in order where level < parts[index].words.count {
                levels[index] = level
                steps.append(levels)
            }
        }
        if let step = steps.first(where: { wordsKept($0) && bar($0) >= minimumBar }) { return (step, bar(step)) }
        return (steps.first { legend($0) <= width } ?? levels, 0)
    }

    /// The line as spans: the bar (each part in its role), two spaces, the legend.
    public func spans(width: Int, glyphs: TimelineBar.Glyphs) -> [Span] {
        let (levels, barWidth) = fitted(width: width, glyphs: glyphs)
        var spans: [Span] = []
        if barWidth > 0 {
            let shares = columns(width: barWidth)
            if shares.allSatisfy({ $0 == 0 }) {
                spans.append(Span(String(repeating: glyphs == .unicode ? "·" : ".", count: barWidth), .muted))
            } else {
                for (index, n) in shares.enumerated() where n > 0 {
                    spans.append(Span(String(repeating: Self.fill(index, glyphs: glyphs), count: n), parts[index].role))
                }
            }
            spans.append(Span("  ", .text))
        }
        for index in parts.indices {
            if index > 0 { spans.append(Span("  ", .text)) }
            spans.append(Span(entry(index, level: levels[index], glyphs: glyphs), parts[index].role))
        }
        return spans
    }

    /// The line as plain text.
    public func text(width: Int, glyphs: TimelineBar.Glyphs) -> String {
        spans(width: width, glyphs: glyphs).map(\.text).joined()
    }
}
