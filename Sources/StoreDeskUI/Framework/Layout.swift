/// Where each pane goes for a terminal size: a pure function, tested with ASCII boxes.
///
///     header  (1 row)
///     tabs    (1 row)
///     list │ detail   (the rest)
///     footer  (1 row: key hints)
///     status  (1 row: messages, filter and command input)
public struct Layout: Sendable, Equatable {
    public enum Pane: Sendable, Hashable, CaseIterable {
        case header, tabs, list, detail, footer, status
    }

    public static let minimum = Size(width: 60, height: 15)
    /// From this width on the list takes more than half (the detail pane keeps `wideDetail`).
    static let wide = 160
    static let wideDetail = 80

    public let size: Size
    public let panes: [Pane: Rect]

    /// `widensList`: whether the list takes more than half of a terminal `wide` or wider (false: half each).
    public init(size: Size, widensList: Bool = true) {
        self.size = size
        guard size.width >= Layout.minimum.width, size.height >= Layout.minimum.height else {
            panes = [:]
            return
        }
        let bodyTop = 2, bodyHeight = size.height - 4
        // The list takes half the width, at least 30 columns, up to 160 columns: a narrow terminal still
        // leaves the detail pane 30. Wider, the detail pane stops at 80 columns (two fifths of a wider
        // terminal still) and the list takes the rest, so its columns widen with the terminal to their
        // cells (`ColumnLayout`): at 200x60 no id, product or name of the demo store is cut.
        let listWidth = widensList && size.width >= Self.wide ? size.width - max(Self.wideDetail, size.width * 2 / 5) : max(30, size.width / 2)
        panes = [
            .header: Rect(x: 0, y: 0, width: size.width, height: 1),
            .tabs: Rect(x: 0, y: 1, width: size.width, height: 1),
            .list: Rect(x: 0, y: bodyTop, width: listWidth, height: bodyHeight),
            .detail: Rect(x: listWidth, y: bodyTop, width: size.width - listWidth, height: bodyHeight),
            .footer: Rect(x: 0, y: size.height - 2, width: size.width, height: 1),
            .status: Rect(x: 0, y: size.height - 1, width: size.width, height: 1),
        ]
    }

    public var isTooSmall: Bool { panes.isEmpty }

    public subscript(pane: Pane) -> Rect { panes[pane] ?? Rect(x: 0, y: 0, width: 0, height: 0) }

    /// Rows of data the list pane shows (inside its frame, below its column header).
    public var listRows: Int { max(1, self[.list].height - 3) }

    /// The panes drawn as ASCII boxes labelled by their initial: what layout tests compare.
    public var asciiBoxes: String {
        guard !isTooSmall else { return "too small\n" }
        var grid = Array(repeating: Array(repeating: Character("."), count: size.width), count: size.height)
        let letters: [Pane: Character] = [.header: "H", .tabs: "T", .list: "L", .detail: "D", .footer: "F", .status: "S"]
        for (pane, rect) in panes {
            for y in rect.y..<(rect.y + rect.height) {
                for x in rect.x..<(rect.x + rect.width) { grid[y][x] = letters[pane] ?? "?" }
            }
        }
        return grid.map { String($0) }.joined(separator: "\n") + "\n"
    }
}
