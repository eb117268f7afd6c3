import Foundation
import StoreDeskCore
import StoreDeskStoreAPI

/// The Subscriptions screen: every subscription grouped by its state at the console's clock (active,
/// grace period, billing retry, expired, refunded), one state at a time with `s`, a `/` filter on ids and
/// products, and the selected subscription with its notifications in the detail pane. The list is a
/// keyset window that never holds more rows than it shows, fetched again as the clock ticks, so a grace
/// period that runs out moves its row to billing retry on screen.
public struct SubscriptionsScreen: Sendable {
    public var filter = ""
    /// Only this state, or every state grouped.
    public var state: SubscriptionState?
    /// Within each state, the earliest end first, or the latest (`O`, `:sort ends desc`), for the session.
    public var sort = ListSort("ends")
    /// The visible page of the list and its selection.
    public var list = ListWindow<SubscriptionListRow>()
    /// How many match the filter in each state, at the clock of the last fetch.
    public var counts: [SubscriptionState: Int] = [:]
    /// The notification send queue (`serve`'s sender): pending and failed sends, in the list's title.
    public var sendQueue = NotificationSendQueue()
    public var detail: SubscriptionDetail?
    public var detailScroll = 0
    /// The subscription a developer drives live, if any (`n`).
    public var demo: SubscriptionDemo?
    /// What was typed at the demo's prompt while the store looks it up: a refusal re-opens the prompt with it.
    var demoTyped: String?
    /// The instant of the last fetch, and the next instant after it at which a state changes.
    var fetchedAt: Instant?
    var nextChange: Instant?
    /// The time rate the next demo runs at (`t`).
    public var demoRate: TimeRate = .monthEvery30Seconds

    public init() {}

    public var rows: [SubscriptionListRow] { list.rows }
    public var selected: Int { list.selected }
    public var selectedRow: SubscriptionListRow? { list.selectedRow }

    /// The selected subscription with its player and notifications.
    public struct SubscriptionDetail: Sendable, Hashable {
        public var row: SubscriptionListRow
        public var events: [SubscriptionEvent]
        /// The audit line of each support action among `events`, by notification UUID: who and why.
        public var actions: [String: AuditEntry] = [:]
    }

    public enum Event: Sendable {
        case page(ListWindow<SubscriptionListRow>.Page)
        /// The counts at `at`, and the next instant any subscription changes state.
        case counts([SubscriptionState: Int], at: Instant, nextChange: Instant?, generation: Int)
        case detail(SubscriptionDetail?)
        /// How many notification sends are pending and failed.
        case sendQueue(NotificationSendQueue)
        case demoReady(SubscriptionDemoSetup)
        case demoFailed(String)
        /// These notifications reached the store; `rejected` says why one did not.
        case demoWritten(Set<String>, rejected: String?)
        /// A support action's outcome.
        case support(SupportOutcomeLine)
    }

    func search(at instant: Instant) -> SubscriptionSearch {
        SubscriptionSearch(text: filter, state: state, instant: instant, descending: sort.descending)
    }

    // MARK: - Effects

    /// The list as the store pages it at `instant`.
    func source(at instant: Instant) -> ListWindow<SubscriptionListRow>.Source {
        let search = self.search(at: instant)
        return { $0.subscriptions(search) }
    }

    func show(_ read: @escaping ListWindow<SubscriptionListRow>.Read) -> Effect {
        Self.read { store in Event.page(try read(store)) }
    }

    func countsEffect(_ search: SubscriptionSearch, _ generation: Int) -> Effect {
        Self.read { store in
            let (counts, next) = try store.subscriptionCountsAndNextChange(search)
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
            Self.read { store in
                guard let (row, events) = try store.subscriptionDetail(originalTransactionId: id) else { return Event.detail(nil) }
                let actions = try AppleSupportWrites.actions(for: events, originalTransactionId: id, in: store)
                return Event.detail(SubscriptionDetail(row: row, events: events, actions: actions))
            }
        ]
    }

    /// From the top of the list with the current filters, plus the counts.
    mutating func reload(pageSize: Int, now: Instant) -> [Effect] {
        let read = list.reload(pageSize: pageSize, source: source(at: now))
        return [show(read), countsEffect(search(at: now), list.generation), Self.read { store in .sendQueue(try store.notificationSendQueue()) }]
    }

    /// The visible window again from its first row, at a new instant or after a change: the selection
    /// stays on the same subscription.
    mutating func refresh(pageSize: Int, now: Instant) -> [Effect] {
        let read = list.refresh(pageSize: pageSize, source: source(at: now))
        return [show(read), countsEffect(search(at: now), list.generation), Self.read { store in .sendQueue(try store.notificationSendQueue()) }]
    }

    // MARK: - Reducer

    mutating func move(_ command: Command, pageSize: Int, now: Instant) -> [Effect] {
        switch list.move(command, pageSize: pageSize, source: source(at: now)) {
        case .none: return []
        case .stayed: return detailEffect()
        case .read(let read): return [show(read)]
        }
    }

    mutating func apply(_ event: Event) -> [Effect] {
        switch event {
        case .page(let page):
            guard let moved = list.show(page) else { return [] }
            if moved { detailScroll = 0 }
            if selectedRow == nil { detail = nil }
            return detailEffect()
        case .counts(let counts, let at, let next, let gen):
            if gen == list.generation {
                self.counts = counts
                fetchedAt = at
                nextChange = next
            }
            return []
        case .detail(let detail):
            if detail?.row.subscription.id == selectedRow?.subscription.id { self.detail = detail }
            return []
        case .sendQueue(let queue):
            sendQueue = queue
            return []
        case .demoReady, .demoFailed, .demoWritten, .support:
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
