import NIOCore
import PostgresNIO
import StoreDeskCore
import StoreDeskStoreAPI

/// The store's signing chain and apps' App Store Server API keys on PostgreSQL (migration `pg2-apple`):
/// `AppleAPIProcedures`, written once for both backends.
extension PostgresStore: AppleAPIStore {
    public func signer() throws -> StoredSigner? {
        try session.transaction(readOnly: true) { db in try AppleAPIProcedures.signer(procedures(db)) }
    }

    public func saveSigner(_ signer: StoredSigner, replacing: Bool, by staff: StaffMember, at now: Instant) throws
        -> (signer: StoredSigner, created: Bool)
    {
        try AppleAPIWrites.check(staff, .editTrustRoots, readOnly: isReadOnly, what: "the signing chain was")
        return try write { db in try AppleAPIProcedures.saveSigner(procedures(db), signer, replacing: replacing, by: staff, at: now) }
    }

    public func appAPIKeys(appId: String?) throws -> [AppAPIKey] {
        try session.transaction(readOnly: true) { db in try AppleAPIProcedures.apiKeys(procedures(db), appId: appId) }
    }

    @discardableResult
    public func setAppAPIKey(_ key: AppAPIKey, by staff: StaffMember, at now: Instant) throws -> AppAPIKey? {
        try AppleAPIWrites.check(staff, .editApps, readOnly: isReadOnly, what: "the API key was")
        return try write { db in try AppleAPIProcedures.setAPIKey(procedures(db), key, by: staff, at: now) }
    }
}

/// What the App Store Server API reads and writes, on PostgreSQL: the rows SQLite's store reads, assembled
/// by the same `AppStoreCustomer.assemble`.
extension PostgresStore: AppStoreServerStore {
    public func appStoreCustomer(transactionId: String) throws -> AppStoreCustomer? {
        try session.transaction(readOnly: true) { db in
            guard let asked = try db.rows("SELECT * FROM store_transaction WHERE id = \(transactionId)").first.map({ try cells($0).transaction() }),
                let app = try db.rows("SELECT * FROM app WHERE id = \(asked.appId)").first.map({ try cells($0).app() })
            else { return nil }
            let accounts = try db.rows(
                "SELECT sid, role_id, app_account_token FROM game_account WHERE user_id = \(asked.userId) AND app_id = \(app.id) ORDER BY id"
            ).map { row in
                let (sid, roleId, token) = try row.decode((String, String, String).self)
                return (sid: sid, roleId: roleId, token: token)
            }
            var tokens: [String: String] = [:]
            for row in try db.rows(
                """
                SELECT t.original_transaction_id, t.app_account_token FROM apple_app_account_token t
                JOIN store_transaction s ON s.id = t.original_transaction_id WHERE s.user_id = \(asked.userId) AND s.app_id = \(app.id)
                """)
            {
                let (original, token) = try row.decode((String, String).self)
                tokens[original] = token
            }
            return AppStoreCustomer.assemble(
                asked: asked, app: app,
                transactions: try db.rows(
                    "SELECT * FROM store_transaction WHERE user_id = \(asked.userId) AND app_id = \(app.id) ORDER BY purchase_date, id"
                ).map { try cells($0).transaction() },
                products: try db.rows("SELECT * FROM product WHERE app_id = \(app.id)").map { try cells($0).product() },
                accounts: accounts, tokens: tokens,
                subscriptions: try db.rows(
                    "SELECT * FROM subscription WHERE user_id = \(asked.userId) AND app_id = \(app.id) ORDER BY original_transaction_id"
                ).map { try cells($0).subscription() })
        }
    }

    /// A request's rows in SQL (`AppStoreSlicePlan`): the page on its index, then what its payloads read, by id.
    public func appStoreSlice(transactionId: String, _ read: AppStoreSliceRead, limit: Int) throws -> AppStoreHistorySlice? {
        try session.transaction(readOnly: true) { db in
            func fetch(_ statement: (sql: String, arguments: [FindValue])) throws -> [PostgresRow] {
                try db.rows(SQLBuilder.query(statement.sql, statement.arguments))
            }
            guard let asked = try db.rows("SELECT * FROM store_transaction WHERE id = \(transactionId)").first.map({ try cells($0).transaction() }),
                let app = try db.rows("SELECT * FROM app WHERE id = \(asked.appId)").first.map({ try cells($0).app() })
            else { return nil }
            let rows = try AppStoreSlicePlan.rows(read, asked: asked, limit: limit).map { try fetch($0).map { try cells($0).transaction() } } ?? [asked]
            let context = AppStoreSlicePlan.context(rows: rows, asked: asked)
            let originals = try context.originals.map { try fetch($0).map { try cells($0).transaction() } } ?? []
            let accounts = try fetch(context.accounts).map { row in
                let (sid, roleId, token) = try row.decode((String, String, String).self)
                return (sid: sid, roleId: roleId, token: token)
            }
            var tokens: [String: String] = [:]
            for row in try fetch(context.tokens) {
                let (original, token) = try row.decode((String, String).self)
                tokens[original] = token
            }
            return AppStoreSlicePlan.slice(
                asked: asked, app: app, rows: rows, originals: originals,
                products: try fetch(AppStoreSlicePlan.products(rows + originals)).map { try cells($0).product() }, accounts: accounts,
                tokens: tokens, subscriptions: try fetch(context.subscriptions).map { try cells($0).subscription() })
        }
    }

    public func massExtension(appId: String, productId: String, requestIdentifier: String) throws -> MassRenewalExtensionStatus? {
        try session.transaction(readOnly: true) { db in
            try AppleAPIProcedures.massExtension(procedures(db), appId: appId, productId: productId, requestIdentifier: requestIdentifier)
        }
    }

    public func keepMassExtension(_ status: MassRenewalExtensionStatus, appId: String, productId: String, actor: AuditActor) throws
        -> MassRenewalExtensionStatus
    {
        guard !isReadOnly else { throw StoreError.readOnlyFile(path: name) }
        return try write { db in try AppleAPIProcedures.keepMassExtension(procedures(db), status, appId: appId, productId: productId, actor: actor) }
    }

    public func setAppAccountToken(_ token: String, originalTransactionId: String, actor: AuditActor, at now: Instant) throws {
        guard !isReadOnly else { throw StoreError.readOnlyFile(path: name) }
        try write { db in
            try AppleAPIProcedures.setAppAccountToken(procedures(db), token, originalTransactionId: originalTransactionId, actor: actor, at: now)
        }
    }
}

extension PostgresStore {
    public func extendRenewalDate(
        originalTransactionId: String, _ request: RenewalExtensionRequest, actor: AuditActor, at now: Instant
    ) throws -> RenewalExtension? {
        guard !isReadOnly else { throw StoreError.readOnlyFile(path: name) }
        return try write { db in
            try AppleSupportProcedures.extendRenewalDate(procedures(db), originalTransactionId: originalTransactionId, request, actor: actor, at: now)
        }
    }
}

/// Get Notification History's reads on PostgreSQL: the app's stored notifications by the store's id.
extension PostgresStore: NotificationHistoryStore {
    public func appNotifications(appId: String, _ query: NotificationHistoryQuery, limit: Int) throws -> [(id: Int64, event: SubscriptionEvent)] {
        try session.transaction(readOnly: true) { db in
            // A subscription's notifications by its row; a one-time purchase's (a refund, a consumption request)
            // by its transaction.
            var sql = SQLBuilder(
                """
                SELECT e.* FROM subscription_event e
                LEFT JOIN subscription s ON s.original_transaction_id = e.original_transaction_id
                LEFT JOIN store_transaction t ON s.original_transaction_id IS NULL AND t.id = e.original_transaction_id
                WHERE 
                """)
            var conditions = [
                "coalesce(s.app_id, t.app_id) = " + sql.bind(appId), "e.signed_date >= " + sql.bind(query.startDate.millis),
                "e.signed_date < " + sql.bind(query.endDate.millis), "e.id > " + sql.bind(query.after ?? 0), NotificationSends.appleSentSQL,
            ]
            if let type = query.notificationType {
                conditions.append("e.notification_type = " + sql.bind(type))
                if let subtype = query.notificationSubtype { conditions.append("e.subtype = " + sql.bind(subtype)) }
            }
            if let transactionId = query.transactionId {
                // Any transaction of the customer: its chain's notifications.
                guard let original = try db.rows("SELECT original_transaction_id FROM store_transaction WHERE id = \(transactionId)")
                    .first?.decode(String.self)
                else { return [] }
                conditions.append("e.original_transaction_id = " + sql.bind(original))
            }
            if query.onlyFailures {
                // Apple's "haven't reached your server successfully": sent, and no attempt got a 2xx.
                conditions.append("EXISTS (SELECT 1 FROM notification_delivery d WHERE d.event_id = e.id AND d.state <> 'delivered' AND d.attempts > 0)")
            }
            sql.append(conditions.joined(separator: " AND ") + " ORDER BY e.id LIMIT " + sql.bind(Int64(limit)))
            return try db.rows(sql.query).map { row in (id: try cells(row).int("id"), event: try cells(row).subscriptionEvent()) }
        }
    }
}
