/// One column of a list: its title, how much it matters, how wide it may be, how it aligns, and the
/// text it shows for a row.
///
/// A screen declares its columns once, in the order they are drawn, each with a `priority` (1 first):
/// the ids a ticket gives (a transaction, a user) come first, so a narrow terminal drops the age or the
/// product before them, and a wide one shows every column at its ideal width and gives what is left to
/// the columns that `grows`.
///
///     let columns = [
///         ListColumn<QueueRow>("AGE", priority: 4, width: 7) { $0.age },
///         ListColumn<QueueRow>("TRANSACTION", priority: 1, width: 16) { $0.id },
///         ListColumn<QueueRow>("PRODUCT", priority: 3, min: 8, ideal: 24, grows: true) { $0.product },
///     ]
///     let layout = ColumnLayout(columns, width: inner.width)   // once a frame, no store reads
///     canvas.writeLine(layout.header, in: inner, row: 0, role: .listHeader)
///     canvas.writeLine(layout.line(row), in: inner, row: 1, role: .text)
public struct ListColumn<Row> {
    public enum Alignment: Sendable { case left, right }

    public var title: String
    /// 1 is kept first; a column of a higher number is dropped before one of a lower.
    public var priority: Int
    /// Narrower than this the column is not shown at all.
    public var minWidth: Int
    /// What it takes when there is room: its longest usual value.
    public var idealWidth: Int
    /// Takes the room left over once every shown column has its ideal width.
    public var grows: Bool
    public var alignment: Alignment
    public var text: (Row) -> String

    public init(
        _ title: String, priority: Int, min: Int, ideal: Int, grows: Bool = false, alignment: Alignment = .left,
        text: @escaping (Row) -> String
    ) {
        self.title = title
        self.priority = priority
        self.minWidth = Swift.max(1, min)
        self.idealWidth = Swift.max(self.minWidth, ideal)
        self.grows = grows
        self.alignment = alignment
        self.text = text
    }

    /// A column of a fixed width (an id, a date): shown whole or not at all.
    public init(_ title: String, priority: Int, width: Int, alignment: Alignment = .left, text: @escaping (Row) -> String) {
        self.init(title, priority: priority, min: width, ideal: width, alignment: alignment, text: text)
    }
}

/// The columns of a list laid out for a width: which are shown and how wide each is. A pure function of
/// the columns and the width, a few integer steps over a handful of columns: computed once a frame, it
/// reads nothing and costs nothing beside the rows it formats.
///
/// Lines are ` CELL CELL CELL`: one column of margin, one space between cells, every cell cut to its
/// width with an ellipsis (`apple.zha…`), never wider than `width` in total.
public struct ColumnLayout<Row> {
    public let columns: [ListColumn<Row>]
    /// The width of each column, in the order drawn; 0 for one that does not fit.
    public let widths: [Int]
    public let width: Int

    public init(_ columns: [ListColumn<Row>], width: Int) {
        self.columns = columns
        self.width = width
        widths = Self.widths(columns.map { ($0.priority, $0.minWidth, $0.idealWidth, $0.grows, nil) }, width: width)
    }

    /// The columns laid out for the rows they will show (the list's visible window): a column whose
    /// cells are all shorter than its ideal takes only what they need, and one whose cells are longer
    /// (an account `s4/r10000039-1`, a subject `subscription 2000000100000050`) widens to them while
    /// there is room, before the growing columns take the rest. So a wide terminal cuts no id, and the
    /// widths still follow only the columns, the width and the cells on screen (nothing is read).
    ///
    ///     let layout = ColumnLayout(columns, width: inner.width, fitting: rows.prefix(inner.height - 1))
    public init<Rows: Sequence>(_ columns: [ListColumn<Row>], width: Int, fitting rows: Rows) where Rows.Element == Row {
        self.columns = columns
        self.width = width
        var content: [Int?] = Array(repeating: nil, count: columns.count)
        for row in rows {
            for (i, column) in columns.enumerated() {
                content[i] = Swift.max(content[i] ?? column.title.columns, column.text(row).columns)
            }
        }
        widths = Self.widths(
            columns.indices.map { (columns[$0].priority, columns[$0].minWidth, columns[$0].idealWidth, columns[$0].grows, content[$0]) },
            width: width)
    }

    /// The widths for columns given as (priority, min, ideal, grows, content), in the order drawn, within
    /// `width` columns (one of margin, one between columns); `content` is the widest cell the column
    /// will show (its title counted), nil when not known.
    static func widths(_ specs: [(priority: Int, min: Int, ideal: Int, grows: Bool, content: Int?)], width: Int) -> [Int] {
        var widths = Array(repeating: 0, count: specs.count)
        let byPriority = specs.indices.sorted { (specs[$0].priority, $0) < (specs[$1].priority, $1) }
        // 1. As many columns as fit at their minimum, most important first, up to the first that does
        //    not: a column is never shown while a more important one is not.
        var used = 1
        for i in byPriority {
            let need = specs[i].min + (used > 1 ? 1 : 0)
            guard used + need <= width else { break }
            used += need
            widths[i] = specs[i].min
        }
        // 2. Each shown column grows to its ideal width (no wider than its cells, when they are known),
        //    most important first.
        func grow(_ i: Int, to target: Int) {
            let more = min(target - widths[i], width - used)
            guard more > 0 else { return }
            widths[i] += more
            used += more
        }
        //    The columns that do not grow (ids, dates, states) come first, then a column whose cells
        //    are wider than its ideal widens to them while there is room: an id is not cut while the
        //    pane has room for it; only then do the growing ones (names, products) take theirs.
        for growing in [false, true] {
            for i in byPriority where widths[i] > 0 && specs[i].grows == growing {
                grow(i, to: specs[i].content.map { min(specs[i].ideal, max(specs[i].min, $0)) } ?? specs[i].ideal)
            }
            for i in byPriority where widths[i] > 0 && specs[i].grows == growing {
                if let content = specs[i].content { grow(i, to: content) }
            }
        }
        // 3. What is left goes to the growing columns, shared evenly (the first ones take the odd column),
        //    but one: a line with room to spare ends a space short of the pane's border, as it starts.
        let growing = specs.indices.filter { specs[$0].grows && widths[$0] > 0 }
        if !growing.isEmpty, used + 1 < width {
            let left = width - used - 1
            for (n, i) in growing.enumerated() { widths[i] += left / growing.count + (n < left % growing.count ? 1 : 0) }
        }
        return widths
    }

    /// Whether the column titled `title` is shown.
    public func shows(_ title: String) -> Bool {
        columns.indices.contains { columns[$0].title == title && widths[$0] > 0 }
    }

    /// The column where the cell of the column titled `title` starts, from the list's left edge; nil when
    /// it is not shown.
    public func offset(of title: String) -> Int? {
        var x = 1
        for (column, w) in zip(columns, widths) where w > 0 {
            if column.title == title { return x }
            x += w + 1
        }
        return nil
    }

    /// The header line: every shown column's title.
    public var header: String { join { $0.title } }

    /// One row's line.
    public func line(_ row: Row) -> String { join { $0.text(row) } }

    private func join(_ cell: (ListColumn<Row>) -> String) -> String {
        var line = ""
        for (column, w) in zip(columns, widths) where w > 0 {
            line += " "
            let text = cell(column)
            line += column.alignment == .right ? text.leftPadded(to: w) : text.padded(to: w)
        }
        return line
    }
}
