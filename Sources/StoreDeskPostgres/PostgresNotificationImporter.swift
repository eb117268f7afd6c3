import Foundation
import PostgresNIO
import StoreDeskCore
import StoreDeskStoreAPI

/// The team store's notification importer: the one importer (`NotificationImport.Run`) over the caller's
/// transaction (`PostgresImportRows`). The store's clock is locked for the whole import.
typealias PostgresNotificationImporter = NotificationImport.Run<PostgresImportRows>

extension NotificationImport.Run where R == PostgresImportRows {
    init(
        store: PostgresStore, db: PostgresSession.Transaction, source: String, wallClock: Instant, stampAt proposed: Instant? = nil,
        timeRate: TimeRate? = nil, clockAtLeast: Instant? = nil
    ) throws {
        let (clock, floor) = try store.clockRows(db, locking: true)
        let proposed = proposed ?? StoreNow.resolve(storeClock: clock, floor: floor, wall: wallClock).instant
        self.init(
            rows: PostgresImportRows(store: store, db: db), source: source,
            importedAt: max(proposed, StoreNow.resolve(storeClock: clock, floor: floor, wall: proposed).instant),
            wallClock: wallClock, timeRate: timeRate, clockAtLeast: clockAtLeast, clock: clock,
            catalogue: NotificationImport.Catalogue(
                products: try db.rows("SELECT * FROM product").map { try store.cells($0).product() },
                apps: try db.rows("SELECT * FROM app").map { try store.cells($0).app() }))
    }
}

/// What the importer writes with on PostgreSQL: the caller's transaction, with the notification log held
/// (`holdEventLog`) from before the first id is read.
struct PostgresImportRows: NotificationImport.Rows {
    let store: PostgresStore
    let db: PostgresSession.Transaction

    func beginWriting() throws -> Int64 {
        try store.holdEventLog(db)
        return try db.rows("SELECT coalesce(max(id), 0) FROM subscription_event").first?.decode(Int64.self) ?? 0
    }

    /// A constraint the line's values break (class 23): the line's refusal, not the store's failure.
    func refusal(_ error: any Error) -> String? {
        guard let error = error as? PSQLError, error.serverInfo?[.sqlState]?.hasPrefix("23") == true else { return nil }
        return error.serverInfo?[.message] ?? "a constraint"
    }

    func run(_ savepoint: NotificationImport.Savepoint) throws {
        switch savepoint {
        case .beginBatch: try db.run("SAVEPOINT notification_batch")
        case .releaseBatch: try db.run("RELEASE notification_batch")
        case .undoBatch:
            try db.run("ROLLBACK TO notification_batch")
            try db.run("RELEASE notification_batch")
        case .beginLine: try db.run("SAVEPOINT notification_line")
        case .releaseLine: try db.run("RELEASE notification_line")
        case .undoLine:
            try db.run("ROLLBACK TO notification_line")
            try db.run("RELEASE notification_line")
        }
    }

    func insert(_ taken: NotificationImport.Judged.Taken, line: Int, source: String, importedAt: Instant) throws -> Bool {
        let (event, transaction) = (taken.event, taken.transaction)
        return try !db.rows(
            """
            INSERT INTO subscription_event (notification_uuid, original_transaction_id, notification_type, subtype, signed_date,
              transaction_id, product_id, provenance, root_sha256, root_subject, signer_subject, signer_serial, payload, source,
              imported_at, source_line)
            VALUES (\(event.notificationUUID), \(transaction.originalTransactionId), \(event.notificationType.rawValue),
              \(event.subtype?.rawValue), \(event.signedDate.millis), \(transaction.transactionId), \(transaction.productId),
              \(event.provenance.rawValue), \(event.signer?.rootSHA256), \(event.signer?.rootSubject), \(event.signer?.leafSubject),
              \(event.signer?.leafSerial), \(taken.payload), \(source), \(importedAt.millis), \(Int64(line)))
            ON CONFLICT (notification_uuid) DO NOTHING RETURNING id
            """
        ).isEmpty
    }

    func storedEvent(uuid: String) throws -> (id: Int64, sourceLine: Int64?)? {
        try db.rows("SELECT id, source_line FROM subscription_event WHERE notification_uuid = \(uuid)").first?.decode((Int64, Int64?).self)
    }

    func storedChain(_ id: String) throws -> NotificationImport.StoredChain? {
        try db.rows("SELECT user_id, app_id, product_id, time_rate_month_ms FROM subscription WHERE original_transaction_id = \(id)")
            .first.map { row in
                let (user, app, product, rate) = try row.decode((String, String, String, Int64?).self)
                return NotificationImport.StoredChain(
                    userId: user, appId: app, productId: product, rate: rate.map { TimeRate(realMillisPerMonth: $0) })
            }
    }

    func events(chain: String) throws -> [SubscriptionEvent] { try store.chainEvents([chain], db)[chain] ?? [] }

    func recordBaseline(chain: String, except uuid: String, at now: Instant) throws {
        try store.recordBaseline(db, chain: chain, except: uuid, at: now)
    }

    func save(_ row: Subscription, stored: NotificationImport.StoredRow) throws { try store.saveSubscriptions([row], db) }

    func owner(byToken token: String) throws -> String? {
        try db.rows("SELECT user_id FROM game_account WHERE app_account_token = \(token) ORDER BY id LIMIT 1").first?.decode(String.self)
    }

    func owner(byTransaction id: String) throws -> String? {
        try db.rows(
            #"SELECT user_id FROM store_transaction WHERE original_transaction_id = \#(id) ORDER BY purchase_date, id COLLATE "C" LIMIT 1"#
        ).first?.decode(String.self)
    }

    func userExists(_ id: String) throws -> Bool { try !db.rows(#"SELECT 1 FROM "user" WHERE id = \#(id)"#).isEmpty }

    func insert(newUser user: User) throws {
        try db.run(
            #"""
            INSERT INTO "user" (id, name, friendly_name, id_card, phone, site, adult_type, fcm, authoriz_state, safety, client_id, created_at)
            VALUES (\#(user.id), \#(user.name), \#(user.friendlyName), \#(user.idCard), \#(user.phone), \#(Int64(user.site.rawValue)),
              \#(Int64(user.adultType.rawValue)), \#(user.fcm ? Int64(1) : 0), \#(Int64(user.authorizState)), \#(Int64(user.safety)),
              \#(user.clientId), \#(user.createdAt.millis))
            """#)
    }

    func finishWriting() throws {}
    func moveClock(to instant: Instant) throws { try store.advance(to: instant, source: .store, db) }
    func advanceStamp(to instant: Instant) throws { try store.advance(to: instant, db) }
}
