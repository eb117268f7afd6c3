import StoreDeskCore
import StoreDeskStoreAPI

/// The one list engine of the console: the visible page of a list the store pages by keyset (Users,
/// Queue, Restores, Audit, Subscriptions), its selection, and where a new page puts the selection.
///
/// A move inside the page only moves the selection; one that leaves it asks the store's pager for the
/// rows beyond (one row for `j`/`k`, a page for `pgup`/`pgdn`), so the list never holds more rows than it
/// shows and no read uses OFFSET. Every read is numbered: a page that comes back after a newer read was
/// asked for (the filter changed again, another move) is dropped.
///
///     switch list.move(command, pageSize: rows, source: { $0.audit(query) }) {
///     case .none: …
///     case .stayed: …                       // the selection moved on the page
///     case .read(let read): …               // perform `read` in an effect, then `list.show(page)`
///     }
public struct ListWindow<Row: Identifiable & Equatable & Sendable>: Sendable where Row.ID: Sendable {
    public private(set) var rows: [Row] = []
    public private(set) var selected = 0
    /// The number of the latest read; pages of older ones are dropped.
    public private(set) var generation = 0

    public init() {}

    public var selectedRow: Row? { rows.indices.contains(selected) ? rows[selected] : nil }

    /// Where the selection lands on a new page: the one notion every list shares.
    public enum Landing: Sendable, Equatable {
        case first, last
        /// The same place on the page (paging), kept within the rows there are.
        case samePlace
        /// The row with this id if it is on the page, else the same place (refresh, jump).
        case row(Row.ID)
    }

    /// Rows read for this window, with where the selection lands and which read they answer.
    public struct Page: Sendable {
        public var rows: [Row]
        public var landing: Landing
        public var generation: Int

        public init(rows: [Row], landing: Landing, generation: Int) {
            self.rows = rows
            self.landing = landing
            self.generation = generation
        }
    }

    /// The list as the store pages it, for the current filter.
    public typealias Source = @Sendable (any ConsoleStore) -> any ListPager<Row>
    /// A read to perform in an effect; its page goes to `show`.
    public typealias Read = @Sendable (any ConsoleStore) throws -> Page

    public enum Move: Sendable {
        /// Nothing to do (not a move, or an empty list).
        case none
        /// The selection moved on the page.
        case stayed
        /// Perform this read, then `show` its page.
        case read(Read)
    }

    /// Numbers a new read: pages of earlier reads will be dropped.
    public mutating func nextGeneration() -> Int {
        generation += 1
        return generation
    }

    /// A move key. At the edge of the page it reads one row beyond (`j`/`k`) or a page (`pgup`/`pgdn`);
    /// paging past either end of the list selects the first or the last row.
    public mutating func move(_ command: Command, pageSize: Int, source: @escaping Source) -> Move {
        let current = rows, full = current.count >= pageSize
        switch command {
        case .up:
            if selected > 0 {
                selected -= 1
                return .stayed
            }
            guard let first = current.first else { return .none }
            return read(.first) { store in
                let previous = try source(store).page(before: first, limit: 1)
                return previous.isEmpty ? current : previous + current.dropLast(full ? 1 : 0)
            }
        case .down:
            if selected < current.count - 1 {
                selected += 1
                return .stayed
            }
            // A list shorter than its page shows all there is; rows added later come with the refresh.
            guard let last = current.last, full else { return .none }
            return read(.last) { store in
                let next = try source(store).page(after: last, limit: 1)
                return next.isEmpty ? current : Array(current.dropFirst()) + next
            }
        case .pageDown:
            guard let last = current.last, full else {
                selected = max(0, current.count - 1)
                return .stayed
            }
            let generation = nextGeneration()
            return .read { store in
                let pager = source(store)
                let next = try pager.page(after: last, limit: pageSize)
                guard let top = next.first else { return Page(rows: current, landing: .last, generation: generation) }
                guard next.count < pageSize else { return Page(rows: next, landing: .samePlace, generation: generation) }
                return Page(rows: try pager.page(before: top, limit: pageSize - next.count) + next, landing: .samePlace, generation: generation)
            }
        case .pageUp:
            guard let first = current.first else { return .none }
            let generation = nextGeneration()
            return .read { store in
                let pager = source(store)
                let previous = try pager.page(before: first, limit: pageSize)
                guard let end = previous.last else { return Page(rows: current, landing: .first, generation: generation) }
                guard previous.count < pageSize else { return Page(rows: previous, landing: .samePlace, generation: generation) }
                return Page(rows: previous + (try pager.page(after: end, limit: pageSize - previous.count)), landing: .samePlace, generation: generation)
            }
        case .top:
            return read(.first) { try source($0).first(limit: pageSize) }
        case .bottom:
            return read(.last) { try source($0).last(limit: pageSize) }
        default:
            return .none
        }
    }

    /// The first page, the selection on its first row (a new filter, a first show) or on `landing`.
    public mutating func reload(pageSize: Int, source: @escaping Source, landing: Landing = .first) -> Read {
        let generation = nextGeneration()
        return { store in Page(rows: try source(store).first(limit: pageSize), landing: landing, generation: generation) }
    }

    /// The page again from its first row, the selection kept on the same row; rows gone near the end are
    /// made up from above (the store changed, the size changed, the clock moved).
    public mutating func refresh(pageSize: Int, source: @escaping Source) -> Read {
        let generation = nextGeneration(), first = rows.first
        let landing: Landing = selectedRow.map { .row($0.id) } ?? .first
        return { store in
            let pager = source(store)
            var page = try first.map { try pager.page(from: $0, limit: pageSize) } ?? pager.first(limit: pageSize)
            if page.count < pageSize, let top = page.first ?? first {
                page = try pager.page(before: top, limit: pageSize - page.count) + page
            }
            return Page(rows: page, landing: landing, generation: generation)
        }
    }

    /// The page that shows the row with this id, selected; `missing` is thrown when the store has none.
    public mutating func jump(to id: Row.ID, pageSize: Int, source: @escaping Source, missing: @escaping @Sendable () -> any Error)
        -> Read
    {
        let generation = nextGeneration()
        return { store in
            guard let page = try source(store).around(id: id, limit: pageSize) else { throw missing() }
            return Page(rows: page, landing: .row(id), generation: generation)
        }
    }

    private mutating func read(_ landing: Landing, _ rows: @escaping @Sendable (any ConsoleStore) throws -> [Row]) -> Move {
        let generation = nextGeneration()
        return .read { store in Page(rows: try rows(store), landing: landing, generation: generation) }
    }

    /// Shows a page read for this window. Returns nil when it answers an older read (dropped), else
    /// whether the selected row changed.
    @discardableResult
    public mutating func show(_ page: Page) -> Bool? {
        guard page.generation == generation else { return nil }
        return show(page.rows, landing: page.landing)
    }

    /// Shows rows the screen put together itself (a sliced scan, a row kept in view). Returns whether
    /// the selected row changed.
    @discardableResult
    public mutating func show(_ page: [Row], landing: Landing) -> Bool {
        let previous = selectedRow?.id
        rows = page
        switch landing {
        case .first: selected = 0
        case .last: selected = max(0, rows.count - 1)
        case .samePlace: selected = min(selected, max(0, rows.count - 1))
        case .row(let id): selected = rows.firstIndex { $0.id == id } ?? min(selected, max(0, rows.count - 1))
        }
        return selectedRow?.id != previous
    }

    /// Selects the row at `index` on the page (kept within the rows there are).
    public mutating func select(_ index: Int) {
        selected = max(0, min(index, rows.count - 1))
    }

    /// Replaces one row in place (a prompt just resolved here), keeping the selection.
    public mutating func replace(at index: Int, with row: Row) {
        guard rows.indices.contains(index) else { return }
        rows[index] = row
    }
}
