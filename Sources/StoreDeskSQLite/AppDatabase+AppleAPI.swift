import Foundation
import GRDB
import StoreDeskCore
import StoreDeskStoreAPI

extension StoredSigner {
    init(row: Row) throws {
        func bytes(_ column: String) throws -> [UInt8] { Array(try row.decode(forColumn: column) as Data) }
        self.init(
            chain: SigningChainDER(
                leafDER: try bytes("leaf_der"), intermediateDER: try bytes("intermediate_der"), rootDER: try bytes("root_der"),
                leafKeyDER: try bytes("leaf_key"), intermediateKeyDER: try bytes("intermediate_key"), rootKeyDER: try bytes("root_key")),
            rootSHA256: try row.decode(forColumn: "root_sha256"), createdAt: try row.decode(forColumn: "created_at"),
            createdBy: try row.decode(forColumn: "created_by"))
    }
}

extension AppAPIKey {
    init(row: Row) throws {
        self.init(
            appId: try row.decode(forColumn: "app_id"), keyId: try row.decode(forColumn: "key_id"),
            issuerId: try row.decode(forColumn: "issuer_id"), publicKeyDER: Array(try row.decode(forColumn: "public_key") as Data),
            addedAt: try row.decode(forColumn: "added_at"), addedBy: try row.decode(forColumn: "added_by"))
    }
}

extension AppDatabase: AppleAPIStore {
    public func signer() throws -> StoredSigner? {
        try reader.read { db in try Self.signer(db) }
    }

    static func signer(_ db: Database) throws -> StoredSigner? {
        try Row.fetchOne(db, sql: "SELECT * FROM signer WHERE id = 1").map(StoredSigner.init(row:))
    }

    public func saveSigner(_ signer: StoredSigner, replacing: Bool, by staff: StaffMember, at now: Instant) throws
        -> (signer: StoredSigner, created: Bool)
    {
        try AppleAPIWrites.check(staff, .editTrustRoots, readOnly: isReadOnly, what: "the signing chain was")
        return try writeImmediate { db in
            let old = try Self.signer(db)
            if let old, !replacing { return (old, false) }
            let now = try StoreMeta.stamp(now, in: db)
            var stored = signer
            stored.createdAt = now
            stored.createdBy = staff.name
            try db.execute(
                sql: """
                    INSERT OR REPLACE INTO signer (id, leaf_der, intermediate_der, root_der, leaf_key, intermediate_key, root_key,
                      root_sha256, created_at, created_by) VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    Data(signer.chain.leafDER), Data(signer.chain.intermediateDER), Data(signer.chain.rootDER),
                    Data(signer.chain.leafKeyDER), Data(signer.chain.intermediateKeyDER), Data(signer.chain.rootKeyDER),
                    signer.rootSHA256, now, staff.name,
                ])
            var audit = AppleAPIWrites.signerAudit(stored, replaced: old != nil, by: staff, at: now)
            try audit.insert(db)
            return (stored, true)
        }
    }

    public func appAPIKeys(appId: String?) throws -> [AppAPIKey] {
        try reader.read { db in
            if let appId {
                return try Row.fetchAll(try db.cachedStatement(sql: "SELECT * FROM app_api_key WHERE app_id = ? ORDER BY key_id"), arguments: [appId])
                    .map(AppAPIKey.init(row:))
            }
            return try Row.fetchAll(db, sql: "SELECT * FROM app_api_key ORDER BY app_id, key_id").map(AppAPIKey.init(row:))
        }
    }

    @discardableResult
    public func setAppAPIKey(_ key: AppAPIKey, by staff: StaffMember, at now: Instant) throws -> AppAPIKey? {
        try AppleAPIWrites.check(staff, .editApps, readOnly: isReadOnly, what: "the API key was")
        return try writeImmediate { db in
            guard try Row.fetchOne(db, sql: "SELECT 1 FROM app WHERE id = ?", arguments: [key.appId]) != nil else {
                throw AppleAPIWrites.unknownApp(key.appId)
            }
            let old = try Row.fetchOne(
                db, sql: "SELECT * FROM app_api_key WHERE app_id = ? AND key_id = ?", arguments: [key.appId, key.keyId]
            ).map(AppAPIKey.init(row:))
            let now = try StoreMeta.stamp(now, in: db)
            try db.execute(
                sql: """
                    INSERT OR REPLACE INTO app_api_key (app_id, key_id, issuer_id, public_key, added_at, added_by)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """,
                arguments: [key.appId, key.keyId, key.issuerId, Data(key.publicKeyDER), now, staff.name])
            var audit = AppleAPIWrites.keyAudit(key, replaced: old != nil, by: staff, at: now)
            try audit.insert(db)
            return old
        }
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
            try Row.fetchOne(
                db, sql: "SELECT * FROM apple_mass_extension WHERE app_id = ? AND product_id = ? AND request_identifier = ?",
                arguments: [appId, productId, requestIdentifier]
            ).map(MassRenewalExtensionStatus.init(row:))
        }
    }

    public func keepMassExtension(_ status: MassRenewalExtensionStatus, appId: String, productId: String, actor: AuditActor) throws
        -> MassRenewalExtensionStatus
    {
        try writeImmediate { db in
            let select = "SELECT * FROM apple_mass_extension WHERE app_id = ? AND product_id = ? AND request_identifier = ?"
            let key: StatementArguments = [appId, productId, status.requestIdentifier]
            if let kept = try Row.fetchOne(db, sql: select, arguments: key).map(MassRenewalExtensionStatus.init(row:)) { return kept }
            var kept = status
            kept.completed = try StoreMeta.stamp(status.completed, in: db)
            try db.execute(
                sql: """
                    INSERT INTO apple_mass_extension (app_id, product_id, request_identifier, complete_date, succeeded_count, failed_count,
                      requested_by) VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [appId, productId, status.requestIdentifier, kept.completed, status.succeededCount, status.failedCount, actor.name])
            return kept
        }
    }

    public func setAppAccountToken(_ token: String, originalTransactionId: String, actor: AuditActor, at now: Instant) throws {
        try writeImmediate { db in
            let now = try StoreMeta.stamp(now, in: db)
            try db.execute(
                sql: """
                    INSERT OR REPLACE INTO apple_app_account_token (original_transaction_id, app_account_token, set_at, set_by)
                    VALUES (?, ?, ?, ?)
                    """, arguments: [originalTransactionId, token, now, actor.name])
            var audit = AppleAPIWrites.tokenAudit(originalTransactionId: originalTransactionId, token: token, actor: actor, at: now)
            try audit.insert(db)
        }
    }
}

extension MassRenewalExtensionStatus {
    init(row: Row) throws {
        self.init(
            try row.decode(forColumn: "request_identifier"), completed: try row.decode(forColumn: "complete_date"),
            succeeded: try row.decode(forColumn: "succeeded_count"), failed: try row.decode(forColumn: "failed_count"))
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
