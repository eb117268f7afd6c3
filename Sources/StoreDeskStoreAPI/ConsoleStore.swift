import StoreDeskCore

/// The store as the console sees it: named reads and writes over plain values, one protocol per area.
/// `AppDatabase` (SQLite through GRDB) implements it; no GRDB type crosses it, so another backend can be
/// written against it without touching a screen. Screens reach it only through `Effect.read` and
/// `Effect.write`; nothing here opens a transaction for its caller.
///
/// An area that needs the store adds a protocol of its own and lists it here.
public protocol ConsoleStore: StoreFile, UserStore, QueueStore, RestoreStore, AuditStore, SubscriptionStore, LoginEntryStore,
    OneTapStore, FindStore, HistoryStore, AppleSupportStore, AppStoreServerStore, NotificationDeliveryStore
{}

/// What every store tells about itself, and how the console learns that it changed.
public protocol StoreFile: Sendable {
    /// The file, for the header and the watcher.
    var path: String { get }
    var isReadOnly: Bool { get }
    /// The store's own "now", when it keeps one (demo and synthetic stores do): the console's clock.
    func clock() throws -> Instant?
    /// Where the clock of the consoles open on this store stands (`SharedClock`): nil when none wrote one.
    /// A console opening starts from it while its lease holds, so every open console shows one clock.
    func sharedClock() throws -> SharedClock?
    /// Writes where this console's clock stands at `wall`, and moves the store's clock up to it (as
    /// `remember(clock:)`), so commands answer at it too; never back: a shared clock already ahead of
    /// this one at `wall` stays.
    func share(clock instant: Instant, wall: Instant) throws
    /// Every app, in id order.
    func apps() throws -> [App]
    /// Calls `onChange` after every commit this process makes; the token stops it when released.
    func observeCommits(_ onChange: @escaping @Sendable () -> Void) -> AnyObject?
    /// A watcher of commits other processes make.
    func commitWatcher() throws -> any CommitWatcher
    /// An error one of these reads or writes threw, said in one line naming the store (a SQLite error
    /// without its SQL, an unreadable value by its column, never the row); nil for one that is not the
    /// store's.
    func storeError(for error: any Error) -> StoreError?
}

/// Notices commits other processes made to the store since it last looked.
public protocol CommitWatcher: AnyObject {
    /// True when another connection committed since the last call.
    func changed() throws -> Bool
}

/// The Users screen's reads and its one write.
public protocol UserStore: Sendable {
    /// The number of users (kept by the store, no scan).
    func userCount() throws -> Int
    /// The users matching a filter, in list order.
    func users(matching search: UserSearch) -> any ListPager<UserRow>
    /// The users matching a short filter among the rows in `rows` (by list position), at most `limit`:
    /// one slice of a table scan, so a keystroke never waits for the whole table.
    func users(matching search: UserSearch, scanning rows: Range<Int64>, limit: Int) throws -> [UserRow]
    /// Where the user list ends: the scan's bound.
    func lastUserSequence() throws -> Int64
    /// Everything the profile pane shows about one user, with their `recent` latest transactions.
    func profile(userId: String, recent: Int) throws -> UserProfile
    /// Audits that `staff` saw this user's phone number in the clear (`surface`: where); only support may.
    func recordPhoneReveal(userId: String, by staff: StaffMember, at now: Instant, surface: String, reason: String) throws
}

/// One search for every id a ticket gives (`:find`, `storedesk find`).
public protocol FindStore: Sendable {
    /// Players, game accounts, transactions, orders, subscriptions, notifications and restore prompts
    /// whose ids, names or phone match the query: exact matches first (index seeks), then prefixes
    /// (ranges on the same indexes), then names containing the text (the full-text index); each thing
    /// once, by its best match, at most `query.limit`.
    func find(_ query: FindQuery) throws -> [FindResult]
}

/// The Queue screen's reads and writes: the payment queue and the simulation the console drives.
public protocol QueueStore: Sendable {
    /// The unfinished transactions matching a query, newest first.
    func queue(_ query: QueueQuery) -> any ListPager<StoreTransaction>
    func queueCounts() throws -> [TransactionState: Int]
    /// How many transactions in the queue are Sandbox purchases (a simulation's): what `env:production` hides.
    func sandboxQueueCount() throws -> Int
    func eventTally(after eventId: Int64?) throws -> EventTally
    /// Purchases, grants, failures and the slowest callback reply in each bucket of `window` (the store's
    /// clock): a seek on the events' time (`transaction_event_activity`, v17), never a scan of the table.
    func queueActivity(_ window: QueueActivity.Window) throws -> QueueActivity
    func queueDetail(transactionId: String) throws -> QueueDetail?
    /// How the latest `limit` callback attempts fared at real game servers (status, failures by kind,
    /// latency); in-process attempts are skipped.
    func recentDeliveries(limit: Int) throws -> CallbackDeliveries
    func paymentCatalogue(userLimit: Int) throws -> PaymentCatalogue
    /// Starts a payment run (its number, its hold) and, with `takingOver`, moves to it the work in flight
    /// of runs that are gone: exactly once, however many runs start at the same moment. With `audit`, the
    /// run's start lines (`RunAudit.started`) are written in the same transaction.
    func startRun(_ kind: PaymentRun.Kind, takingOver: Bool, audit: RunAudit?) throws -> PaymentRunStart
    /// Ends a run that stops cleanly: what it leaves in flight is free for the next run at once. With
    /// `audit`, its stop line (`RunAudit.stopped`) is written in the same transaction.
    func endRun(_ run: PaymentRun, audit: RunAudit?) throws
    /// Says an idle run is alive; throws `StoreError.runEnded` once another run took it over.
    func heartbeat(_ run: PaymentRun) throws
    /// Commits a run's simulation steps, each with its events, in one transaction that also renews the
    /// run's heartbeat; refused whole (`StoreError.runEnded`) once another run took it over.
    func apply(_ changes: [PaymentChange], run: PaymentRun) throws
    /// finishTransaction by hand: refused while purchasing, deferred or not yet granted, and while another
    /// process's live run has the transaction in flight.
    func finishTransaction(id: String, at: Instant, by staff: StaffMember) throws -> Result<StoreTransaction, TransactionRefusal>
}

/// The restore desk's reads and writes.
public protocol RestoreStore: Sendable {
    /// The prompts with a status (nil: all) whose transaction, player or product contains the text, in the
    /// query's order.
    func restores(_ query: RestoreQuery) -> any ListPager<RestoreRow>
    func restoreCounts() throws -> [RestoreStatus: Int]
    /// How many prompts of each status are of Sandbox purchases (a simulation's): what hiding them hides.
    func sandboxRestoreCounts() throws -> [RestoreStatus: Int]
    func restorePrompt(transactionId: String) throws -> RestorePrompt?
    /// Throws `RestoreRefusal` (nothing written) when the rules refuse.
    @discardableResult
    func confirmRestore(transactionId: String, onto target: RestoreAccount, by staff: StaffMember, at now: Instant) throws
        -> RestorePrompt
    @discardableResult
    func declineRestore(transactionId: String, reason: String, by staff: StaffMember, at now: Instant) throws -> RestorePrompt
    func recordLogin(userId: String, at now: Instant) throws -> RestoreLogin
}

/// The audit log.
public protocol AuditStore: Sendable {
    /// The entries matching a query, newest first.
    func audit(_ query: AuditQuery) -> any ListPager<AuditEntry>
    /// Writes one audit line in its own transaction.
    func recordAudit(_ entry: AuditEntry) throws
}

/// The Subscriptions screen's reads, and the demo subscription it drives.
public protocol SubscriptionStore: Sendable {
    func subscriptions(_ search: SubscriptionSearch) -> any ListPager<SubscriptionListRow>
    /// The counts per state, and when they will next change, in one read.
    func subscriptionCountsAndNextChange(_ search: SubscriptionSearch) throws -> ([SubscriptionState: Int], Instant?)
    func subscriptionDetail(originalTransactionId id: String) throws -> (SubscriptionListRow, [SubscriptionEvent])?
    func subscriptionDemoSetup(userId: String, productId: String?, at instant: Instant) throws -> SubscriptionDemoSetup
    func recordSimulatedNotifications(_ events: [SubscriptionEvent], at now: Instant, rate: TimeRate) throws
        -> NotificationImport.Report
}

/// A game's login entries.
public protocol LoginEntryStore: Sendable {
    func loginEntrySetup(appId: String, historyLimit: Int) throws -> LoginEntrySetup
    @discardableResult
    func setLoginEntries(
        _ entries: [LoginEntry]?, appId: String, by staff: StaffMember, surface: String, at now: Instant
    ) throws -> LoginEntryHistory?
}

/// The carrier's one-click login simulator kept in the store.
public protocol OneTapStore: Sendable {
    func oneTapLogin() throws -> OneTapLogin
    /// The simulator's clock: the store's clock (else `wall`) plus its own offset.
    func oneTapClock(wall: Instant) throws -> Instant
    /// One step against the kept simulator, kept in one transaction.
    func oneTap<T: Sendable>(by staff: StaffMember, wall: Instant, _ step: (inout OneTapLogin, Instant) throws -> T) throws -> T
}
