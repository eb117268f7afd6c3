/// The App Store Server API's decisions on plain values: which of a customer's purchases an endpoint
/// returns, in which order, a page at a time, with Apple's errors. The store reads an `AppStoreCustomer`;
/// `serve` (StoreDeskNetwork) checks the request's JWT, asks these functions, signs the payloads they
/// return and writes the JSON.
///
///     let query = try AppStoreHistoryQuery(items: request.query)          // or an AppStoreAPIError (400)
///     let page = try AppStoreServerAPI.history(customer, query: query, at: now)
///     // page.payloads: up to 20 JWSTransactionDecodedPayload, page.revision, page.hasMore
public enum AppStoreServerAPI {
    /// Apple's page: at most 20 transactions.
    public static let pageSize = 20

    /// A transaction id as a path gives it: Apple's are numeric; StoreDesk's simulated ones carry letters
    /// and `-`. Anything else (empty, other characters, over 64) is Apple's 4000006.
    public static func checkTransactionId(_ text: String, original: Bool = false) throws(AppStoreAPIError) -> String {
        guard !text.isEmpty, text.utf8.count <= 64, text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") })
        else { throw original ? .invalidOriginalTransactionId : .invalidTransactionId }
        return text
    }

    /// The purchases Apple would show: bought or restored (never one being bought, failed or waiting for
    /// approval), in the environment of the transaction asked about.
    public static func visible(_ customer: AppStoreCustomer) -> [AppStorePurchase] {
        customer.purchases.filter {
            ($0.transaction.state == .purchased || $0.transaction.state == .restored)
                && $0.transaction.environment == customer.environment
        }
    }

    /// Get Transaction Info: the one transaction, or 4040010 when it is not one Apple would show.
    public static func transaction(_ customer: AppStoreCustomer, at now: Instant) throws(AppStoreAPIError) -> JWSTransactionDecodedPayload {
        let purchases = visible(customer)
        guard let purchase = purchases.first(where: { $0.transaction.id == customer.askedTransactionId }) else {
            throw .transactionIdNotFound
        }
        return AppStorePayloads.transaction(purchase, in: customer, at: now)
    }

    /// Get Transaction History v2: the customer's transactions for the app, filtered, sorted by purchase
    /// date (then id), a page of 20 after the revision's place. This is the definition the stores' SQL
    /// (`AppStoreServerStore.appStoreSlice`) answers as, a page at a time.
    public static func history(_ customer: AppStoreCustomer, query: AppStoreHistoryQuery, at now: Instant) -> AppStorePage {
        let rows = visible(customer).filter { query.admits($0) }.sorted { lhs, rhs in
            let left = historyKey(lhs), right = historyKey(rhs)
            return query.descending ? left > right : left < right
        }
        let after = rows.drop { row in query.revision.map { query.descending ? historyKey(row) >= $0.key : historyKey(row) <= $0.key } ?? false }
        return page(AppStoreHistorySlice(customer: customer, rows: Array(after)), after: query.revision, key: historyKey, at: now)
    }

    /// Get Transaction History v2 from the rows a store read for the page: `slice.rows` are the visible
    /// purchases the query admits after its revision, in its order, at most `pageSize + 1` of them.
    public static func history(_ slice: AppStoreHistorySlice, query: AppStoreHistoryQuery, at now: Instant) -> AppStorePage {
        page(slice, after: query.revision, key: historyKey, at: now)
    }

    /// Get Refund History v2: the customer's refunded or revoked transactions, oldest revocation first.
    public static func refunds(_ customer: AppStoreCustomer, revision: AppStoreRevision?, at now: Instant) -> AppStorePage {
        let rows = visible(customer).filter { $0.transaction.revocationDate != nil }.sorted { refundKey($0) < refundKey($1) }
        let after = rows.drop { row in revision.map { refundKey(row) <= $0.key } ?? false }
        return page(AppStoreHistorySlice(customer: customer, rows: Array(after)), after: revision, key: refundKey, at: now)
    }

    /// Get Refund History v2 from the rows a store read for the page (revoked, oldest revocation first,
    /// after the revision, at most `pageSize + 1`).
    public static func refunds(_ slice: AppStoreHistorySlice, revision: AppStoreRevision?, at now: Instant) -> AppStorePage {
        page(slice, after: revision, key: refundKey, at: now)
    }

    /// A history row's place: its purchase date, then its id.
    static func historyKey(_ row: AppStorePurchase) -> (Instant, String) { (row.transaction.purchaseDate, row.transaction.id) }

    /// A refund's place: its revocation date, then its id.
    static func refundKey(_ row: AppStorePurchase) -> (Instant, String) {
        (row.transaction.revocationDate ?? row.transaction.purchaseDate, row.transaction.id)
    }

    private static func page(
        _ slice: AppStoreHistorySlice, after revision: AppStoreRevision?, key: (AppStorePurchase) -> (Instant, String), at now: Instant
    ) -> AppStorePage {
        let taken = Array(slice.rows.prefix(pageSize))
        let last = taken.last.map { key($0) }
        // With nothing taken, the revision stays where it was: asking again gives nothing again.
        let next = last.map { AppStoreRevision(at: $0.0, id: $0.1) } ?? revision ?? AppStoreRevision(at: Instant(millis: 0), id: "")
        return AppStorePage(
            payloads: taken.map { AppStorePayloads.transaction($0, in: slice.customer, at: now) }, revision: next,
            hasMore: slice.rows.count > taken.count)
    }

    /// Get All Subscription Statuses: each subscription group with each subscription's status at `now`,
    /// its latest transaction and its renewal info; `statuses` keeps only those (nil: all).
    public static func statuses(_ customer: AppStoreCustomer, statuses: Set<Int>?, at now: Instant) -> [AppStoreSubscriptionGroup] {
        var groups: [String: [AppStoreSubscriptionStatus]] = [:]
        let purchases = visible(customer)
        for subscription in customer.subscriptions.sorted(by: { $0.id < $1.id }) {
            guard let info = subscription.info(at: now) else { continue }
            let chain = purchases.filter { $0.transaction.originalTransactionId == subscription.id }
            guard let latest = chain.max(by: { ($0.transaction.purchaseDate, $0.transaction.id) < ($1.transaction.purchaseDate, $1.transaction.id) })
            else { continue }
            let status = info.state.appleStatus
            if let statuses, !statuses.contains(status) { continue }
            var transaction = AppStorePayloads.transaction(latest, in: customer, at: now)
            transaction.expiresDate = info.expiresDate
            let renewal = AppStorePayloads.renewal(subscription, info: info, in: customer, at: now)
            groups[subscription.groupId, default: []].append(
                AppStoreSubscriptionStatus(originalTransactionId: subscription.id, status: status, transaction: transaction, renewal: renewal))
        }
        return groups.keys.sorted().map { AppStoreSubscriptionGroup(subscriptionGroupIdentifier: $0, lastTransactions: groups[$0] ?? []) }
    }

    /// Look Up Order ID: the transaction the order id names, when it is this customer's (the store found
    /// it by the id `AppleOrderId` gives back). Nil: Apple's status 1, no such order.
    public static func order(_ customer: AppStoreCustomer?, orderId: String, at now: Instant) -> [JWSTransactionDecodedPayload]? {
        guard let customer, let id = AppleOrderId.transactionId(of: orderId), id == customer.askedTransactionId,
            let purchase = visible(customer).first(where: { $0.transaction.id == id })
        else { return nil }
        return [AppStorePayloads.transaction(purchase, in: customer, at: now)]
    }

    /// The status filter of Get All Subscription Statuses: `status=1&status=3`, each 1 to 5 (4000031).
    public static func statusFilter(_ values: [String]) throws(AppStoreAPIError) -> Set<Int>? {
        guard !values.isEmpty else { return nil }
        var statuses = Set<Int>()
        for value in values {
            guard let status = Int(value), (1...5).contains(status) else { throw .invalidStatus }
            statuses.insert(status)
        }
        return statuses
    }

    /// Set App Account Token: the token must be a UUID (4000183), the id an original transaction id
    /// (4000187 when it names a later transaction of a chain; 4040005 when no purchase has it).
    public static func checkAppAccountToken(
        _ customer: AppStoreCustomer, token: String
    ) throws(AppStoreAPIError) -> String {
        guard let uuid = AppStoreAPIError.canonicalUUID(token) else { throw .invalidAppAccountTokenUUID }
        let purchases = visible(customer)
        guard let asked = purchases.first(where: { $0.transaction.id == customer.askedTransactionId }) else {
            throw .originalTransactionIdNotFound
        }
        guard asked.transaction.originalTransactionId == asked.transaction.id else { throw .transactionIdIsNotOriginal }
        return uuid
    }
}

/// What the store reads for one request: the app, the transaction asked about, and every purchase and
/// subscription of the same player for that app.
public struct AppStoreCustomer: Hashable, Sendable {
    public var app: App
    public var askedTransactionId: String
    /// The environment of the transaction asked about: Apple keeps Production and Sandbox apart.
    public var environment: StoreEnvironment
    public var purchases: [AppStorePurchase]
    public var subscriptions: [Subscription]

    public init(app: App, askedTransactionId: String, environment: StoreEnvironment, purchases: [AppStorePurchase], subscriptions: [Subscription]) {
        self.app = app
        self.askedTransactionId = askedTransactionId
        self.environment = environment
        self.purchases = purchases
        self.subscriptions = subscriptions
    }
}

/// The rows of one history page as a store read them: `rows` in the page's order (at most a page and one
/// more, which says there are more), and a customer holding what their payloads read (the app, the asked
/// transaction's environment, the rows' original transactions, subscriptions and app account tokens).
public struct AppStoreHistorySlice: Hashable, Sendable {
    public var customer: AppStoreCustomer
    public var rows: [AppStorePurchase]

    public init(customer: AppStoreCustomer, rows: [AppStorePurchase]) {
        self.customer = customer
        self.rows = rows
    }
}

/// One transaction with its product and the app account token it carries (the one set through the API,
/// else the game account's).
public struct AppStorePurchase: Hashable, Sendable {
    public var transaction: StoreTransaction
    public var product: Product
    public var appAccountToken: String?

    public init(transaction: StoreTransaction, product: Product, appAccountToken: String?) {
        self.transaction = transaction
        self.product = product
        self.appAccountToken = appAccountToken
    }
}

/// A page of transactions and where the next starts.
public struct AppStorePage: Hashable, Sendable {
    public var payloads: [JWSTransactionDecodedPayload]
    public var revision: AppStoreRevision
    public var hasMore: Bool
}

/// A subscription group's subscriptions, as Get All Subscription Statuses lists them.
public struct AppStoreSubscriptionGroup: Hashable, Sendable {
    public var subscriptionGroupIdentifier: String
    public var lastTransactions: [AppStoreSubscriptionStatus]
}

/// One subscription's status (1 active, 2 expired, 3 billing retry, 4 grace period, 5 revoked) with its
/// latest transaction and renewal info, to be signed.
public struct AppStoreSubscriptionStatus: Hashable, Sendable {
    public var originalTransactionId: String
    public var status: Int
    public var transaction: JWSTransactionDecodedPayload
    public var renewal: JWSRenewalInfoDecodedPayload
}

/// The `revision` a page hands back: the place of its last row (its date and id), opaque to the client.
public struct AppStoreRevision: Hashable, Sendable {
    public var at: Instant
    public var id: String

    public init(at: Instant, id: String) {
        self.at = at
        self.id = id
    }

    /// The place as a sort key.
    public var key: (Instant, String) { (at, id) }

    /// `R<millis>.<id>`: letters, digits, `-` and `.` only, so it needs no escaping in a query.
    public var token: String { "R\(at.millis).\(id)" }

    public init(token: String) throws(AppStoreAPIError) {
        guard token.first == "R", let dot = token.firstIndex(of: "."), let millis = Int64(token[token.index(after: token.startIndex)..<dot]) else {
            throw .invalidRevision
        }
        let id = String(token[token.index(after: dot)...])
        guard id.isEmpty || (try? AppStoreServerAPI.checkTransactionId(id)) != nil else { throw .invalidRevision }
        self.init(at: Instant(millis: millis), id: id)
    }
}

/// Get Transaction History's query, checked as Apple checks it.
public struct AppStoreHistoryQuery: Hashable, Sendable {
    public var revision: AppStoreRevision?
    public var startDate: Instant?
    public var endDate: Instant?
    public var productIds: Set<String> = []
    /// Apple's `AUTO_RENEWABLE`, `NON_RENEWABLE`, `CONSUMABLE`, `NON_CONSUMABLE`.
    public var productTypes: Set<ProductType> = []
    public var descending = false
    public var subscriptionGroupIdentifiers: Set<String> = []
    /// `PURCHASED` or `FAMILY_SHARED`.
    public var inAppOwnershipType: String?
    public var revoked: Bool?

    public init() {}

    /// From the query's items (a name may repeat: `productId=a&productId=b`).
    public init(items: [(name: String, value: String)]) throws(AppStoreAPIError) {
        for (name, value) in items {
            switch name {
            case "revision": revision = try AppStoreRevision(token: value)
            case "startDate":
                guard let millis = Int64(value), millis >= 0 else { throw .invalidStartDate }
                startDate = Instant(millis: millis)
            case "endDate":
                guard let millis = Int64(value), millis >= 0 else { throw .invalidEndDate }
                endDate = Instant(millis: millis)
            case "productId": productIds.insert(value)
            case "productType":
                guard let type = Self.productTypes[value] else { throw .invalidProductType }
                productTypes.insert(type)
            case "sort":
                switch value {
                case "ASCENDING": descending = false
                case "DESCENDING": descending = true
                default: throw .invalidSort
                }
            case "subscriptionGroupIdentifier": subscriptionGroupIdentifiers.insert(value)
            case "inAppOwnershipType":
                guard value == "PURCHASED" || value == "FAMILY_SHARED" else { throw .invalidInAppOwnershipType }
                inAppOwnershipType = value
            case "revoked":
                // Apple's Python library sends Python's `str(True)`: "True".
                switch value.lowercased() {
                case "true": revoked = true
                case "false": revoked = false
                default: throw .invalidRevoked
                }
            default: continue
            }
        }
        if let startDate, let endDate, startDate > endDate { throw .startDateAfterEndDate }
    }

    static let productTypes: [String: ProductType] = [
        "AUTO_RENEWABLE": .autoRenewable, "NON_RENEWABLE": .nonRenewing, "CONSUMABLE": .consumable, "NON_CONSUMABLE": .nonConsumable,
    ]

    /// Whether a purchase passes the filters (startDate inclusive, endDate exclusive, on the purchase date).
    func admits(_ purchase: AppStorePurchase) -> Bool {
        let transaction = purchase.transaction
        if let startDate, transaction.purchaseDate < startDate { return false }
        if let endDate, transaction.purchaseDate >= endDate { return false }
        if !productIds.isEmpty, !productIds.contains(transaction.productId) { return false }
        if !productTypes.isEmpty, !productTypes.contains(purchase.product.type) { return false }
        if !subscriptionGroupIdentifiers.isEmpty, !subscriptionGroupIdentifiers.contains(purchase.product.subscriptionGroup ?? "") { return false }
        if let inAppOwnershipType, inAppOwnershipType != AppStorePayloads.ownership(transaction) { return false }
        if let revoked, revoked != (transaction.revocationDate != nil) { return false }
        return true
    }
}

/// One of Apple's errors: the HTTP status and the body's `errorCode` and `errorMessage`.
public struct AppStoreAPIError: Error, Hashable, Sendable, CustomStringConvertible {
    public var status: Int
    public var errorCode: Int
    public var errorMessage: String

    public init(status: Int, errorCode: Int, errorMessage: String) {
        self.status = status
        self.errorCode = errorCode
        self.errorMessage = errorMessage
    }

    public var description: String { "\(status) \(errorCode) \(errorMessage)" }

    public static let generalBadRequest = Self(status: 400, errorCode: 4_000_000, errorMessage: "Bad request.")
    public static let invalidRevision = Self(status: 400, errorCode: 4_000_005, errorMessage: "Invalid request revision.")
    public static let invalidTransactionId = Self(status: 400, errorCode: 4_000_006, errorMessage: "Invalid transaction id.")
    public static let invalidOriginalTransactionId = Self(status: 400, errorCode: 4_000_008, errorMessage: "Invalid original transaction id.")
    public static let startDateAfterEndDate = Self(status: 400, errorCode: 4_000_013, errorMessage: "Invalid request. The end date precedes the start date or the dates are the same.")
    public static let invalidStartDate = Self(status: 400, errorCode: 4_000_015, errorMessage: "Invalid request. The start date is earlier than the allowed start date.")
    public static let invalidEndDate = Self(status: 400, errorCode: 4_000_016, errorMessage: "Invalid request. The end date is later than the allowed end date.")
    public static let invalidTestNotificationToken = Self(status: 400, errorCode: 4_000_020, errorMessage: "Invalid test notification token.")
    public static let invalidSort = Self(status: 400, errorCode: 4_000_021, errorMessage: "Invalid request. The sort parameter is invalid.")
    public static let invalidProductType = Self(status: 400, errorCode: 4_000_022, errorMessage: "Invalid request. The product type parameter is invalid.")
    public static let invalidInAppOwnershipType = Self(status: 400, errorCode: 4_000_026, errorMessage: "Invalid request. The in-app ownership type parameter is invalid.")
    public static let invalidRevoked = Self(status: 400, errorCode: 4_000_030, errorMessage: "Invalid request. The revoked parameter is invalid.")
    public static let invalidStatus = Self(status: 400, errorCode: 4_000_031, errorMessage: "Invalid request. The status parameter is invalid.")
    public static let invalidAppAccountTokenUUID = Self(status: 400, errorCode: 4_000_183, errorMessage: "Invalid request. The app account token field must be a valid UUID.")
    public static let transactionIdIsNotOriginal = Self(status: 400, errorCode: 4_000_187, errorMessage: "Invalid request. The transaction ID provided is not an original transaction ID.")
    public static let originalTransactionIdNotFound = Self(status: 404, errorCode: 4_040_005, errorMessage: "Original transaction id not found.")
    public static let testNotificationNotFound = Self(status: 404, errorCode: 4_040_008, errorMessage: "Either the test notification token is expired or the notification and status are not yet available.")
    public static let transactionIdNotFound = Self(status: 404, errorCode: 4_040_010, errorMessage: "Transaction id not found.")
    public static let generalInternal = Self(status: 500, errorCode: 5_000_000, errorMessage: "An unknown error occurred.")

    /// `{"errorCode":N,"errorMessage":"…"}`.
    public var body: String {
        let escaped = errorMessage.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        return "{\"errorCode\":\(errorCode),\"errorMessage\":\"\(escaped)\"}"
    }

    /// A UUID in its canonical lowercase form; nil when `text` is not one.
    public static func canonicalUUID(_ text: String) -> String? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.map(\.count) == [8, 4, 4, 4, 12], parts.allSatisfy({ $0.allSatisfy(\.isHexDigit) }) else { return nil }
        return text.lowercased()
    }
}
