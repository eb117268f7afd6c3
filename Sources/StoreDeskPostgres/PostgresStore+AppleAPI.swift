import NIOCore
import PostgresNIO
import StoreDeskCore
import StoreDeskStoreAPI

/// The store's signing chain and apps' App Store Server API keys on PostgreSQL (migration `pg2-apple`).
/// `AppleAPIWrites` decides (who may, the audit lines); this persists. The chain's row is one (`id = 1`):
/// of two machines making one on first use, the second finds the first's and keeps it.
extension PostgresStore: AppleAPIStore {
    public func signer() throws -> StoredSigner? {
        try session.rows("SELECT * FROM signer WHERE id = 1").first.map { try cells($0).storedSigner() }
    }

    public func saveSigner(_ signer: StoredSigner, replacing: Bool, by staff: StaffMember, at now: Instant) throws
        -> (signer: StoredSigner, created: Bool)
    {
        try AppleAPIWrites.check(staff, .editTrustRoots, readOnly: isReadOnly, what: "the signing chain was")
        return try write { db in
            let old = try db.rows("SELECT * FROM signer WHERE id = 1 FOR UPDATE").first.map { try cells($0).storedSigner() }
            if let old, !replacing { return (old, false) }
            let now = try stamp(now, in: db)
            var stored = signer
            stored.createdAt = now
            stored.createdBy = staff.name
            let inserted = try db.rows(
                """
                INSERT INTO signer (id, leaf_der, intermediate_der, root_der, leaf_key, intermediate_key, root_key, root_sha256,
                  created_at, created_by)
                VALUES (1, \(ByteBuffer(bytes: signer.chain.leafDER)), \(ByteBuffer(bytes: signer.chain.intermediateDER)),
                  \(ByteBuffer(bytes: signer.chain.rootDER)), \(ByteBuffer(bytes: signer.chain.leafKeyDER)),
                  \(ByteBuffer(bytes: signer.chain.intermediateKeyDER)), \(ByteBuffer(bytes: signer.chain.rootKeyDER)), \(signer.rootSHA256),
                  \(now.millis), \(staff.name))
                ON CONFLICT (id) DO UPDATE SET leaf_der = excluded.leaf_der, intermediate_der = excluded.intermediate_der,
                  root_der = excluded.root_der, leaf_key = excluded.leaf_key, intermediate_key = excluded.intermediate_key,
                  root_key = excluded.root_key, root_sha256 = excluded.root_sha256, created_at = excluded.created_at,
                  created_by = excluded.created_by
                WHERE \(replacing)
                RETURNING id
                """)
            guard !inserted.isEmpty else {
                // Another machine made one meanwhile: theirs is the store's.
                let theirs = try db.rows("SELECT * FROM signer WHERE id = 1").first.map { try cells($0).storedSigner() }
                return (theirs ?? stored, false)
            }
            try insert(AppleAPIWrites.signerAudit(stored, replaced: old != nil, by: staff, at: now), db)
            return (stored, true)
        }
    }

    public func appAPIKeys(appId: String?) throws -> [AppAPIKey] {
        let rows =
            if let appId {
                try session.rows("SELECT * FROM app_api_key WHERE app_id = \(appId) ORDER BY key_id")
            } else {
                try session.rows("SELECT * FROM app_api_key ORDER BY app_id, key_id")
            }
        return try rows.map { try cells($0).appAPIKey() }
    }

    @discardableResult
    public func setAppAPIKey(_ key: AppAPIKey, by staff: StaffMember, at now: Instant) throws -> AppAPIKey? {
        try AppleAPIWrites.check(staff, .editApps, readOnly: isReadOnly, what: "the API key was")
        return try write { db in
            guard try !db.rows("SELECT 1 FROM app WHERE id = \(key.appId) FOR SHARE").isEmpty else {
                throw AppleAPIWrites.unknownApp(key.appId)
            }
            let old = try db.rows("SELECT * FROM app_api_key WHERE app_id = \(key.appId) AND key_id = \(key.keyId) FOR UPDATE")
                .first.map { try cells($0).appAPIKey() }
            let now = try stamp(now, in: db)
            try db.run(
                """
                INSERT INTO app_api_key (app_id, key_id, issuer_id, public_key, added_at, added_by)
                VALUES (\(key.appId), \(key.keyId), \(key.issuerId), \(ByteBuffer(bytes: key.publicKeyDER)), \(now.millis), \(staff.name))
                ON CONFLICT (app_id, key_id) DO UPDATE SET issuer_id = excluded.issuer_id, public_key = excluded.public_key,
                  added_at = excluded.added_at, added_by = excluded.added_by
                """)
            try insert(AppleAPIWrites.keyAudit(key, replaced: old != nil, by: staff, at: now), db)
            return old
        }
    }
}

extension PostgresCells {
    func massExtension() throws -> MassRenewalExtensionStatus {
        MassRenewalExtensionStatus(
            try text("request_identifier"), completed: try instant("complete_date"), succeeded: Int(try int("succeeded_count")),
            failed: Int(try int("failed_count")))
    }

    func bytes(_ column: String) throws -> [UInt8] { Array(try value(column, as: ByteBuffer.self).readableBytesView) }

    func storedSigner() throws -> StoredSigner {
        StoredSigner(
            chain: SigningChainDER(
                leafDER: try bytes("leaf_der"), intermediateDER: try bytes("intermediate_der"), rootDER: try bytes("root_der"),
                leafKeyDER: try bytes("leaf_key"), intermediateKeyDER: try bytes("intermediate_key"), rootKeyDER: try bytes("root_key")),
            rootSHA256: try text("root_sha256"), createdAt: try instant("created_at"), createdBy: try text("created_by"))
    }

    func appAPIKey() throws -> AppAPIKey {
        AppAPIKey(
            appId: try text("app_id"), keyId: try text("key_id"), issuerId: try text("issuer_id"),
            publicKeyDER: try bytes("public_key"), addedAt: try instant("added_at"), addedBy: try text("added_by"))
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
        try session.rows(
            """
            SELECT * FROM apple_mass_extension WHERE app_id = \(appId) AND product_id = \(productId)
              AND request_identifier = \(requestIdentifier)
            """
        ).first.map { try cells($0).massExtension() }
    }

    public func keepMassExtension(_ status: MassRenewalExtensionStatus, appId: String, productId: String, actor: AuditActor) throws
        -> MassRenewalExtensionStatus
    {
        guard !isReadOnly else { throw StoreError.readOnlyFile(path: name) }
        return try write { db in
            func kept() throws -> MassRenewalExtensionStatus? {
                try db.rows(
                    """
                    SELECT * FROM apple_mass_extension WHERE app_id = \(appId) AND product_id = \(productId)
                      AND request_identifier = \(status.requestIdentifier)
                    """
                ).first.map { try cells($0).massExtension() }
            }
            if let kept = try kept() { return kept }
            var mine = status
            mine.completed = try stamp(status.completed, in: db)
            // Of two serves keeping one request at once, the first insert wins; the other reads it back.
            let inserted = try db.rows(
                """
                INSERT INTO apple_mass_extension (app_id, product_id, request_identifier, complete_date, succeeded_count, failed_count,
                  requested_by)
                VALUES (\(appId), \(productId), \(status.requestIdentifier), \(mine.completed.millis), \(Int64(status.succeededCount)),
                  \(Int64(status.failedCount)), \(actor.name))
                ON CONFLICT (app_id, product_id, request_identifier) DO NOTHING
                RETURNING complete_date
                """)
            if inserted.isEmpty, let theirs = try kept() { return theirs }
            return mine
        }
    }

    public func setAppAccountToken(_ token: String, originalTransactionId: String, actor: AuditActor, at now: Instant) throws {
        guard !isReadOnly else { throw StoreError.readOnlyFile(path: name) }
        try write { db in
            let now = try stamp(now, in: db)
            try db.run(
                """
                INSERT INTO apple_app_account_token (original_transaction_id, app_account_token, set_at, set_by)
                VALUES (\(originalTransactionId), \(token), \(now.millis), \(actor.name))
                ON CONFLICT (original_transaction_id) DO UPDATE SET app_account_token = excluded.app_account_token,
                  set_at = excluded.set_at, set_by = excluded.set_by
                """)
            try insert(AppleAPIWrites.tokenAudit(originalTransactionId: originalTransactionId, token: token, actor: actor, at: now), db)
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
