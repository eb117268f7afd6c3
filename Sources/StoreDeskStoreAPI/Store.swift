import StoreDeskCore

/// A whole store: what the console reads and writes (`ConsoleStore`) and what the commands, `serve`,
/// `simulate`, imports and `check` need beside it, one protocol per area. Every caller outside the
/// backends reaches a store through this protocol (or one of its parts); only the opener
/// (`StoreDeskOpener.StoreOpener`) names a backend. `AppDatabase` (SQLite through GRDB) implements it.
public protocol Store: ConsoleStore, AppsStore, CatalogueStore, TrustRootStore, NotificationImportStore, GameServerStore,
    StoreChecking, StoreTimeLine, PlayerLookup, RestoreDeskStore, AuditLogStore, AppleAPIStore,
    AppStoreServerStore, NotificationHistoryStore, AppleSupportStore, NotificationSendStore
{}

/// How a caller means to use a store.
public enum StoreAccess: Sendable, Equatable {
    /// Reads only.
    case readOnly
    /// Reads and writes, one at a time (a command).
    case readWrite
    /// Reads beside one writer, for a long-lived process that reads while it writes (the console).
    case readWriteConcurrent
}

/// The apps a store holds, and their settings.
public protocol AppsStore: Sendable {
    /// One app, or nil when the store has none with that id.
    func app(id: String) throws -> App?
    /// Every app with what the store holds for it, in id order.
    func appOverviews() throws -> [AppOverview]
    /// One app with what the store holds for it; throws `StoreError.invalidArgument` naming the known apps
    /// when there is no such app.
    func appOverview(id: String) throws -> AppOverview
    /// Adds an app with an audit line, in one transaction. Only a developer may; an id already taken is
    /// refused and nothing is written.
    func addApp(_ app: App, by staff: StaffMember, at now: Instant) throws
    /// Changes an app's settings with an audit line; the app before and after, or nil when nothing changed.
    @discardableResult
    func updateApp(id: String, _ settings: AppSettings, by staff: StaffMember, at now: Instant) throws -> (old: App, new: App)?
    /// Every app with its products, for a game server that looks apps up by `client_id`.
    func appsWithProducts() throws -> [(app: App, products: [Product])]
}

/// Apps' catalogues: products, and the StoreKit configuration they came from.
public protocol CatalogueStore: Sendable {
    /// The catalogue of one app; throws `StoreError.invalidArgument` naming the known apps when there is none.
    func catalogue(appId: String) throws -> AppCatalogue
    /// The time rate an app's StoreKit configuration runs subscriptions at, nil when it has none.
    func storeKitTimeRate(appId: String) throws -> StoreKitTimeRate?
    /// Imports a StoreKit configuration as `appId`'s catalogue, in one transaction with an audit line;
    /// refused whole (nothing written) for a conflict, an unknown app, a read-only store or a non-developer.
    func importCatalogue(
        _ configuration: StoreKitConfiguration, appId: String, source: String, by staff: StaffMember, at now: Instant
    ) throws -> CatalogueImport.Report
    /// One product, by id.
    func product(id: String) throws -> Product?
}

/// The roots App Store signed data is validated to.
public protocol TrustRootStore: Sendable {
    /// The roots, oldest first.
    func trustRoots() throws -> [TrustedRoot]
    /// The roots with how many stored notifications each verified.
    func trustRootUses() throws -> [TrustRootUse]
    /// Trusts a root from now on, with an audit line. Only a developer may; a root already trusted is refused.
    @discardableResult
    func addTrustRoot(_ root: TrustedRoot, by staff: StaffMember, at now: Instant) throws -> TrustedRoot
    /// Stops trusting a root (by id or SHA-256), with an audit line. Only a developer may.
    func removeTrustRoot(_ key: String, by staff: StaffMember, at now: Instant) throws -> TrustedRoot
}

/// App Store notifications: imports, and what the store keeps of a player's subscriptions.
public protocol NotificationImportStore: Sendable {
    /// Imports a JSON Lines file of notifications in one transaction: each line judged (decoded, its
    /// signature verified against the store's roots and `extraRoots`, checked against the catalogue),
    /// then written in file order; `each` hears every line's fate. Stamped at `stampAt` on the store's time
    /// line, else at the store's instant. Throws `StoreError.dataFile` (the store untouched) when no line
    /// is a notification.
    func importNotifications(
        from file: NotificationFile, extraRoots: [TrustedRoot], allowUnverified: Bool, source: String,
        wallClock: Instant, stampAt: Instant?, each: (NotificationImport.Line) -> Void
    ) throws -> NotificationImport.Report
    /// One notification `serve` received (`POST /notifications`, its `signedPayload`), imported as
    /// `importNotifications` would a one-line file of it (the store's roots only, unverified refused),
    /// stamped at `stampAt` or later; the line's fate, nil when it was no line. Awaited: the backend runs
    /// it off the caller's thread. Throws `StoreError.dataFile` when it is no notification.
    func receiveNotification(signedPayload jws: String, source: String, wallClock: Instant, stampAt: Instant) async throws
        -> NotificationImport.Line?
    /// A player's subscription rows and their notifications.
    func subscriptionRecords(userId: String) throws -> SubscriptionRecords
    /// The player a `subs` argument names: a user id, or the original transaction id of a subscription.
    func subscriber(named text: String) throws -> String
}

extension NotificationImportStore {
    public func importNotifications(
        from file: NotificationFile, extraRoots: [TrustedRoot] = [], allowUnverified: Bool = false, source: String,
        wallClock: Instant, stampAt: Instant? = nil
    ) throws -> NotificationImport.Report {
        try importNotifications(
            from: file, extraRoots: extraRoots, allowUnverified: allowUnverified, source: source, wallClock: wallClock,
            stampAt: stampAt, each: { _ in })
    }
}

/// The books of the game server `storedesk serve` plays.
public protocol GameServerStore: Sendable {
    /// Starts the ledger that decides and commits genuine callbacks (group commits on a writer of its
    /// own), its clock at the store's instant now. Close it once the server stopped taking requests.
    func openCallbackLedger() throws -> any CallbackLedger
    /// The game server's grants, oldest first.
    func gameServerGrants() throws -> [GameServerGrant]
    /// How many callbacks the game server answered success: granted, and repeats.
    func gameServerCallbackCounts() throws -> (granted: Int, duplicate: Int)
}

/// Decides each genuine callback with `GrantRule` inside a write (so two processes, or two requests,
/// never grant one order twice) and commits before the caller replies.
public protocol CallbackLedger: AnyObject, Sendable {
    /// The instant on the store's time line now, for a callback's `receivedAt`.
    var now: Instant { get }
    /// Decides and commits one callback; returns once the commit is durable (or throws, nothing stored).
    func record(_ callback: ReceivedCallback) async throws -> GrantDecision
    /// Decides and commits one callback, then calls `then` with the decision (durable by then) or the
    /// error (nothing stored), for a caller that must not wait.
    func submit(_ callback: ReceivedCallback, then: @escaping @Sendable (Result<GrantDecision, any Error>) -> Void)
    /// Commits what is waiting, then stops; returns once it has.
    func close()
}

/// `storedesk check`: the store's own integrity and the domain's invariants.
public protocol StoreChecking: Sendable {
    /// Every violation found; empty for a clean store. Damage that stops the read is itself a violation.
    func check() throws -> [StoreCheckViolation]
}

/// One problem `check` found.
public struct StoreCheckViolation: Hashable, Sendable, Codable {
    /// A stable name for the kind of problem, for scripts.
    public var kind: String
    /// The row it concerns (an order id, a transaction id, a table), when there is one.
    public var subject: String
    public var message: String

    public init(kind: String, subject: String, message: String) {
        self.kind = kind
        self.subject = subject
        self.message = message
    }
}

/// The store's one time line.
public protocol StoreTimeLine: Sendable {
    /// The instant a command answers and stamps at: the store's own clock when it keeps one, else `wall`,
    /// never before the latest stamp the store holds.
    func now(wall: Instant) throws -> StoreNow
    /// Remembers that time reached `instant` (a console closing at the clock its header showed): the
    /// store's clock, or its latest stamp, moves up to it, never back.
    func remember(clock instant: Instant) throws
}

/// Players by id or by name.
public protocol PlayerLookup: Sendable {
    func user(id: String) throws -> User?
    /// Players whose name, id or phone matches `text`, at most `limit`.
    func searchUsers(_ text: String, limit: Int) throws -> [User]
}

/// The restore desk's reads and writes beyond the console's (`RestoreStore`).
public protocol RestoreDeskStore: Sendable {
    /// Prompts oldest first, `status` nil for all, `environment` (of their purchase) nil for all, from after `cursor`.
    func restorePrompts(status: RestoreStatus?, environment: StoreEnvironment?, limit: Int, after cursor: RestoreCursor?) throws
        -> [RestorePrompt]
    /// Restore Purchases for one role: its past non-consumables and subscriptions come back as `restored`.
    func restorePurchases(for target: RestoreAccount, appId: String?, by staff: StaffMember, at now: Instant) throws
        -> RestorePurchases.Plan
}

/// The audit log as commands read it.
public protocol AuditLogStore: Sendable {
    /// Audit lines newest first (oldest first with `oldestFirst`), one page. `action` matches exactly or as
    /// a family (`restore` matches `restore.confirm`); `actor` exactly; `text` anywhere, ignoring case.
    func auditEntries(
        action: String?, actor: String?, text: String?, oldestFirst: Bool, anchor: KeysetAnchor, limit: Int
    ) throws -> [AuditEntry]
}

extension AuditLogStore {
    public func auditEntries(action: String? = nil, actor: String? = nil, text: String? = nil, limit: Int) throws -> [AuditEntry] {
        try auditEntries(action: action, actor: actor, text: text, oldestFirst: false, anchor: .first, limit: limit)
    }
}

extension RestoreDeskStore {
    public func restorePrompts(status: RestoreStatus?, limit: Int, after cursor: RestoreCursor? = nil) throws -> [RestorePrompt] {
        try restorePrompts(status: status, environment: nil, limit: limit, after: cursor)
    }

    public func restorePurchases(for target: RestoreAccount, by staff: StaffMember, at now: Instant) throws -> RestorePurchases.Plan {
        try restorePurchases(for: target, appId: nil, by: staff, at: now)
    }
}

// The console's areas as commands call them: the usual limits.
extension QueueStore {
    /// The users (at most 1,000), apps and products a simulation buys with.
    public func paymentCatalogue() throws -> PaymentCatalogue { try paymentCatalogue(userLimit: 1000) }
}

extension UserStore {
    /// The profile with the 10 latest transactions.
    public func profile(userId: String) throws -> UserProfile { try profile(userId: userId, recent: 10) }
}

extension LoginEntryStore {
    /// The setup with the 20 latest changes.
    public func loginEntrySetup(appId: String) throws -> LoginEntrySetup { try loginEntrySetup(appId: appId, historyLimit: 20) }
}

/// What `seed` wrote.
public struct SeedSummary: Sendable, Codable {
    public var users = 0
    public var gameAccounts = 0
    public var transactions = 0
    public var orders = 0
    public var grants = 0
    public var subscriptions = 0
    public var restoreRequests = 0

    public init() {}
}

/// A kind of store (a SQLite file, a PostgreSQL database): how a location becomes an opened store, and what is done to a
/// location rather than to an open store (a new synthetic store, whether it may be written). The opener
/// (`StoreDeskOpener.StoreOpener`) chooses one by the location; nothing else names a backend.
public protocol StoreBackend: Sendable {
    /// Opens the store at `location`. `verify` is what the caller needs of it before using it: a store
    /// it refuses is left as it was. Pending migrations are applied only with `migrate`.
    func open(
        _ location: String, access: StoreAccess, migrate: Bool, verifying verify: ((any Store) throws -> Void)?
    ) throws -> any Store
    /// Nil when this process may write the store at `location`; else why not (in words).
    func whyNotWritable(_ location: String) throws -> String?
    /// Refuses a location a new store may not be written to (one that holds a store, without `replacing`).
    func checkDestination(_ location: String, replacing: Bool) throws
    /// Writes a new synthetic store at `location` (refused when one is there, unless `replacing`); nothing
    /// is left at `location` when it fails. `progress` hears the number of users written so far.
    func seed(
        _ location: String, users: Int, seed: UInt64, catalogue: Catalogue, clock: Instant, replacing: Bool,
        progress: (Int) -> Void
    ) throws -> SeedSummary
    /// An error one of its stores threw, said in one line naming the store (never the backend's query or a
    /// row); nil for one that is not a store's.
    func storeError(for error: any Error, location: String) -> StoreError?
    /// The store at `location`, opened read-only, as rows to copy (`storedesk store copy --from`).
    func rowSource(_ location: String) throws -> any StoreRowSource
    /// Builds a new store at `location` holding every row of `source`, in one transaction: a copy that fails
    /// leaves the destination as it was (`storedesk store copy --to`).
    func build(_ location: String, from source: any StoreRowSource, replacing: Bool) throws -> StoreCopyReport
}
