import Foundation
import GRDB
import StoreDeskCore
import StoreDeskStoreAPI

extension AppDatabase: AppleAPIStore {
    public func signer() throws -> StoredSigner? {
        try reader.read { db in try Self.signer(db) }
    }

    static func signer(_ db: Database) throws -> StoredSigner? {
        try AppleAPIProcedures.signer(SQLiteTransaction(db: db, store: db.description))
    }

    public func saveSigner(_ signer: StoredSigner, replacing: Bool, by staff: StaffMember, at now: Instant) throws
        -> (signer: StoredSigner, created: Bool)
    {
        try AppleAPIWrites.check(staff, .editTrustRoots, readOnly: isReadOnly, what: "the signing chain was")
        return try writeImmediate { db in try AppleAPIProcedures.saveSigner(procedures(db), signer, replacing: replacing, by: staff, at: now) }
    }

    public func appAPIKeys(appId: String?) throws -> [AppAPIKey] {
        try reader.read { db in try AppleAPIProcedures.apiKeys(procedures(db), appId: appId) }
    }

    @discardableResult
    public func setAppAPIKey(_ key: AppAPIKey, by staff: StaffMember, at now: Instant) throws -> AppAPIKey? {
        try AppleAPIWrites.check(staff, .editApps, readOnly: isReadOnly, what: "the API key was")
        return try writeImmediate { db in try AppleAPIProcedures.setAPIKey(procedures(db), key, by: staff, at: now) }
    }
}

extension AppDatabase: AppStoreServerStore {
    /// Every request of the App Store Server API reads a customer: its statements are prepared once a
    /// connection (GRDB's statement cache), not parsed and authorized again each time.
    public func appStoreCustomer(transactionId: String) throws -> AppStoreCustomer? {
        try reader.read { db in
            func statement(_ sql: String) throws -> Statement { try db.cachedStatement(sql: sql) }
            guard let asked = try StoreTransaction.fetchOne(statement("SELECT * FROM store_transaction WHERE id = ?"), arguments: [transactionId]),
                let app = try App.fetchOne(statement("SELECT * FROM app WHERE id = ?"), arguments: [asked.appId])
            else { return nil }
            let owner: StatementArguments = [asked.userId, app.id]
            let accounts = try Row.fetchAll(
                statement("SELECT sid, role_id, app_account_token FROM game_account WHERE user_id = ? AND app_id = ? ORDER BY id"), arguments: owner
            ).map { row in (sid: try row.column("sid") as String, roleId: try row.column("role_id") as String, token: try row.column("app_account_token") as String) }
            var tokens: [String: String] = [:]
            for row in try Row.fetchAll(
                statement(
                    """
                    SELECT t.original_transaction_id, t.app_account_token FROM apple_app_account_token t
                    JOIN store_transaction s ON s.id = t.original_transaction_id WHERE s.user_id = ? AND s.app_id = ?
                    """), arguments: owner)
            {
                tokens[try row.column("original_transaction_id")] = try row.column("app_account_token")
            }
            return AppStoreCustomer.assemble(
                asked: asked, app: app,
                transactions: try StoreTransaction.fetchAll(
                    statement("SELECT * FROM store_transaction WHERE user_id = ? AND app_id = ? ORDER BY purchase_date, id"), arguments: owner),
                products: try Product.fetchAll(statement("SELECT * FROM product WHERE app_id = ?"), arguments: [app.id]),
                accounts: accounts, tokens: tokens,
                subscriptions: try Subscription.fetchAll(
                    statement("SELECT * FROM subscription WHERE user_id = ? AND app_id = ? ORDER BY original_transaction_id"), arguments: owner))
        }
    }

    /// A request's rows in SQL (`AppStoreSlicePlan`): the page on its index, then what its payloads read, by id.
    public func appStoreSlice(transactionId: String, _ read: AppStoreSliceRead, limit: Int) throws -> AppStoreHistorySlice? {
        try reader.read { db -> AppStoreHistorySlice? in
            func fetch<Record: FetchableRecord>(_ statement: (sql: String, arguments: [FindValue]), as _: Record.Type) throws -> [Record] {
                try Record.fetchAll(try db.cachedStatement(sql: statement.sql), arguments: StatementArguments(statement.arguments))
            }
            func rawRows(_ statement: (sql: String, arguments: [FindValue])) throws -> [Row] {
                try Row.fetchAll(try db.cachedStatement(sql: statement.sql), arguments: StatementArguments(statement.arguments))
            }
            guard let asked = try StoreTransaction.fetchOne(
                try db.cachedStatement(sql: "SELECT * FROM store_transaction WHERE id = ?"), arguments: [transactionId]),
                let app = try App.fetchOne(try db.cachedStatement(sql: "SELECT * FROM app WHERE id = ?"), arguments: [asked.appId])
            else { return nil }
            let rows = try AppStoreSlicePlan.rows(read, asked: asked, limit: limit).map { try fetch($0, as: StoreTransaction.self) } ?? [asked]
            let context = AppStoreSlicePlan.context(rows: rows, asked: asked)
            let originals = try context.originals.map { try fetch($0, as: StoreTransaction.self) } ?? []
            let accounts = try rawRows(context.accounts).map { row in
                (sid: try row.column("sid") as String, roleId: try row.column("role_id") as String, token: try row.column("app_account_token") as String)
            }
            var tokens: [String: String] = [:]
            for row in try rawRows(context.tokens) {
                tokens[try row.column("original_transaction_id")] = try row.column("app_account_token")
            }
            return AppStoreSlicePlan.slice(
                asked: asked, app: app, rows: rows, originals: originals,
                products: try fetch(AppStoreSlicePlan.products(rows + originals), as: Product.self), accounts: accounts, tokens: tokens,
                subscriptions: try fetch(context.subscriptions, as: Subscription.self))
        }
    }

    public func massExtension(appId: String, productId: String, requestIdentifier: String) throws -> MassRenewalExtensionStatus? {
        try reader.read { db in
            try AppleAPIProcedures.massExtension(procedures(db), appId: appId, productId: productId, requestIdentifier: requestIdentifier)
        }
    }

    public func keepMassExtension(_ status: MassRenewalExtensionStatus, appId: String, productId: String, actor: AuditActor) throws
        -> MassRenewalExtensionStatus
    {
        try writeImmediate { db in try AppleAPIProcedures.keepMassExtension(procedures(db), status, appId: appId, productId: productId, actor: actor) }
    }

    public func setAppAccountToken(_ token: String, originalTransactionId: String, actor: AuditActor, at now: Instant) throws {
        try writeImmediate { db in
            try AppleAPIProcedures.setAppAccountToken(procedures(db), token, originalTransactionId: originalTransactionId, actor: actor, at: now)
        }
    }
}

extension AppDatabase {
    public func extendRenewalDate(
        originalTransactionId: String, _ request: RenewalExtensionRequest, actor: AuditActor, at now: Instant
    ) throws -> RenewalExtension? {
        try writeImmediate { db in
            try AppleSupportProcedures.extendRenewalDate(procedures(db), originalTransactionId: originalTransactionId, request, actor: actor, at: now)
        }
    }
}

extension AppDatabase: NotificationHistoryStore {
    public func appNotifications(appId: String, _ query: NotificationHistoryQuery, limit: Int) throws -> [(id: Int64, event: SubscriptionEvent)] {
        try reader.read { db in
            var conditions = ["coalesce(s.app_id, t.app_id) = ?", "e.signed_date >= ?", "e.signed_date < ?", "e.id > ?", NotificationSends.appleSentSQL]
            var arguments: [any DatabaseValueConvertible] = [appId, query.startDate.millis, query.endDate.millis, query.after ?? 0]
            if let type = query.notificationType {
                conditions.append("e.notification_type = ?")
                arguments.append(type)
                if let subtype = query.notificationSubtype {
                    conditions.append("e.subtype = ?")
                    arguments.append(subtype)
                }
            }
            if let transactionId = query.transactionId {
                // Any transaction of the customer: its chain's notifications.
                guard let original = try String.fetchOne(
                    db, sql: "SELECT original_transaction_id FROM store_transaction WHERE id = ?", arguments: [transactionId])
                else { return [] }
                conditions.append("e.original_transaction_id = ?")
                arguments.append(original)
            }
            if query.onlyFailures {
                // Apple's "haven't reached your server successfully": sent, and no attempt got a 2xx.
                conditions.append("EXISTS (SELECT 1 FROM notification_delivery d WHERE d.event_id = e.id AND d.state <> 'delivered' AND d.attempts > 0)")
            }
            arguments.append(limit)
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT e.id AS event_id, \(SubscriptionEventRow.columns) FROM subscription_event e
                    LEFT JOIN subscription s ON s.original_transaction_id = e.original_transaction_id
                    LEFT JOIN store_transaction t ON s.original_transaction_id IS NULL AND t.id = e.original_transaction_id
                    WHERE \(conditions.joined(separator: " AND ")) ORDER BY e.id LIMIT ?
                    """, arguments: StatementArguments(arguments))
            return try rows.map { (id: try $0.column("event_id") as Int64, event: try SubscriptionEventRow.decode(row: $0)) }
        }
    }
}
