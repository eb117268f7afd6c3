import StoreDeskCore

/// Apple's half kept in the store: the store's own signing chain (what its App Store Server API and its
/// notifications sign with) and each app's App Store Server API keys (what a request's JWT is checked with).
public protocol AppleAPIStore: Sendable {
    /// The store's signing chain, nil until one is made.
    func signer() throws -> StoredSigner?
    /// Keeps `signer` as the store's chain, with an audit line, in one transaction. With `replacing` false a
    /// chain already kept wins and comes back (`created` false): two processes making one on first use
    /// end with one chain. With `replacing` true the old chain is replaced (developers only).
    func saveSigner(_ signer: StoredSigner, replacing: Bool, by staff: StaffMember, at now: Instant) throws
        -> (signer: StoredSigner, created: Bool)
    /// An app's API keys (every app's with nil), by app then key id.
    func appAPIKeys(appId: String?) throws -> [AppAPIKey]
    /// Registers an app's API key (its public half), replacing one with the same key id, with an audit
    /// line. Developers only; an unknown app is refused and nothing is written. Returns the key replaced.
    @discardableResult
    func setAppAPIKey(_ key: AppAPIKey, by staff: StaffMember, at now: Instant) throws -> AppAPIKey?
}

/// What the App Store Server API in `serve` reads and writes of a store.
public protocol AppStoreServerStore: Sendable {
    /// The transaction `transactionId` with its app and every purchase and subscription of its player for
    /// that app; nil when the store has no such transaction.
    func appStoreCustomer(transactionId: String) throws -> AppStoreCustomer?
    /// Gives an original transaction (and every transaction of its chain) the app account token `token`,
    /// with an audit line by `actor` (the API key that asked).
    func setAppAccountToken(_ token: String, originalTransactionId: String, actor: AuditActor, at now: Instant) throws
    /// Extend a Subscription Renewal Date, decided by `RenewalExtension.decide` inside the write: the
    /// subscription's expiry (and its latest transaction's) moved, the extension kept, an audit line, and
    /// the RENEWAL_EXTENDED notification Apple sends written to the log (folded by the engine). Nil
    /// when the store has no subscription `originalTransactionId`; a request identifier used before answers
    /// as it did and writes nothing.
    func extendRenewalDate(
        originalTransactionId: String, _ request: RenewalExtensionRequest, actor: AuditActor, at now: Instant
    ) throws -> RenewalExtension?
}

extension AppStoreCustomer {
    /// The customer every backend makes from the rows it read: each transaction with its product (one
    /// whose product is gone is left out) and its app account token (the one Set App Account Token gave its
    /// original transaction, else its game account's by (sid, role); an empty one is none).
    public static func assemble(
        asked: StoreTransaction, app: App, transactions: [StoreTransaction], products: [Product],
        accounts: [(sid: String, roleId: String, token: String)], tokens: [String: String], subscriptions: [Subscription]
    ) -> AppStoreCustomer {
        let products = Dictionary(products.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var byRole: [String: String] = [:]
        for account in accounts { byRole[account.sid + "\u{0}" + account.roleId] = byRole[account.sid + "\u{0}" + account.roleId] ?? account.token }
        let purchases = transactions.compactMap { transaction -> AppStorePurchase? in
            guard let product = products[transaction.productId] else { return nil }
            let token = tokens[transaction.originalTransactionId] ?? byRole[transaction.sid + "\u{0}" + transaction.roleId]
            return AppStorePurchase(transaction: transaction, product: product, appAccountToken: token.flatMap { $0.isEmpty ? nil : $0 })
        }
        return AppStoreCustomer(
            app: app, askedTransactionId: asked.id, environment: asked.environment, purchases: purchases, subscriptions: subscriptions)
    }
}

/// Get Notification History's read: an app's notifications the store holds.
public protocol NotificationHistoryStore: Sendable {
    /// The app's notifications signed in `[startDate, endDate)` that pass the query's filters, by the
    /// store's id, after `query.after`, at most `limit`.
    func appNotifications(appId: String, _ query: NotificationHistoryQuery, limit: Int) throws -> [(id: Int64, event: SubscriptionEvent)]
}

/// The store's signing chain as kept: its certificates and private keys (`SigningChainDER`), the root's
/// fingerprint, and when and by whom it was made. The keys never appear in a description, `dump` or a
/// report: only the certificates' sizes and the root's fingerprint are named.
public struct StoredSigner: Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var chain: SigningChainDER
    /// SHA-256 of the root's DER, lowercase hex: the root as `trust list` and verified notifications name it.
    public var rootSHA256: String
    /// When and by whom it was made; nil before it is kept.
    public var createdAt: Instant?
    public var createdBy: String?

    public init(chain: SigningChainDER, rootSHA256: String, createdAt: Instant? = nil, createdBy: String? = nil) {
        self.chain = chain
        self.rootSHA256 = rootSHA256
        self.createdAt = createdAt
        self.createdBy = createdBy
    }

    public var description: String { "\(chain), root SHA-256 \(rootSHA256)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["chain": chain.description, "rootSHA256": rootSHA256]) }
}

/// One App Store Server API key an app registered: the key id (`kid`), the issuer (`iss`) and the key's
/// public half (SubjectPublicKeyInfo DER). A private key is never kept.
public struct AppAPIKey: Hashable, Sendable {
    public var appId: String
    public var keyId: String
    public var issuerId: String
    public var publicKeyDER: [UInt8]
    public var addedAt: Instant?
    public var addedBy: String?

    public init(appId: String, keyId: String, issuerId: String, publicKeyDER: [UInt8], addedAt: Instant? = nil, addedBy: String? = nil) {
        self.appId = appId
        self.keyId = keyId
        self.issuerId = issuerId
        self.publicKeyDER = publicKeyDER
        self.addedAt = addedAt
        self.addedBy = addedBy
    }
}

/// What every backend decides the same way about the signer and API keys: who may, and the audit lines.
public enum AppleAPIWrites {
    /// The staff member a chain made on first use is made by (`serve`, `signer root`).
    public static let firstUse = StaffMember(name: "storedesk", role: .developer)

    /// Refuses a change by anyone who may not, or on a read-only store.
    public static func check(_ staff: StaffMember, _ permission: Permission, readOnly: Bool, what: String) throws {
        guard !readOnly else { throw StoreError.invalidArgument("the store is open read-only: \(what) not changed") }
        if let refusal = staff.refusal(permission) { throw StoreError.invalidArgument(refusal + ": use --role developer") }
    }

    /// The audit line of a chain made (or replacing another).
    public static func signerAudit(_ signer: StoredSigner, replaced: Bool, by staff: StaffMember, at now: Instant) -> AuditEntry {
        AuditEntry(
            at: now, actor: staff.name, role: staff.role.rawValue, action: replaced ? "signer.replace" : "signer.create",
            subject: "signer", detail: "root SHA-256 \(signer.rootSHA256)")
    }

    /// The audit line of an API key registered (or replacing one with its key id).
    public static func keyAudit(_ key: AppAPIKey, replaced: Bool, by staff: StaffMember, at now: Instant) -> AuditEntry {
        AuditEntry(
            at: now, actor: staff.name, role: staff.role.rawValue, action: "app.api_key.set", subject: key.appId,
            detail: "\(replaced ? "replaced" : "added") API key \(key.keyId), issuer \(key.issuerId) (public key kept)")
    }

    /// The audit line of Set App Account Token (`actor`: the API key that asked, or a staff member).
    public static func tokenAudit(originalTransactionId: String, token: String, actor: AuditActor, at now: Instant) -> AuditEntry {
        AuditEntry(
            at: now, actor: actor.name, role: actor.role, action: "apple.app_account_token.set", subject: "transaction \(originalTransactionId)",
            detail: "app account token \(token)")
    }

    /// The audit line of a renewal date extended (`actor`: the API key that asked, or a staff member).
    public static func extensionAudit(_ done: RenewalExtension, actor: AuditActor) -> AuditEntry {
        AuditEntry(
            at: done.extendedAt, actor: actor.name, role: actor.role, action: "apple.renewal.extend", subject: "transaction \(done.originalTransactionId)",
            detail: "renewal date extended by \(done.extendByDays) days (reason \(done.extendReasonCode), request \(done.requestIdentifier)): "
                + "\(done.previousExpiresDate.iso8601) to \(done.effectiveDate.iso8601)")
    }

    /// The refusal of a key for an app the store does not have.
    public static func unknownApp(_ id: String) -> StoreError { StoreError.invalidArgument("no app with id '\(id)'") }
}
