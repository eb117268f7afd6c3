import Foundation
import StoreDeskCore
import StoreDeskStore

/// The Users screen: every user in a keyset-paged list that never holds more rows than it shows,
/// a `/` filter, and the selected user's profile in the detail pane.
public struct UsersScreen: ConsoleScreen {
    public var filter = ""
    /// The visible window of rows, in list order.
    public var rows: [UserRow] = []
    public var selected = 0
    /// Users in the store (unfiltered), for the pane title.
    public var total: Int?
    public var profile: UserProfile?
    public var detailScroll = 0
    /// Users whose phone number was revealed in this session (support only, audited).
    public var revealed: Set<String> = []
    /// How far a sliced scan for a short filter has got (0...1), nil when none is running.
    public var scanProgress: Double?
    /// Bumped on every new query, so a late result for an old filter is dropped.
    var generation = 0

    public init() {}

    public var selectedRow: UserRow? { rows.indices.contains(selected) ? rows[selected] : nil }

    /// Results of this screen's effects.
    public enum Event: Sendable {
        case window(rows: [UserRow], select: Selection, generation: Int)
        case count(Int)
        case profile(UserProfile)
        case revealed(userId: String)
        /// A table scan for a short filter has found these so far and goes on from `next`.
        case scanning(rows: [UserRow], next: Int64, end: Int64, generation: Int)
        /// The user asked for with `--select` or `:user ID`.
        case jump(rowid: Int64)
    }

    /// Which row a new window selects.
    public enum Selection: Sendable, Equatable {
        /// The same place in the window (paging), clamped to the rows there are.
        case samePlace
        case first
        case last
        /// This row if it is in the window, else the same place (refresh, jump).
        case row(Int64)
    }

    // MARK: - Effects

    func window(_ generation: Int, select: Selection, _ fetch: @escaping @Sendable (AppDatabase) throws -> [UserRow]) -> Effect {
        .read { db in Self.event(Event.window(rows: try fetch(db), select: select, generation: generation)) }
    }

    /// Rows a scan slice covers; about 5 ms of LIKE matching on this machine.
    public var scanSlice: Int64 = 25_000
    /// How long one turn of a scan may take before it yields to the keyboard.
    public var scanBudget: TimeInterval = 0.012

    /// Continues a short filter's table scan from `next`, slice by slice, until the window is full,
    /// the table ends, or the turn's time is up (then it asks to be resumed after pending keys).
    func scan(_ search: UserSearch, found: [UserRow], next: Int64, end: Int64, pageSize: Int, generation: Int) -> Effect {
        let slice = scanSlice, budget = scanBudget
        return .read { db in
            try Self.scanTurn(db, search, found: found, next: next, end: end, pageSize: pageSize, generation: generation, slice: slice, budget: budget)
        }
    }

    static func scanTurn(
        _ db: AppDatabase, _ search: UserSearch, found: [UserRow], next: Int64, end: Int64, pageSize: Int, generation: Int,
        slice scanSlice: Int64, budget scanBudget: TimeInterval
    ) throws -> Action {
        let started = Date()
        var rows = found, cursor = next
        while rows.count < pageSize && cursor < end {
            let below = cursor + scanSlice
            rows += try db.reader.read { try search.page($0, from: .after(cursor - 1), limit: pageSize - rows.count, below: below) }
            cursor = below
            if Date().timeIntervalSince(started) > scanBudget { break }
        }
        if rows.count >= pageSize || cursor >= end {
            return Self.event(Event.window(rows: rows, select: .first, generation: generation))
        }
        return Self.event(Event.scanning(rows: rows, next: cursor, end: end, generation: generation))
    }

    /// Reload from the start with the current filter, plus the count.
    mutating func reload(pageSize: Int) -> [Effect] {
        generation += 1
        let search = UserSearch(text: filter), generation = self.generation
        scanProgress = nil
        if search.scansTable {
            return [
                .read { [scanSlice, scanBudget] db in
                    // The first turn runs with the keystroke; the rest after pending keys.
                    try Self.scanTurn(
                        db, search, found: [], next: 1, end: try db.lastUserRowid() + 1, pageSize: pageSize,
                        generation: generation, slice: scanSlice, budget: scanBudget)
                },
                .read { db in Self.event(Event.count(try db.userCount())) },
            ]
        }
        return [
            window(generation, select: .first) { db in try db.reader.read { try search.page($0, from: .start, limit: pageSize) } },
            .read { db in Self.event(Event.count(try db.userCount())) },
        ]
    }

    /// Fetch the visible window again from its first row, keeping the selection on the same rowid.
    mutating func refresh(pageSize: Int) -> [Effect] {
        generation += 1
        let search = UserSearch(text: filter), generation = self.generation
        let first = rows.first?.rowid, keep: Selection = selectedRow.map { .row($0.rowid) } ?? .first
        return [
            window(generation, select: keep) { db in
                try db.reader.read { db in
                    var page = try search.page(db, from: first.map { .from($0) } ?? .start, limit: pageSize)
                    if page.count < pageSize, let top = page.first?.rowid ?? first {
                        // Rows went away near the end: fill the window from above.
                        page = try search.page(db, from: .before(top), limit: pageSize - page.count) + page
                    }
                    return page
                }
            },
            .read { db in Self.event(Event.count(try db.userCount())) },
        ]
    }

    func profileEffect() -> [Effect] {
        guard let id = selectedRow?.user.id else { return [] }
        return [.read { db in Self.event(Event.profile(try db.profile(userId: id))) }]
    }

    // MARK: - Reducer

    mutating func move(_ command: Command, pageSize: Int) -> [Effect] {
        let search = UserSearch(text: filter)
        switch command {
        case .up:
            if selected > 0 {
                selected -= 1
                return profileEffect()
            }
            guard let first = rows.first else { return [] }
            generation += 1
            let current = rows
            return [window(generation, select: .first) { db in
                let previous = try db.reader.read { try search.page($0, from: .before(first.rowid), limit: 1) }
                return previous.isEmpty ? current : previous + current.dropLast(current.count >= pageSize ? 1 : 0)
            }]
        case .down:
            if selected < rows.count - 1 {
                selected += 1
                return profileEffect()
            }
            guard let last = rows.last else { return [] }
            generation += 1
            let current = rows
            return [window(generation, select: .last) { db in
                let next = try db.reader.read { try search.page($0, from: .after(last.rowid), limit: 1) }
                return next.isEmpty ? current : Array(current.dropFirst(current.count >= pageSize ? 1 : 0)) + next
            }]
        case .pageDown:
            guard let last = rows.last else { return [] }
            generation += 1
            return [window(generation, select: .samePlace) { db in
                try db.reader.read { db in
                    let next = try search.page(db, from: .after(last.rowid), limit: pageSize)
                    guard !next.isEmpty else { return [] }
                    if next.count < pageSize {
                        return try search.page(db, from: .before(next[0].rowid), limit: pageSize - next.count) + next
                    }
                    return next
                }
            }]
        case .pageUp:
            guard let first = rows.first else { return [] }
            generation += 1
            return [window(generation, select: .samePlace) { db in
                try db.reader.read { db in
                    let previous = try search.page(db, from: .before(first.rowid), limit: pageSize)
                    guard !previous.isEmpty else { return [] }
                    if previous.count < pageSize, let end = previous.last {
                        return previous + (try search.page(db, from: .after(end.rowid), limit: pageSize - previous.count))
                    }
                    return previous
                }
            }]
        case .top:
            generation += 1
            return [window(generation, select: .first) { db in try db.reader.read { try search.page($0, from: .start, limit: pageSize) } }]
        case .bottom:
            generation += 1
            return [window(generation, select: .last) { db in try db.reader.read { try search.page($0, from: .end, limit: pageSize) } }]
        default:
            return []
        }
    }

    /// Applies an effect's result.
    mutating func apply(_ event: Event, pageSize: Int) -> [Effect] {
        switch event {
        case .scanning(let found, let next, let end, let gen):
            guard gen == generation else { return [] }
            let unchanged = !rows.isEmpty && rows == found
            rows = found
            selected = min(selected, max(0, rows.count - 1))
            scanProgress = Double(next) / Double(max(end, 1))
            let search = UserSearch(text: filter)
            let continueScan = Effect.later(scan(search, found: found, next: next, end: end, pageSize: pageSize, generation: gen))
            return (unchanged ? [] : profileEffect()) + [continueScan]
        case .window(let newRows, let select, let gen):
            guard gen == generation else { return [] }
            scanProgress = nil
            // An empty page while paging means there is nothing further: keep what is shown.
            if newRows.isEmpty && !rows.isEmpty && select == .samePlace { return [] }
            let previousId = selectedRow?.user.id
            rows = newRows
            switch select {
            case .first: selected = 0
            case .last: selected = max(0, rows.count - 1)
            case .row(let rowid): selected = rows.firstIndex { $0.rowid == rowid } ?? min(selected, max(0, rows.count - 1))
            case .samePlace: selected = min(selected, max(0, rows.count - 1))
            }
            if selectedRow?.user.id != previousId { detailScroll = 0 }
            if selectedRow == nil { profile = nil }
            return profileEffect()
        case .count(let n):
            total = n
            return []
        case .profile(let p):
            if p.user.id == selectedRow?.user.id { profile = p }
            return []
        case .revealed(let userId):
            revealed.insert(userId)
            return []
        case .jump(let rowid):
            generation += 1
            let search = UserSearch(text: filter)
            return [window(generation, select: .row(rowid)) { db in
                try db.reader.read { db in
                    // Show the user with as many rows above it as the end of the list allows.
                    let below = try search.page(db, from: .from(rowid), limit: pageSize)
                    guard below.count < pageSize else { return below }
                    return try search.page(db, from: .before(rowid), limit: pageSize - below.count) + below
                }
            }]
        }
    }

    mutating func setFilter(_ text: String, pageSize: Int) -> [Effect] {
        guard text != filter else { return [] }
        filter = text
        selected = 0
        return Array(reload(pageSize: pageSize).prefix(1))
    }

    /// Look a user up by id and put it in the window, selected.
    mutating func jump(to id: String) -> [Effect] {
        filter = ""
        return [.read { db in
            guard let rowid = try db.userRowid(id: id) else { throw StoreError.unknownUser(id: id) }
            return Self.event(Event.jump(rowid: rowid))
        }]
    }
}
