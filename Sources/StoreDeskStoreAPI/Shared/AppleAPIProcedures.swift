import StoreDeskCore

/// The store's signing chain, apps' App Store Server API keys, mass extensions kept and app account
/// tokens set, written once for both backends. `AppleAPIWrites` decides (who may, the audit lines); this
/// persists. The chain's row is one (`id = 1`): of two machines making one on first use, the second finds the
/// first's and keeps it.
public enum AppleAPIProcedures {
    public static func signer(_ db: some StoreSQLTransaction, locking: Bool = false) throws -> StoredSigner? {
        try db.row("SELECT * FROM signer WHERE id = 1\(locking ? .lockingRows : nil)")?.storedSigner()
    }

    public static func saveSigner(_ db: some StoreSQLTransaction, _ signer: StoredSigner, replacing: Bool, by staff: StaffMember, at now: Instant)
        throws -> (signer: StoredSigner, created: Bool)
    {
        let old = try self.signer(db, locking: true)
        if let old, !replacing { return (old, false) }
        let now = try db.stamp(now)
        var stored = signer
        stored.createdAt = now
        stored.createdBy = staff.name
        let chain = signer.chain
        let inserted = try db.rows(
            """
            INSERT INTO signer (id, leaf_der, intermediate_der, root_der, leaf_key, intermediate_key, root_key, root_sha256, created_at, created_by)
            VALUES (1, \(chain.leafDER), \(chain.intermediateDER), \(chain.rootDER), \(chain.leafKeyDER), \(chain.intermediateKeyDER),
              \(chain.rootKeyDER), \(signer.rootSHA256), \(now), \(staff.name))
            ON CONFLICT (id) DO UPDATE SET leaf_der = excluded.leaf_der, intermediate_der = excluded.intermediate_der,
              root_der = excluded.root_der, leaf_key = excluded.leaf_key, intermediate_key = excluded.intermediate_key,
              root_key = excluded.root_key, root_sha256 = excluded.root_sha256, created_at = excluded.created_at, created_by = excluded.created_by
            WHERE \(replacing ? 1 : 0) = 1
            RETURNING id
            """)
        guard !inserted.isEmpty else {
            // Another machine made one meanwhile: theirs is the store's.
            return (try self.signer(db) ?? stored, false)
        }
        try db.insert(AppleAPIWrites.signerAudit(stored, replaced: old != nil, by: staff, at: now))
        return (stored, true)
    }

    /// The API keys of one app (by key id), or of every app.
    public static func apiKeys(_ db: some StoreSQLTransaction, appId: String?) throws -> [AppAPIKey] {
        let sql: StoreSQL = appId.map { "SELECT * FROM app_api_key WHERE app_id = \($0) ORDER BY key_id" }
            ?? "SELECT * FROM app_api_key ORDER BY app_id, key_id"
        return try db.rows(sql).map { try $0.appAPIKey() }
    }

    /// Adds an app's API key, or replaces the one with its key id; the key it replaced, if any.
    public static func setAPIKey(_ db: some StoreSQLTransaction, _ key: AppAPIKey, by staff: StaffMember, at now: Instant) throws -> AppAPIKey? {
        guard try db.exists("SELECT 1 FROM app WHERE id = \(key.appId)\(.sharingRows)") else { throw AppleAPIWrites.unknownApp(key.appId) }
        let old = try db.row("SELECT * FROM app_api_key WHERE app_id = \(key.appId) AND key_id = \(key.keyId)\(.lockingRows)")?.appAPIKey()
        let now = try db.stamp(now)
        try db.execute(
            """
            INSERT INTO app_api_key (app_id, key_id, issuer_id, public_key, added_at, added_by)
            VALUES (\(key.appId), \(key.keyId), \(key.issuerId), \(key.publicKeyDER), \(now), \(staff.name))
            ON CONFLICT (app_id, key_id) DO UPDATE SET issuer_id = excluded.issuer_id, public_key = excluded.public_key,
              added_at = excluded.added_at, added_by = excluded.added_by
            """)
        try db.insert(AppleAPIWrites.keyAudit(key, replaced: old != nil, by: staff, at: now))
        return old
    }

    public static func massExtension(_ db: some StoreSQLTransaction, appId: String, productId: String, requestIdentifier: String) throws
        -> MassRenewalExtensionStatus?
    {
        try db.row(
            """
            SELECT * FROM apple_mass_extension WHERE app_id = \(appId) AND product_id = \(productId) AND request_identifier = \(requestIdentifier)
            """)?.massExtension()
    }

    /// Keeps a mass extension's outcome under its request identifier, once: of two serves keeping one request
    /// at once, the first insert wins and the other reads it back.
    public static func keepMassExtension(
        _ db: some StoreSQLTransaction, _ status: MassRenewalExtensionStatus, appId: String, productId: String, actor: AuditActor
    ) throws -> MassRenewalExtensionStatus {
        if let kept = try massExtension(db, appId: appId, productId: productId, requestIdentifier: status.requestIdentifier) { return kept }
        var mine = status
        mine.completed = try db.stamp(status.completed)
        let inserted = try db.rows(
            """
            INSERT INTO apple_mass_extension (app_id, product_id, request_identifier, complete_date, succeeded_count, failed_count, requested_by)
            VALUES (\(appId), \(productId), \(status.requestIdentifier), \(mine.completed), \(status.succeededCount), \(status.failedCount),
              \(actor.name))
            ON CONFLICT (app_id, product_id, request_identifier) DO NOTHING
            RETURNING complete_date
            """)
        if inserted.isEmpty, let theirs = try massExtension(db, appId: appId, productId: productId, requestIdentifier: status.requestIdentifier) {
            return theirs
        }
        return mine
    }

    public static func setAppAccountToken(
        _ db: some StoreSQLTransaction, _ token: String, originalTransactionId: String, actor: AuditActor, at now: Instant
    ) throws {
        let now = try db.stamp(now)
        try db.execute(
            """
            INSERT INTO apple_app_account_token (original_transaction_id, app_account_token, set_at, set_by)
            VALUES (\(originalTransactionId), \(token), \(now), \(actor.name))
            ON CONFLICT (original_transaction_id) DO UPDATE SET app_account_token = excluded.app_account_token,
              set_at = excluded.set_at, set_by = excluded.set_by
            """)
        try db.insert(AppleAPIWrites.tokenAudit(originalTransactionId: originalTransactionId, token: token, actor: actor, at: now))
    }
}

extension StoreColumns {
    public func storedSigner() throws -> StoredSigner {
        StoredSigner(
            chain: SigningChainDER(
                leafDER: try bytes("leaf_der"), intermediateDER: try bytes("intermediate_der"), rootDER: try bytes("root_der"),
                leafKeyDER: try bytes("leaf_key"), intermediateKeyDER: try bytes("intermediate_key"), rootKeyDER: try bytes("root_key")),
            rootSHA256: try text("root_sha256"), createdAt: try instant("created_at"), createdBy: try text("created_by"))
    }

    public func appAPIKey() throws -> AppAPIKey {
        AppAPIKey(
            appId: try text("app_id"), keyId: try text("key_id"), issuerId: try text("issuer_id"), publicKeyDER: try bytes("public_key"),
            addedAt: try instant("added_at"), addedBy: try text("added_by"))
    }

    public func massExtension() throws -> MassRenewalExtensionStatus {
        MassRenewalExtensionStatus(
            try text("request_identifier"), completed: try instant("complete_date"), succeeded: Int(try int("succeeded_count")),
            failed: Int(try int("failed_count")))
    }
}
