import Foundation
import GRDB
import StoreDeskCore
import StoreDeskStoreAPI

/// The SQLite store's notification importer: the one importer (`NotificationImport.Run`) over a
/// transaction's cached statements (`SQLiteImportRows`), inside the caller's transaction.
///
///     try NotificationImporter(db: db, source: "notifications.jsonl", wallClock: Instant(Date())).run(lines)
typealias NotificationImporter = NotificationImport.Run<SQLiteImportRows>

extension NotificationImport.Run where R == SQLiteImportRows {
    /// An importer whose notifications are stamped on the store's time line: at `proposed` (the caller's
    /// clock on that line, e.g. `serve`'s ledger), else at the store's instant at `wallClock`, but never
    /// before the store's clock or latest stamp (`StoreMeta.stampInstant`). The time line reaches the
    /// stamp when the run has imported something; `wallClock` stays the real time, for judging.
    init(
        db: Database, source: String, wallClock: Instant, stampAt proposed: Instant? = nil, timeRate: TimeRate? = nil,
        clockAtLeast: Instant? = nil
    ) throws {
        let catalogue = NotificationImport.Catalogue(products: try Product.fetchAll(db), apps: try App.fetchAll(db))
        self.init(
            rows: try SQLiteImportRows(db, products: catalogue.products), source: source,
            importedAt: try StoreMeta.stampInstant(proposed ?? StoreMeta.now(in: db, wall: wallClock).instant, in: db),
            wallClock: wallClock, timeRate: timeRate, clockAtLeast: clockAtLeast, clock: try StoreMeta.clock(in: db),
            catalogue: catalogue)
    }
}

/// What the importer writes with on SQLite: cached statements, each prepared once a transaction.
///
/// The players an import makes are indexed at the end, not line by line (`DeferredUserSearch`); a
/// subscription row is written by the cheapest statement what is known of it allows (`SubscriptionRowStatement`).
final class SQLiteImportRows: NotificationImport.Rows {
    let db: Database
    let products: [String: Product]
    let search: DeferredUserSearch
    private let stored: Statement
    private let insertEvent: BulkInsert
    private let subscriptions: SubscriptionRowStatement
    private let storedRow: Statement
    private let events: Statement
    private let byToken: Statement
    private let byTransaction: Statement
    private let userExists: Statement
    private let insertUser: BulkInsert
    private let savepoints: [NotificationImport.Savepoint: [BulkInsert]]

    init(_ db: Database, products: [String: Product]) throws {
        self.db = db
        self.products = products
        search = try DeferredUserSearch(db)
        stored = try db.cachedStatement(sql: "SELECT id, source_line FROM subscription_event WHERE notification_uuid = ?")
        insertEvent = try BulkInsert(
            db,
            cachedSQL: """
                INSERT INTO subscription_event (notification_uuid, original_transaction_id, notification_type, subtype,
                  signed_date, transaction_id, product_id, provenance, root_sha256, root_subject, signer_subject,
                  signer_serial, payload, source, imported_at, source_line)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (notification_uuid) DO NOTHING
                """)
        subscriptions = try SubscriptionRowStatement(db)
        storedRow = try db.cachedStatement(
            sql: "SELECT user_id, app_id, product_id, time_rate_month_ms FROM subscription WHERE original_transaction_id = ?")
        events = try db.cachedStatement(
            sql: "SELECT \(SubscriptionEventRow.columns) FROM subscription_event WHERE original_transaction_id = ?")
        // `app_account_token` is unique.
        byToken = try db.cachedStatement(sql: "SELECT user_id FROM game_account WHERE app_account_token = ?")
        byTransaction = try db.cachedStatement(
            sql: "SELECT user_id FROM store_transaction WHERE original_transaction_id = ? ORDER BY purchase_date, id LIMIT 1")
        userExists = try db.cachedStatement(sql: "SELECT 1 FROM user WHERE id = ?")
        insertUser = try BulkInsert(
            db,
            cachedSQL: """
                INSERT INTO user (id, name, friendly_name, id_card, phone, site, adult_type, fcm, authoriz_state, safety,
                  client_id, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
        func sql(_ texts: String...) throws -> [BulkInsert] { try texts.map { try BulkInsert(db, cachedSQL: $0) } }
        savepoints = [
            .beginBatch: try sql("SAVEPOINT notification_batch"), .releaseBatch: try sql("RELEASE notification_batch"),
            .undoBatch: try sql("ROLLBACK TO notification_batch", "RELEASE notification_batch"),
            .beginLine: try sql("SAVEPOINT notification_line"), .releaseLine: try sql("RELEASE notification_line"),
            .undoLine: try sql("ROLLBACK TO notification_line", "RELEASE notification_line"),
        ]
    }

    func beginWriting() throws -> Int64 { try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM subscription_event") ?? 0 }

    func refusal(_ error: any Error) -> String? {
        guard let error = error as? DatabaseError, error.resultCode == .SQLITE_CONSTRAINT else { return nil }
        return error.message ?? "\(error.resultCode)"
    }

    func run(_ savepoint: NotificationImport.Savepoint) throws {
        for statement in savepoints[savepoint] ?? [] { try statement.insert { _ in } }
        // A rollback may have taken the search trigger's drop with it.
        if savepoint == .undoBatch || savepoint == .undoLine { search.lineRolledBack() }
    }

    func insert(_ taken: NotificationImport.Judged.Taken, line: Int, source: String, importedAt: Instant) throws -> Bool {
        let (event, transaction) = (taken.event, taken.transaction)
        return try insertEvent.run { bind in
            bind.text(event.notificationUUID)
            bind.text(transaction.originalTransactionId)
            bind.text(event.notificationType.rawValue)
            bind.text(event.subtype?.rawValue)
            bind.int(event.signedDate.millis)
            bind.text(transaction.transactionId)
            bind.text(transaction.productId)
            bind.text(event.provenance.rawValue)
            bind.text(event.signer?.rootSHA256)
            bind.text(event.signer?.rootSubject)
            bind.text(event.signer?.leafSubject)
            bind.text(event.signer?.leafSerial)
            bind.text(taken.payload)
            bind.text(source)
            bind.int(importedAt.millis)
            bind.int(Int64(line))
        } > 0
    }

    func storedEvent(uuid: String) throws -> (id: Int64, sourceLine: Int64?)? {
        guard let row = try Row.fetchOne(stored, arguments: [uuid]) else { return nil }
        return (try row.column("id"), try row.column("source_line"))
    }

    func storedChain(_ id: String) throws -> NotificationImport.StoredChain? {
        guard let row = try Row.fetchOne(storedRow, arguments: [id]) else { return nil }
        return NotificationImport.StoredChain(
            userId: try row.column("user_id"), appId: try row.column("app_id"), productId: try row.column("product_id"),
            rate: (try row.column("time_rate_month_ms") as Int64?).map { TimeRate(realMillisPerMonth: $0) })
    }

    func events(chain: String) throws -> [SubscriptionEvent] { try SubscriptionEventRow.events(events, chain: chain) }

    func recordBaseline(chain: String, except uuid: String, at now: Instant) throws {
        try SubscriptionBaselineRows.record(db, chain: chain, except: uuid, at: now)
    }

    func save(_ row: Subscription, stored: NotificationImport.StoredRow) throws { try subscriptions.save(row, stored: stored) }
    func owner(byToken token: String) throws -> String? { try String.fetchOne(byToken, arguments: [token]) }
    func owner(byTransaction id: String) throws -> String? { try String.fetchOne(byTransaction, arguments: [id]) }
    func userExists(_ id: String) throws -> Bool { try Bool.fetchOne(userExists, arguments: [id]) != nil }

    func insert(newUser user: User) throws {
        try search.beforeNewUser()
        try insertUser.insert { bind in
            bind.text(user.id)
            bind.text(user.name)
            bind.text(user.friendlyName)
            bind.text(user.idCard)
            bind.text(user.phone)
            bind.int(Int64(user.site.rawValue))
            bind.int(Int64(user.adultType.rawValue))
            bind.bool(user.fcm)
            bind.int(Int64(user.authorizState))
            bind.int(Int64(user.safety))
            bind.text(user.clientId)
            bind.int(user.createdAt.millis)
        }
    }

    func finishWriting() throws { try search.restore() }

    func moveClock(to instant: Instant) throws {
        try StoreMeta.set(.clock, String(instant.millis), in: db)
        try Self.settleRows(db, products: products, at: instant)
    }

    func advanceStamp(to instant: Instant) throws { try StoreMeta.advance(to: instant, in: db) }

    /// Writes again, as they stand at the moved clock `now`, the rows whose stored state it has left
    /// behind (a period, a grace period or billing retry ended), so `check` and the screens' SQL agree
    /// with what readers compute: a chain with notifications is folded again, any other row played forward.
    ///
    /// The rows are taken a page at a time, not all at once: a year of history leaves most of its chains
    /// behind the moved clock (400,000 rows after 2,000,000 lines), and holding them all was the import's
    /// peak memory, at its very end. Each state is walked along `subscription_on_state` (state,
    /// expires_date, key), so a small import into a big store reads only the rows it settles (`serve`
    /// imports one notification a request).
    static func settleRows(_ db: Database, products: [String: Product]? = nil, at now: Instant) throws {
        let products = try products ?? NotificationImport.Catalogue(products: try Product.fetchAll(db), apps: []).products
        let rows = try SubscriptionRowStatement(db)
        for pass in SubscriptionSettling.stalePasses(now: ":now") {
            let page = try db.cachedStatement(sql: """
                SELECT * FROM subscription
                WHERE state = :state AND \(pass.stale)
                  AND (expires_date, original_transaction_id) > (:expires, :after)
                ORDER BY expires_date, original_transaction_id
                LIMIT \(SubscriptionSettling.pageSize)
                """)
            var after: (expires: Int64, id: String) = (.min, "")
            while true {
                // A settled row leaves this state's stale range (or keeps its place in it), so the walk
                // goes on after the page's last row and meets no row twice.
                let stale = try Subscription.fetchAll(
                    page, arguments: ["state": pass.state, "now": now, "expires": after.expires, "after": after.id])
                guard let last = stale.last else { break }
                after = (last.expiresDate.millis, last.id)
                for row in stale {
                    let events = try SubscriptionEventRow.events(db, originalTransactionIds: [row.id])
                    if let settled = SubscriptionSettling.settled(row, events: events, product: products[row.productId], at: now) {
                        try rows.save(settled)
                    }
                }
            }
        }
    }

    /// The search index of the players an import makes, written once at the end instead of by the
    /// `user_search_insert` trigger line by line.
    ///
    /// With the trigger, every new player's trigrams wait in FTS5's memory, and FTS5 writes them out as a
    /// segment of their own at the next savepoint, which is the next line's: a third of a decoded import's
    /// writing went into those tiny segments and their merges. So before the import makes its first
    /// player the trigger is dropped (inside the import's transaction: a failed import, or a line rolled
    /// back, rolls the drop back with everything else), and at the end the players added are indexed by
    /// one statement, as the trigger would have indexed them, and the trigger is made again from its own
    /// SQL. An import that makes no player leaves the schema alone (a store with nothing imported stays
    /// byte for byte as it was).
    final class DeferredUserSearch {
        let db: Database
        /// The rowid the first player made by this import gets.
        let firstNewRowid: Int64
        /// The trigger's `CREATE TRIGGER` text, once this import dropped it.
        private var triggerSQL: String?
        /// Whether the trigger is known to be dropped now (false after a line rolled back: looked up again).
        private var dropped = false

        init(_ db: Database) throws {
            self.db = db
            firstNewRowid = (try Int64.fetchOne(db, sql: "SELECT MAX(rowid) FROM user") ?? 0) + 1
        }

        /// Before a player is inserted: drops the trigger if it is there.
        func beforeNewUser() throws {
            guard !dropped else { return }
            if let sql = try Self.trigger(db) {
                triggerSQL = sql
                try db.execute(sql: "DROP TRIGGER user_search_insert")
            }
            dropped = true
        }

        /// After a line rolled back (its drop may have gone with it).
        func lineRolledBack() { dropped = false }

        /// Indexes the players added while the trigger was dropped and makes it again.
        func restore() throws {
            guard let triggerSQL, try Self.trigger(db) == nil else { return }
            // One statement a slice of players: a single statement over every player an import made
            // (400,000 after 2,000,000 lines) grew the process by 26 MB before it finished, the import's
            // peak memory; a slice at a time, the end adds nothing to the peak of the lines before it.
            let last = try Int64.fetchOne(db, sql: "SELECT MAX(rowid) FROM user") ?? 0
            let index = try db.cachedStatement(sql: """
                INSERT INTO user_search(rowid, id, name, friendly_name)
                SELECT rowid, id, name, friendly_name FROM user WHERE rowid >= ? AND rowid < ? ORDER BY rowid
                """)
            for start in stride(from: firstNewRowid, through: last, by: Self.indexSlice) {
                try index.execute(arguments: [start, start + Int64(Self.indexSlice)])
            }
            try db.execute(sql: triggerSQL)
        }

        /// How many players one indexing statement takes.
        static let indexSlice = 4_096

        private static func trigger(_ db: Database) throws -> String? {
            try String.fetchOne(
                db, sql: "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = 'user_search_insert' AND tbl_name = 'user'")
        }
    }
}

/// Writes a `subscription` row whole (inserting or replacing it) on cached statements.
///
/// The upsert is right whatever the store holds, but SQLite checks its foreign keys and opens a statement
/// journal for it every time (the `DO UPDATE` may change them): a third of a decoded import's writing.
/// When the writer knows the row is not there, a plain insert does; when it knows the row is there with the
/// same owner, app and product, an update of the other columns does, with no foreign key to check.
struct SubscriptionRowStatement {
    let upsert: BulkInsert
    let insert: BulkInsert
    let update: BulkInsert

    /// What the writer knows of a chain's stored row.
    typealias Stored = NotificationImport.StoredRow

    static let columns = """
        original_transaction_id, user_id, app_id, product_id, group_id, state, auto_renew,
          original_purchase_date, purchase_date, expires_date, grace_period_expires_date, revocation_date,
          revocation_reason, expiration_intent, offer_type, offer_id, time_rate_month_ms, apple_revocation_reason
        """

    init(_ db: Database) throws {
        insert = try BulkInsert(
            db,
            cachedSQL: "INSERT INTO subscription (\(Self.columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
        // The same eighteen arguments as the inserts (the keys ?2, ?3 and ?4 bound but not used).
        update = try BulkInsert(
            db,
            cachedSQL: """
                UPDATE subscription SET group_id = ?5, state = ?6, auto_renew = ?7, original_purchase_date = ?8,
                  purchase_date = ?9, expires_date = ?10, grace_period_expires_date = ?11, revocation_date = ?12,
                  revocation_reason = ?13, expiration_intent = ?14, offer_type = ?15, offer_id = ?16,
                  time_rate_month_ms = ?17, apple_revocation_reason = ?18
                WHERE original_transaction_id = ?1
                """)
        upsert = try BulkInsert(
            db,
            cachedSQL: """
                INSERT INTO subscription (\(Self.columns))
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (original_transaction_id) DO UPDATE SET
                  user_id = excluded.user_id, app_id = excluded.app_id, product_id = excluded.product_id,
                  group_id = excluded.group_id, state = excluded.state, auto_renew = excluded.auto_renew,
                  original_purchase_date = excluded.original_purchase_date, purchase_date = excluded.purchase_date,
                  expires_date = excluded.expires_date, grace_period_expires_date = excluded.grace_period_expires_date,
                  revocation_date = excluded.revocation_date, revocation_reason = excluded.revocation_reason,
                  expiration_intent = excluded.expiration_intent, offer_type = excluded.offer_type,
                  offer_id = excluded.offer_id, time_rate_month_ms = excluded.time_rate_month_ms,
                  apple_revocation_reason = excluded.apple_revocation_reason
                """)
    }

    /// Writes `row`, by the statement what is `stored` allows.
    func save(_ row: Subscription, stored: Stored = .unknown) throws {
        switch stored {
        case .none: try insert.insert { Self.bind(row, &$0) }
        case .row(let userId, let appId, let productId)
        where userId == row.userId && appId == row.appId && productId == row.productId:
            if try update.run({ Self.bind(row, &$0) }) > 0 { return }
            // Not there after all: the upsert, as when nothing is known.
            try upsert.insert { Self.bind(row, &$0) }
        case .unknown, .row: try upsert.insert { Self.bind(row, &$0) }
        }
    }

    /// The row's eighteen columns, in `columns` order.
    private static func bind(_ row: Subscription, _ bind: inout BulkInsert.Binder) {
        bind.text(row.id)
        bind.text(row.userId)
        bind.text(row.appId)
        bind.text(row.productId)
        bind.text(row.groupId)
        bind.text(row.state.rawValue)
        bind.bool(row.autoRenew)
        bind.int(row.originalPurchaseDate.millis)
        bind.int(row.purchaseDate.millis)
        bind.int(row.expiresDate.millis)
        bind.int(row.gracePeriodExpiresDate?.millis)
        bind.int(row.revocationDate?.millis)
        bind.text(row.revocationReason)
        bind.text(row.expirationIntent)
        bind.text(row.offerType)
        bind.text(row.offerId)
        bind.int(row.timeRateMillisPerMonth)
        bind.int(row.appleRevocationReason.map(Int64.init))
    }
}

/// One `subscription_event` row read back: the notification as Apple's JSON, and how it was trusted.
enum SubscriptionEventRow {
    static let columns = "provenance, root_sha256, root_subject, signer_subject, signer_serial, payload, source"

    /// The notifications of these chains, decoded, with their provenance.
    static func events(_ db: Database, originalTransactionIds: [String]) throws -> [SubscriptionEvent] {
        guard !originalTransactionIds.isEmpty else { return [] }
        let marks = Array(repeating: "?", count: originalTransactionIds.count).joined(separator: ", ")
        let rows = try Row.fetchAll(
            db, sql: "SELECT \(columns) FROM subscription_event WHERE original_transaction_id IN (\(marks)) ORDER BY id",
            arguments: StatementArguments(originalTransactionIds))
        return try rows.map(decode(row:))
    }

    /// One chain's notifications through a cached statement (`SELECT columns ... WHERE original_transaction_id = ?`).
    static func events(_ statement: Statement, chain: String) throws -> [SubscriptionEvent] {
        try Row.fetchAll(statement, arguments: [chain]).map(decode(row:))
    }

    static func decode(row: Row) throws -> SubscriptionEvent {
        // `column` throws where `row["…"]` traps: a store edited by hand can hold a number or a blob here.
        let provenance: String = try row.column("provenance")
        do {
            var event = try SubscriptionEvent.decode(jsonLine: try row.column("payload") as String)
            event.provenance = SubscriptionEvent.Provenance(rawValue: provenance) ?? .unverifiedJWS
            event.origin = SubscriptionEvent.Origin(source: try row.column("source"))
            if event.provenance == .verified, let root: String = try row.column("root_sha256") {
                event.signer = Signer(
                    rootSHA256: root, rootSubject: try row.column("root_subject") ?? "", leafSubject: try row.column("signer_subject") ?? "",
                    leafSerial: try row.column("signer_serial") ?? "")
            }
            return event
        } catch {
            throw StoreError.invalidArgument("a stored notification cannot be read back: \(error)")
        }
    }
}
