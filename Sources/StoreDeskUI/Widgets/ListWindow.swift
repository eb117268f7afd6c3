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
    /// The read whose rows are shown: behind `generation` while a read is out, or after one failed (a
    /// server gone), so an empty window then says "…", never that the list is empty.
    public private(set) var shownGeneration = 0
    /// Where the page stands in the whole list, when known: kept by every move without asking the store.
    public private(set) var offset: Offset?
    /// How many rows the list holds, as the store last told (`count`), or nil until it has.
    public private(set) var count: ListCount?
    /// The number of the latest count asked for; older answers are dropped.
    public private(set) var countGeneration = 0

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

    /// Where a page stands in the whole list: how many rows come before its first row, or after its last.
    public enum Offset: Sendable, Equatable {
        case fromTop(Int)
        case fromBottom(Int)

        /// Moved by `top` rows counted from the top, or `bottom` rows counted from the bottom.
        func shifted(top: Int, bottom: Int) -> Offset {
            switch self {
            case .fromTop(let n): return .fromTop(max(0, n + top))
            case .fromBottom(let n): return .fromBottom(max(0, n + bottom))
            }
        }
    }

    /// Rows read for this window, with where the selection lands, which read they answer, and where
    /// they stand in the list (nil: unknown).
    public struct Page: Sendable {
        public var rows: [Row]
        public var landing: Landing
        public var generation: Int
        public var offset: Offset?
        /// The page holds the whole list (a first page shorter than asked): its count is known.
        public var complete: Bool

        public init(rows: [Row], landing: Landing, generation: Int, offset: Offset? = nil, complete: Bool = false) {
            self.rows = rows
            self.landing = landing
            self.generation = generation
            self.offset = offset
            self.complete = complete
        }
    }

    /// A count read for this window, and which count it answers.
    public struct Counted: Sendable {
        public var count: ListCount?
        public var generation: Int
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
        let current = rows, full = current.count >= pageSize, offset = offset
        switch command {
        case .up:
            if selected > 0 {
                selected -= 1
                return .stayed
            }
            guard let first = current.first else { return .none }
            return read(.first) { store in
                let previous = try source(store).page(before: first, limit: 1)
                guard !previous.isEmpty else { return (current, .fromTop(0)) }
                return (previous + current.dropLast(full ? 1 : 0), offset?.shifted(top: -1, bottom: full ? 1 : 0))
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
                guard !next.isEmpty else { return (current, .fromBottom(0)) }
                return (Array(current.dropFirst()) + next, offset?.shifted(top: 1, bottom: -1))
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
                guard let top = next.first else { return Page(rows: current, landing: .last, generation: generation, offset: .fromBottom(0)) }
                guard next.count < pageSize else {
                    return Page(rows: next, landing: .samePlace, generation: generation, offset: offset?.shifted(top: current.count, bottom: -next.count))
                }
                return Page(
                    rows: try pager.page(before: top, limit: pageSize - next.count) + next, landing: .samePlace, generation: generation,
                    offset: .fromBottom(0))
            }
        case .pageUp:
            guard let first = current.first else { return .none }
            let generation = nextGeneration()
            return .read { store in
                let pager = source(store)
                let previous = try pager.page(before: first, limit: pageSize)
                guard let end = previous.last else { return Page(rows: current, landing: .first, generation: generation, offset: .fromTop(0)) }
                guard previous.count < pageSize else {
                    return Page(
                        rows: previous, landing: .samePlace, generation: generation, offset: offset?.shifted(top: -previous.count, bottom: current.count))
                }
                return Page(
                    rows: previous + (try pager.page(after: end, limit: pageSize - previous.count)), landing: .samePlace, generation: generation,
                    offset: .fromTop(0))
            }
        case .top:
            return read(.first) { (try source($0).first(limit: pageSize), .fromTop(0)) }
        case .bottom:
            return read(.last) { (try source($0).last(limit: pageSize), .fromBottom(0)) }
        default:
            return .none
        }
    }

    /// The first page, the selection on its first row (a new filter, a first show) or on `landing`.
    public mutating func reload(pageSize: Int, source: @escaping Source, landing: Landing = .first) -> Read {
        let generation = nextGeneration()
        return { store in
            let rows = try source(store).first(limit: pageSize)
            return Page(rows: rows, landing: landing, generation: generation, offset: .fromTop(0), complete: rows.count < pageSize)
        }
    }

    /// The page again from its first row, the selection kept on the same row; rows gone near the end are
    /// made up from above (the store changed, the size changed, the clock moved).
    public mutating func refresh(pageSize: Int, source: @escaping Source) -> Read {
        let generation = nextGeneration(), first = rows.first
        let landing: Landing = selectedRow.map { .row($0.id) } ?? .first
        let kept = first == nil ? .fromTop(0) : offset
        return { store in
            let pager = source(store)
            var page = try first.map { try pager.page(from: $0, limit: pageSize) } ?? pager.first(limit: pageSize)
            var offset = kept
            if page.count < pageSize, let top = page.first ?? first {
                // Made up from above: the page reaches the end, and the top too when fewer rows came
                // than were asked (the whole list fits).
                let wanted = pageSize - page.count
                let above = try pager.page(before: top, limit: wanted)
                page = above + page
                offset = above.count < wanted ? .fromTop(0) : .fromBottom(0)
            } else if case .fromBottom = kept {
                // A full page counted from the bottom (the size shrank): it still stands there only when
                // nothing follows it; otherwise its place is where its first row stands, if the store can tell.
                let atEnd = try page.last.map { try pager.page(after: $0, limit: 1).isEmpty } ?? true
                offset = atEnd ? .fromBottom(0) : try page.first.flatMap { try pager.rowsBefore($0) }.map { .fromTop($0) }
            }
            return Page(rows: page, landing: landing, generation: generation, offset: offset)
        }
    }

    /// The page that shows the row with this id, selected; `missing` is thrown when the store has none.
    public mutating func jump(to id: Row.ID, pageSize: Int, source: @escaping Source, missing: @escaping @Sendable () -> any Error)
        -> Read
    {
        let generation = nextGeneration()
        return { store in
            let pager = source(store)
            guard let page = try pager.around(id: id, limit: pageSize) else { throw missing() }
            // A page that reaches the end stands at the bottom; otherwise the store may know the first row's place.
            let atEnd = try page.count < pageSize || page.last.map { try pager.page(after: $0, limit: 1).isEmpty } ?? true
            let offset: Offset? = atEnd ? .fromBottom(0) : try page.first.flatMap { try pager.rowsBefore($0) }.map { .fromTop($0) }
            return Page(rows: page, landing: .row(id), generation: generation, offset: offset)
        }
    }

    private mutating func read(_ landing: Landing, _ rows: @escaping @Sendable (any ConsoleStore) throws -> ([Row], Offset?)) -> Move {
        let generation = nextGeneration()
        return .read { store in
            let (page, offset) = try rows(store)
            return Page(rows: page, landing: landing, generation: generation, offset: offset)
        }
    }

    /// Shows a page read for this window. Returns nil when it answers an older read (dropped), else
    /// whether the selected row changed.
    @discardableResult
    public mutating func show(_ page: Page) -> Bool? {
        guard page.generation == generation else { return nil }
        shownGeneration = page.generation
        offset = page.offset
        whole = page.complete
        if page.complete { count = .exact(page.rows.count) }
        return show(page.rows, landing: page.landing)
    }

    /// Shows rows the screen put together itself (a sliced scan, a row kept in view). Returns whether
    /// the selected row changed.
    @discardableResult
    public mutating func show(_ page: [Row], landing: Landing, offset: Offset?? = nil) -> Bool {
        if let offset { self.offset = offset }
        shownGeneration = generation
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

    /// Asks the store how many rows the list holds (`ListPager.count`), to perform off the render path
    /// and hand to `show(_: Counted)`. `forget` drops the count shown until the answer comes (a new filter).
    public mutating func countRead(source: @escaping Source, forget: Bool) -> @Sendable (any ConsoleStore) throws -> Counted {
        countGeneration += 1
        counting = true
        if forget { count = nil }
        let generation = countGeneration
        return { store in Counted(count: try source(store).count(), generation: generation) }
    }

    /// Whether a count was asked for and has not come back.
    public private(set) var counting = false
    /// Whether the page shown holds the whole list (its count is exact, whatever a bounded count says).
    private var whole = false

    /// Shows a count read for this window, unless a newer one was asked for.
    public mutating func show(_ counted: Counted) {
        guard counted.generation == countGeneration else { return }
        counting = false
        if whole, case .exact = count { return }
        count = counted.count
    }

    /// The selection's place in the list, 1 for the first row, when the window knows it.
    public var position: Int? { position(in: count) }

    /// The selection's place given the list's count (a screen's own, or the store's).
    public func position(in count: ListCount?) -> Int? {
        guard selectedRow != nil, let offset else { return nil }
        switch offset {
        case .fromTop(let n): return n + selected + 1
        case .fromBottom(let n):
            guard case .exact(let total) = count, total >= rows.count + n else { return nil }
            return total - n - (rows.count - 1 - selected)
        }
    }

    /// The title's "12 of 20,120": the selection's place (– when unknown) and the count; "≥" when the
    /// store could only bound it (or has no cheap count and the window has seen that many), "…" while it
    /// counts, or while no read's rows have come. `count` replaces the store's (a screen that keeps counts of its own); `placed: false` says
    /// the page holds a row that is not in the list (a prompt just resolved, kept in view): no place then,
    /// and the rows seen say nothing of the count.
    public func positionText(count known: ListCount? = nil, placed: Bool = true) -> String {
        let count = known ?? self.count
        var seen = placed ? rows.count : 0
        if placed, case .fromTop(let n) = offset { seen += n }
        if rows.isEmpty, count == nil || count == .exact(0) {
            // No rows yet because none have come (a read out, or failed): not known to be empty.
            if shownGeneration != generation { return "…" }
            return counting && known == nil ? "…" : "0"
        }
        let place = (placed ? position(in: count) : nil).map { $0.formattedWithSeparators } ?? "–"
        switch count {
        case .exact(let total): return "\(place) of \(max(total, seen).formattedWithSeparators)"
        case .atLeast(let total): return "\(place) of ≥\(max(total, seen).formattedWithSeparators)"
        case nil: return counting ? "\(place) of …" : "\(place) of ≥\(seen.formattedWithSeparators)"
        }
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
