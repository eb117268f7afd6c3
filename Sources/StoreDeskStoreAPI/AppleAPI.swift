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
    /// that app; nil when the store has no such transaction. (Get All Subscription Statuses and Get App
    /// Transaction Info read the whole customer; the others read a slice.)
    func appStoreCustomer(transactionId: String) throws -> AppStoreCustomer?
    /// The rows one request shows of the customer of `transactionId` (`AppStoreSliceRead`): the transaction
    /// itself, or a page of Get Transaction History or Get Refund History read in SQL (filters, order and
    /// revision's keyset, at most `limit` rows), each with what its payload reads. Nil when the store has no
    /// such transaction.
    func appStoreSlice(transactionId: String, _ read: AppStoreSliceRead, limit: Int) throws -> AppStoreHistorySlice?
    /// The status of a mass renewal extension the app ran for `productId` under `requestIdentifier`; nil
    /// when none was kept.
    func massExtension(appId: String, productId: String, requestIdentifier: String) throws -> MassRenewalExtensionStatus?
    /// Keeps a mass renewal extension's status (when it was done stamped on the store's time line). The
    /// first status kept for an app, product and request identifier wins and comes back: of two serves
    /// running one request, both answer with the one kept.
    func keepMassExtension(_ status: MassRenewalExtensionStatus, appId: String, productId: String, actor: AuditActor) throws
        -> MassRenewalExtensionStatus
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

extension AppStoreServerStore {
    /// The transaction `transactionId` with what its payload reads: a customer whose purchases are the
    /// transaction and its original (when it has a product), with its chain's subscription and token.
    public func appStoreTransaction(transactionId: String) throws -> AppStoreCustomer? {
        try appStoreSlice(transactionId: transactionId, .transaction, limit: 1)?.customer
    }
}

/// Which rows of a customer a request shows.
public enum AppStoreSliceRead: Hashable, Sendable {
    /// The transaction asked about.
    case transaction
    /// A page of Get Transaction History: the query's filters and order, after its revision.
    case history(AppStoreHistoryQuery)
    /// A page of Get Refund History: revoked, oldest revocation first, after the revision.
    case refunds(AppStoreRevision?)
}

/// The SQL every backend runs for an `AppStoreSliceRead` (`?` placeholders; PostgreSQL numbers them): the
/// page's rows on `transaction_by_customer` (`(app_id, user_id, purchase_date, id)`) or, for refunds,
/// `transaction_revoked_by_customer` (`(app_id, user_id, revocation_date, id)` where revoked), the keyset
/// a row comparison after the revision, then what the rows' payloads read, by id. The rows are what
/// `AppStoreServerAPI.history`/`refunds` over the whole customer would page: visible (bought or restored,
/// the asked transaction's environment, with a product of the app), filtered, in order.
public enum AppStoreSlicePlan {
    /// The page's rows of `store_transaction` (`t.*`), at most `limit`; nil for `.transaction`, whose one
    /// row is the transaction asked about, whatever its state (the endpoint decides what it shows).
    public static func rows(_ read: AppStoreSliceRead, asked: StoreTransaction, limit: Int) -> (sql: String, arguments: [FindValue])? {
        var conditions = [
            "t.user_id = ?", "t.app_id = ?", "p.id = t.product_id", "p.app_id = ?", "t.state IN ('purchased', 'restored')", "t.environment = ?",
        ]
        var arguments: [FindValue] = [.text(asked.userId), .text(asked.appId), .text(asked.appId), .text(asked.environment.rawValue)]
        func list(_ column: String, _ values: some Collection<String>) {
            conditions.append("\(column) IN (\(values.map { _ in "?" }.joined(separator: ", ")))")
            arguments += values.sorted().map(FindValue.text)
        }
        func after(_ revision: AppStoreRevision?, _ date: String, descending: Bool) {
            guard let revision else { return }
            conditions.append("(\(date), t.id) \(descending ? "<" : ">") (?, ?)")
            arguments += [.integer(revision.at.millis), .text(revision.id)]
        }
        let order: String
        switch read {
        case .transaction:
            return nil
        case .history(let query):
            if let start = query.startDate {
                conditions.append("t.purchase_date >= ?")
                arguments.append(.integer(start.millis))
            }
            if let end = query.endDate {
                conditions.append("t.purchase_date < ?")
                arguments.append(.integer(end.millis))
            }
            if !query.productIds.isEmpty { list("t.product_id", query.productIds) }
            if !query.productTypes.isEmpty { list("p.type", query.productTypes.map(\.rawValue)) }
            if !query.subscriptionGroupIdentifiers.isEmpty { list("coalesce(p.subscription_group, '')", query.subscriptionGroupIdentifiers) }
            switch query.inAppOwnershipType {
            case "FAMILY_SHARED"?: conditions.append("t.revocation_reason = ?")
            case _?: conditions.append("(t.revocation_reason IS NULL OR t.revocation_reason <> ?)")
            case nil: break
            }
            if query.inAppOwnershipType != nil { arguments.append(.text(RevocationKind.familySharing.rawValue)) }
            if let revoked = query.revoked { conditions.append(revoked ? "t.revocation_date IS NOT NULL" : "t.revocation_date IS NULL") }
            after(query.revision, "t.purchase_date", descending: query.descending)
            let direction = query.descending ? "DESC" : "ASC"
            order = "t.purchase_date \(direction), t.id \(direction)"
        case .refunds(let revision):
            conditions.append("t.revocation_date IS NOT NULL")
            after(revision, "t.revocation_date", descending: false)
            order = "t.revocation_date, t.id"
        }
        arguments.append(.integer(Int64(limit)))
        // CROSS JOIN: SQLite walks the transactions in the index's order and looks each product up.
        return (
            "SELECT t.* FROM store_transaction t CROSS JOIN product p WHERE \(conditions.joined(separator: " AND ")) ORDER BY \(order) LIMIT ?",
            arguments
        )
    }

    /// The statements reading what the rows' payloads need beside them, each `(sql, arguments)`.
    public struct Context: Sendable {
        /// The rows' original transactions not among them (`SELECT *` of `store_transaction`).
        public var originals: (sql: String, arguments: [FindValue])?
        /// The app account tokens set on their originals: `original_transaction_id, app_account_token`.
        public var tokens: (sql: String, arguments: [FindValue])
        /// The player's game accounts for the app: `sid, role_id, app_account_token`.
        public var accounts: (sql: String, arguments: [FindValue])
        /// The subscriptions of their chains (`SELECT *` of `subscription`).
        public var subscriptions: (sql: String, arguments: [FindValue])
    }

    /// What to read beside `rows`; once the originals are read, `products(rows + originals)`.
    public static func context(rows: [StoreTransaction], asked: StoreTransaction) -> Context {
        let owner: [FindValue] = [.text(asked.userId), .text(asked.appId)]
        let chains = Array(Set(rows.map(\.originalTransactionId))).sorted()
        let present = Set(rows.map(\.id))
        let missing = chains.filter { !present.contains($0) }
        func marks(_ count: Int) -> String { Array(repeating: "?", count: max(count, 1)).joined(separator: ", ") }
        return Context(
            originals: missing.isEmpty
                ? nil
                : ("SELECT * FROM store_transaction WHERE user_id = ? AND app_id = ? AND id IN (\(marks(missing.count)))", owner + missing.map(FindValue.text)),
            tokens: (
                """
                SELECT t.original_transaction_id, t.app_account_token FROM apple_app_account_token t
                JOIN store_transaction s ON s.id = t.original_transaction_id
                WHERE s.user_id = ? AND s.app_id = ? AND t.original_transaction_id IN (\(marks(chains.count)))
                """, owner + (chains.isEmpty ? [.text("")] : chains.map(FindValue.text))),
            accounts: ("SELECT sid, role_id, app_account_token FROM game_account WHERE user_id = ? AND app_id = ? ORDER BY id", owner),
            subscriptions: (
                "SELECT * FROM subscription WHERE user_id = ? AND app_id = ? AND original_transaction_id IN (\(marks(chains.count))) ORDER BY original_transaction_id",
                owner + (chains.isEmpty ? [.text("")] : chains.map(FindValue.text))))
    }

    /// The products of `transactions` (`SELECT *` of `product`, of their app).
    public static func products(_ transactions: [StoreTransaction]) -> (sql: String, arguments: [FindValue]) {
        let ids = Array(Set(transactions.map(\.productId))).sorted()
        let app = transactions.first?.appId ?? ""
        return (
            "SELECT * FROM product WHERE app_id = ? AND id IN (\(Array(repeating: "?", count: max(ids.count, 1)).joined(separator: ", ")))",
            [.text(app)] + (ids.isEmpty ? [.text("")] : ids.map(FindValue.text))
        )
    }

    /// The slice from what was read: `rows` in their order, the customer holding them and their originals.
    public static func slice(
        asked: StoreTransaction, app: App, rows: [StoreTransaction], originals: [StoreTransaction], products: [Product],
        accounts: [(sid: String, roleId: String, token: String)], tokens: [String: String], subscriptions: [Subscription]
    ) -> AppStoreHistorySlice {
        let customer = AppStoreCustomer.assemble(
            asked: asked, app: app, transactions: rows + originals, products: products, accounts: accounts, tokens: tokens,
            subscriptions: subscriptions)
        // Every row has a product (the statement joined it), so the first purchases are the rows.
        return AppStoreHistorySlice(customer: customer, rows: Array(customer.purchases.prefix(rows.count)))
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
            at: now, actor: staff.name, role: staff.role.rawValue, action: "app.api_key.set", subject: "app \(key.appId)",
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
    public static func unknownApp(_ id: String) -> StoreError { StoreError.invalidArgument("no app with id '\(id.echoed)'") }
}
