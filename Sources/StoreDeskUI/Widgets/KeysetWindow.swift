import StoreDeskCore
import StoreDeskStore

/// The visible page of a keyset-paged list and its selection. A move that leaves the page asks the
/// store for the rows beyond it (one row for `j`/`k`, a page for `pgup`/`pgdn`), never with OFFSET,
/// so the list never holds more rows than it shows.
///
///     switch window.move(command, pageSize: rows, load: { db, anchor, limit in try db.auditEntries(anchor: anchor, limit: limit) })
///     case .stayed: …           // the selection moved on the page
///     case .fetch(let read, let landing): …   // perform `read`, then `window.show(rows, landing:)`
public struct KeysetWindow<Row: Sendable & Equatable>: Sendable {
    public var rows: [Row] = []
    public var selected = 0
    let cursor: @Sendable (Row) -> KeysetCursor

    public init(cursor: @escaping @Sendable (Row) -> KeysetCursor) { self.cursor = cursor }

    public var selectedRow: Row? { rows.indices.contains(selected) ? rows[selected] : nil }

    /// Where the selection lands on a new page.
    public enum Landing: Sendable, Equatable {
        case first, last
        /// The same place on the page (paging), clamped to the rows there are.
        case samePlace
        /// The row with this cursor if it is on the page, else the same place (refresh).
        case row(KeysetCursor)
    }

    public enum Move: Sendable {
        /// Nothing to do (the edge of the list, or not a move).
        case none
        /// The selection moved on the page.
        case stayed
        /// Read this page, then `show` it.
        case fetch(@Sendable (AppDatabase) throws -> [Row], Landing)
    }

    public typealias Load = @Sendable (AppDatabase, KeysetAnchor, Int) throws -> [Row]

    public mutating func move(_ command: Command, pageSize: Int, load: @escaping Load) -> Move {
        let current = rows, cursor = self.cursor
        switch command {
        case .up:
            if selected > 0 {
                selected -= 1
                return .stayed
            }
            guard let first = current.first else { return .none }
            return .fetch({ db in
                let previous = try load(db, .before(cursor(first)), 1)
                return previous.isEmpty ? current : previous + current.dropLast(current.count >= pageSize ? 1 : 0)
            }, .first)
        case .down:
            if selected < current.count - 1 {
                selected += 1
                return .stayed
            }
            guard let last = current.last, current.count >= pageSize else { return .none }
            return .fetch({ db in
                let next = try load(db, .after(cursor(last)), 1)
                return next.isEmpty ? current : Array(current.dropFirst()) + next
            }, .last)
        case .pageDown:
            guard let last = current.last, current.count >= pageSize else {
                selected = max(0, current.count - 1)
                return .stayed
            }
            return .fetch({ db in
                let next = try load(db, .after(cursor(last)), pageSize)
                guard !next.isEmpty, next.count < pageSize else { return next }
                return try load(db, .before(cursor(next[0])), pageSize - next.count) + next
            }, .samePlace)
        case .pageUp:
            guard let first = current.first else { return .none }
            return .fetch({ db in
                let previous = try load(db, .before(cursor(first)), pageSize)
                guard !previous.isEmpty, previous.count < pageSize, let end = previous.last else { return previous }
                return previous + (try load(db, .after(cursor(end)), pageSize - previous.count))
            }, .samePlace)
        case .top:
            return .fetch({ db in try load(db, .first, pageSize) }, .first)
        case .bottom:
            return .fetch({ db in try load(db, .last, pageSize) }, .last)
        default:
            return .none
        }
    }

    /// The page again from its first row, keeping the selection on the same row; rows gone near the
    /// end are made up from above.
    public func refresh(pageSize: Int, load: @escaping Load) -> (@Sendable (AppDatabase) throws -> [Row], Landing) {
        let first = rows.first.map(cursor), cursor = self.cursor
        let landing: Landing = selectedRow.map { .row(cursor($0)) } ?? .first
        return ({ db in
            var page = try load(db, first.map { .from($0) } ?? .first, pageSize)
            if page.count < pageSize, let top = page.first.map(cursor) ?? first {
                page = try load(db, .before(top), pageSize - page.count) + page
            }
            return page
        }, landing)
    }

    /// Shows a page. An empty page while paging means there is nothing further: what is shown stays.
    /// Returns whether the selected row changed.
    @discardableResult
    public mutating func show(_ page: [Row], landing: Landing) -> Bool {
        if page.isEmpty && !rows.isEmpty && landing == .samePlace { return false }
        let previous = selectedRow
        rows = page
        switch landing {
        case .first: selected = 0
        case .last: selected = max(0, rows.count - 1)
        case .samePlace: selected = min(selected, max(0, rows.count - 1))
        case .row(let kept): selected = rows.firstIndex { cursor($0) == kept } ?? min(selected, max(0, rows.count - 1))
        }
        return selectedRow != previous
    }
}
