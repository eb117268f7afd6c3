import Foundation
import StoreDeskCore
import StoreDeskStoreAPI

/// The Users screen: every user in a keyset-paged list that never holds more rows than it shows,
/// a `/` filter, and the selected user's profile in the detail pane.
public struct UsersScreen: ConsoleScreen {
    public var filter = ""
    /// The list's order for this session (`o`, `O`, `:sort`); a filter lists in the order players came into the store.
    public var sort = ListSort("added")
    /// The visible page of users and its selection.
    public var list = ListWindow<UserRow>()
    public var profile: UserProfile? {
        // Bars of another profile (or of this one before the store changed) are never drawn for this one.
        didSet { subscriptionBars.clear() }
    }
    /// The profile's subscriptions as timeline bars, made in update (the profile came, the clock moved, the
    /// pane was resized: `updateBars`) for the profile and the history to draw.
    public internal(set) var subscriptionBars = SubscriptionBars()
    public var detailScroll = 0
    /// The selected player's newest notifications with their sends (`NotificationDeliveryStore`).
    public var notifications: (userId: String, items: [PlayerNotification])?
    /// Users whose phone number was revealed in this session (support only, audited).
    public var revealed: Set<String> = []
    /// The selected player's history in the detail pane (`h`), one page at a time, or nil for the profile.
    public var history: HistoryView?
    /// How far a sliced scan for a short filter has got (0...1), nil when none is running.
    public var scanProgress: Double?
    /// The filter whose list came back empty since the store last changed: a filter typed on from it
    /// matches nothing either (`UserSearch.matchesNothing(whenNothingMatched:)`) and reads nothing.
    public internal(set) var matchedNothing: UserSearch?

    public init() {}

    public var rows: [UserRow] { list.rows }
    public var selected: Int { list.selected }
    public var selectedRow: UserRow? { list.selectedRow }

    /// Results of this screen's effects.
    public enum Event: Sendable {
        case page(ListWindow<UserRow>.Page)
        /// How many users the filter matches (`ListPager.count`).
        case counted(ListWindow<UserRow>.Counted)
        case profile(UserProfile)
        /// The player's newest notifications, each with its send to the app's notification URL.
        case notifications(userId: String, [PlayerNotification])
        case revealed(userId: String)
        /// A page of a player's history, read after `page.before`.
        case history(HistoryView)
        /// A table scan for a short filter has found these so far and goes on from `next`.
        case scanning(rows: [UserRow], next: Int64, end: Int64, generation: Int)
    }

    // MARK: - Effects

    /// The users as the store pages them, for the current filter.
    var source: ListWindow<UserRow>.Source {
        let search = UserSearch(text: filter, order: UserOrder(rawValue: sort.column) ?? .added, descending: sort.descending)
        return { $0.users(matching: search) }
    }

    func show(_ read: @escaping ListWindow<UserRow>.Read) -> Effect {
        Self.read { store in .page(try read(store)) }
    }

    /// Rows a scan slice covers; about 5 ms of LIKE matching on this machine.
    public var scanSlice: Int64 = 25_000
    /// How long one turn of a scan may take before it yields to the keyboard.
    public var scanBudget: TimeInterval = 0.012

    /// Continues a short filter's table scan from `next`, slice by slice, until the window is full,
    /// the table ends, or the turn's time is up (then it asks to be resumed after pending keys).
    func scan(_ search: UserSearch, found: [UserRow], next: Int64, end: Int64, pageSize: Int, generation: Int) -> Effect {
        let slice = scanSlice, budget = scanBudget
        return Self.read { store in
            try Self.scanTurn(store, search, found: found, next: next, end: end, pageSize: pageSize, generation: generation, slice: slice, budget: budget)
        }
    }

    static func scanTurn(
        _ store: any ConsoleStore, _ search: UserSearch, found: [UserRow], next: Int64, end: Int64, pageSize: Int, generation: Int,
        slice scanSlice: Int64, budget scanBudget: TimeInterval
    ) throws -> Event {
        let started = Date()
        var rows = found, cursor = next
        while rows.count < pageSize && cursor < end {
            let below = cursor + scanSlice
            rows += try store.users(matching: search, scanning: cursor..<below, limit: pageSize - rows.count)
            cursor = below
            if Date().timeIntervalSince(started) > scanBudget { break }
        }
        if rows.count >= pageSize || cursor >= end {
            return .page(.init(rows: rows, landing: .first, generation: generation, offset: .fromTop(0)))
        }
        return .scanning(rows: rows, next: cursor, end: end, generation: generation)
    }

    /// How many users the filter matches, read after the frame; `forget` shows "…" until it comes (a new filter).
    mutating func countEffect(forget: Bool) -> Effect {
        let read = list.countRead(source: source, forget: forget)
        return Self.readAfterFrame { store in .counted(try read(store)) }
    }

    /// Reload from the start with the current filter, plus the count.
    mutating func reload(pageSize: Int) -> [Effect] {
        let search = UserSearch(text: filter)
        scanProgress = nil
        if search.scansTable {
            let generation = list.nextGeneration()
            return [
                Self.read { [scanSlice, scanBudget] store in
                    // The first turn runs with the keystroke; the rest after pending keys.
                    try Self.scanTurn(
                        store, search, found: [], next: 1, end: try store.lastUserSequence() + 1, pageSize: pageSize,
                        generation: generation, slice: scanSlice, budget: scanBudget)
                },
                countEffect(forget: true),
            ]
        }
        return [show(list.reload(pageSize: pageSize, source: source)), countEffect(forget: true)]
    }

    /// Fetch the visible window again from its first row, keeping the selection on the same user.
    mutating func refresh(pageSize: Int) -> [Effect] {
        // The store may hold a match now: the next keystroke reads again.
        matchedNothing = nil
        return [show(list.refresh(pageSize: pageSize, source: source)), countEffect(forget: false)]
    }

    func profileEffect() -> [Effect] {
        guard let id = selectedRow?.user.id else { return [] }
        return [
            Self.read { store in .profile(try store.profile(userId: id, recent: 10)) },
            Self.read { store in .notifications(userId: id, try store.playerNotifications(userId: id, limit: 20)) },
        ]
    }

    /// A page of a player's history in the detail pane: the lines, and the cursors of the pages before.
    public struct HistoryView: Sendable, Equatable {
        public var userId: String
        public var entries: [HistoryEntry]
        /// Where each page shown so far started (nil for the newest): `<` goes back to the one before.
        public var starts: [HistoryCursor?]
        public var hasOlder: Bool
        public static let pageSize = 50
    }

    /// The page of `userId`'s history after `before`; `starts` are the pages before it, then its own start.
    func historyEffect(userId: String, before: HistoryCursor?, starts: [HistoryCursor?]) -> [Effect] {
        let size = HistoryView.pageSize
        return [Self.read { store in
            let entries = try store.history(userId: userId, kinds: [], before: before, limit: size + 1)
            return .history(
                HistoryView(userId: userId, entries: Array(entries.prefix(size)), starts: starts, hasOlder: entries.count > size))
        }]
    }

    /// The selected player's profile, and their history when one is open (it follows the selection).
    func selectionEffects() -> [Effect] {
        if let shown = history?.userId, let id = selectedRow?.user.id, shown != id {
            return profileEffect() + historyEffect(userId: id, before: nil, starts: [nil])
        }
        return profileEffect()
    }

    // MARK: - Reducer

    mutating func move(_ command: Command, pageSize: Int) -> [Effect] {
        switch list.move(command, pageSize: pageSize, source: source) {
        case .none: return []
        case .stayed: return selectionEffects()
        case .read(let read): return [show(read)]
        }
    }

    /// Applies an effect's result.
    public mutating func apply(_ event: Event, _ context: inout ScreenContext) -> [Effect] {
        let pageSize = context.pageSize
        switch event {
        case .scanning(let found, let next, let end, let gen):
            guard gen == list.generation else { return [] }
            let unchanged = !rows.isEmpty && rows == found
            list.show(found, landing: .samePlace, offset: .fromTop(0))
            scanProgress = Double(next) / Double(max(end, 1))
            let search = UserSearch(text: filter)
            let continueScan = Effect.later(scan(search, found: found, next: next, end: end, pageSize: pageSize, generation: gen))
            return (unchanged ? [] : profileEffect()) + [continueScan]
        case .page(let page):
            guard let moved = list.show(page) else { return [] }
            scanProgress = nil
            let search = UserSearch(text: filter)
            matchedNothing = rows.isEmpty && search.usesFullTextIndex ? search : nil
            if moved { detailScroll = 0 }
            if selectedRow == nil { profile = nil }
            return selectionEffects()
        case .counted(let counted):
            list.show(counted)
            return []
        case .profile(let p):
            if p.user.id == selectedRow?.user.id {
                profile = p
                updateBars(context)
            }
            return []
        case .notifications(let userId, let items):
            notifications = (userId, items)
            return []
        case .revealed(let userId):
            revealed.insert(userId)
            return []
        case .history(let view):
            guard view.userId == selectedRow?.user.id else { return [] }
            history = view
            detailScroll = 0
            return []
        }
    }

    mutating func setFilter(_ text: String, pageSize: Int) -> [Effect] {
        guard text != filter else { return [] }
        filter = text
        list.select(0)
        // Typed on past the last match: still nothing, and the empty list and its count of 0 stay as they are.
        if let earlier = matchedNothing, UserSearch(text: text).matchesNothing(whenNothingMatched: earlier) { return [] }
        return reload(pageSize: pageSize)
    }

    /// Look a user up by id and put it in the window, selected, with as many rows above it as the end of
    /// the list allows.
    mutating func jump(to id: String, pageSize: Int) -> [Effect] {
        let counted = filter.isEmpty && list.count != nil
        filter = ""
        return [show(list.jump(to: id, pageSize: pageSize, source: source) { StoreError.unknownUser(id: id) })]
            + (counted ? [] : [countEffect(forget: true)])
    }
}
