import Foundation
import StoreDeskCore
import StoreDeskStore

/// The Subscriptions screen: every subscription grouped by its state at the console's clock (active,
/// grace period, billing retry, expired, refunded), one state at a time with `s`, a `/` filter on ids and
/// products, and the selected subscription with its notifications in the detail pane. The list is a
/// keyset window that never holds more rows than it shows, fetched again as the clock ticks, so a grace
/// period that runs out moves its row to billing retry on screen.
public struct SubscriptionsScreen: Sendable {
    public var filter = ""
    /// Only this state, or every state grouped.
    public var state: SubscriptionState?
    /// The visible window, in list order.
    public var rows: [SubscriptionListRow] = []
    public var selected = 0
    /// How many match the filter in each state, at the clock of the last fetch.
    public var counts: [SubscriptionState: Int] = [:]
    public var detail: SubscriptionDetail?
    public var detailScroll = 0
    /// Bumped on every new query, so a late result for an old one is dropped.
    var generation = 0
    /// The subscription a developer drives live, if any (`n`).
    public var demo: SubscriptionDemo?
    /// The instant of the last fetch, and the next instant after it at which a state changes.
    var fetchedAt: Instant?
    var nextChange: Instant?
    /// The time rate the next demo runs at (`t`).
    public var demoRate: TimeRate = .monthEvery30Seconds

    public init() {}

    public var selectedRow: SubscriptionListRow? { rows.indices.contains(selected) ? rows[selected] : nil }

    /// The selected subscription with its player and notifications.
    public struct SubscriptionDetail: Sendable, Hashable {
        public var row: SubscriptionListRow
        public var events: [SubscriptionEvent]
    }

    public enum Event: Sendable {
        case window(rows: [SubscriptionListRow], select: Selection, generation: Int)
        /// The counts at `at`, and the next instant any subscription changes state.
        case counts([SubscriptionState: Int], at: Instant, nextChange: Instant?, generation: Int)
        case detail(SubscriptionDetail?)
        case demoReady(SubscriptionDemoSetup)
        case demoFailed(String)
        /// These notifications reached the store; `rejected` says why one did not.
        case demoWritten(Set<String>, rejected: String?)
    }

    /// Which row a new window selects.
    public enum Selection: Sendable, Equatable {
        case samePlace, first, last
        /// This subscription if it is in the window, else the same place.
        case id(String)
    }

    func search(at instant: Instant) -> SubscriptionSearch { SubscriptionSearch(text: filter, state: state, instant: instant) }

    // MARK: - Effects

    func window(
        _ generation: Int, select: Selection, _ fetch: @escaping @Sendable (AppDatabase) throws -> [SubscriptionListRow]
    ) -> Effect {
        Self.read { db in Event.window(rows: try fetch(db), select: select, generation: generation) }
    }

    func countsEffect(_ search: SubscriptionSearch, _ generation: Int) -> Effect {
        Self.read { db in
            let (counts, next) = try db.subscriptionCountsAndNextChange(search)
            return Event.counts(counts, at: search.instant, nextChange: next, generation: generation)
        }
    }

    /// Whether what was fetched still holds at `now`: no state has changed since (ticks then fetch nothing).
    func isCurrent(at now: Instant) -> Bool {
        guard let fetched = fetchedAt, fetched <= now else { return false }
        return nextChange.map { now < $0 } ?? true
    }

    func detailEffect() -> [Effect] {
        guard let id = selectedRow?.subscription.id else { return [] }
        return [
            Self.read { db in
                Event.detail(try db.subscriptionDetail(originalTransactionId: id).map { SubscriptionDetail(row: $0.0, events: $0.1) })
            }
        ]
    }

    /// From the top of the list with the current filters, plus the counts.
    mutating func reload(pageSize: Int, now: Instant) -> [Effect] {
        generation += 1
        let search = self.search(at: now)
        return [window(generation, select: .first) { try $0.subscriptions(search, from: .start, limit: pageSize) }, countsEffect(search, generation)]
    }

    /// The visible window again from its first row, at a new instant or after a change: the selection
    /// stays on the same subscription.
    mutating func refresh(pageSize: Int, now: Instant) -> [Effect] {
        generation += 1
        let search = self.search(at: now)
        let first = rows.first?.cursor(at: now)
        let keep: Selection = selectedRow.map { .id($0.subscription.id) } ?? .first
        return [
            window(generation, select: keep) { db in
                var page = try db.subscriptions(search, from: first.map { .from($0) } ?? .start, limit: pageSize)
                if page.count < pageSize {
                    let top = page.first?.cursor(at: search.instant) ?? first
                    page = try db.subscriptions(search, from: top.map { .before($0) } ?? .end, limit: pageSize - page.count) + page
                }
                return page
            },
            countsEffect(search, generation),
        ]
    }

    // MARK: - Reducer

    mutating func move(_ command: Command, pageSize: Int, now: Instant) -> [Effect] {
        let search = self.search(at: now)
        let current = rows
        let full = rows.count >= pageSize
        switch command {
        case .up where selected > 0, .down where selected < rows.count - 1:
            selected += command == .up ? -1 : 1
            return detailEffect()
        case .up:
            guard let first = rows.first?.cursor(at: now) else { return [] }
            generation += 1
            return [window(generation, select: .first) { db in
                let previous = try db.subscriptions(search, from: .before(first), limit: 1)
                return previous.isEmpty ? current : previous + current.dropLast(full ? 1 : 0)
            }]
        case .down:
            guard let last = rows.last?.cursor(at: now) else { return [] }
            generation += 1
            return [window(generation, select: .last) { db in
                let next = try db.subscriptions(search, from: .after(last), limit: 1)
                return next.isEmpty ? current : current.dropFirst(full ? 1 : 0) + next
            }]
        case .pageDown:
            guard let last = rows.last?.cursor(at: now) else { return [] }
            generation += 1
            return [window(generation, select: .samePlace) { db in
                let next = try db.subscriptions(search, from: .after(last), limit: pageSize)
                guard let top = next.first, next.count < pageSize else { return next.isEmpty ? current : next }
                return try db.subscriptions(search, from: .before(top.cursor(at: search.instant)), limit: pageSize - next.count) + next
            }]
        case .pageUp:
            guard let first = rows.first?.cursor(at: now) else { return [] }
            generation += 1
            return [window(generation, select: .samePlace) { db in
                let previous = try db.subscriptions(search, from: .before(first), limit: pageSize)
                guard let end = previous.last, previous.count < pageSize else { return previous.isEmpty ? current : previous }
                return previous + (try db.subscriptions(search, from: .after(end.cursor(at: search.instant)), limit: pageSize - previous.count))
            }]
        case .top, .bottom:
            generation += 1
            let anchor: SubscriptionSearch.Anchor = command == .top ? .start : .end
            return [window(generation, select: command == .top ? .first : .last) { try $0.subscriptions(search, from: anchor, limit: pageSize) }]
        default:
            return []
        }
    }

    mutating func apply(_ event: Event) -> [Effect] {
        switch event {
        case .window(let newRows, let select, let gen):
            guard gen == generation else { return [] }
            let previous = selectedRow?.subscription.id
            rows = newRows
            switch select {
            case .first: selected = 0
            case .last: selected = max(0, rows.count - 1)
            case .samePlace: selected = min(selected, max(0, rows.count - 1))
            case .id(let id): selected = rows.firstIndex { $0.subscription.id == id } ?? min(selected, max(0, rows.count - 1))
            }
            if selectedRow?.subscription.id != previous { detailScroll = 0 }
            if selectedRow == nil { detail = nil }
            return detailEffect()
        case .counts(let counts, let at, let next, let gen):
            if gen == generation {
                self.counts = counts
                fetchedAt = at
                nextChange = next
            }
            return []
        case .detail(let detail):
            if detail?.row.subscription.id == selectedRow?.subscription.id { self.detail = detail }
            return []
        case .demoReady, .demoFailed, .demoWritten:
            return []
        }
    }

    /// The next state filter: all, then each state in list order, then all again.
    mutating func nextState() {
        guard let state, let index = SubscriptionSearch.order.firstIndex(of: state) else {
            state = SubscriptionSearch.order.first
            return
        }
        self.state = index + 1 < SubscriptionSearch.order.count ? SubscriptionSearch.order[index + 1] : nil
    }
}
