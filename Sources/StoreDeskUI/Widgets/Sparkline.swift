/// A series of counts as one line of eighth blocks (`▁▂▃▄▅▆▇█`, as btop and ratatui draw them), or ASCII
/// (` .:-=+*#`) where blocks would not show: the largest value is a full block, zero a space, any other
/// value at least the lowest mark so it is never mistaken for none. Pure: the last `width` values, right
/// aligned, exactly `width` columns.
///
///     Sparkline.text([0, 1, 4, 8], width: 6, glyphs: .unicode)   // "   ▁▄█" (two spaces before: no data)
public enum Sparkline {
    static let unicodeLevels: [Character] = [" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]
    static let asciiLevels: [Character] = [" ", ".", ".", ":", "-", "=", "+", "*", "#"]

    /// The level (0 to 8) of each of the last `width` values, scaled to the largest of them.
    public static func levels(_ values: [Int], width: Int) -> [Int] {
        guard width > 0 else { return [] }
        let shown = Array(values.suffix(width))
        let top = max(shown.max() ?? 0, 0)
        let scaled = shown.map { value -> Int in
            guard value > 0, top > 0 else { return 0 }
            return max(1, Int((Double(value) / Double(top) * 8).rounded()))
        }
        return Array(repeating: 0, count: width - scaled.count) + scaled
    }

    /// The line, exactly `width` columns.
    public static func text(_ values: [Int], width: Int, glyphs: TimelineBar.Glyphs) -> String {
        let marks = glyphs == .unicode ? unicodeLevels : asciiLevels
        return String(levels(values, width: width).map { marks[$0] })
    }
}
