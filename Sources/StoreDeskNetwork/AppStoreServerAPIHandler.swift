import Foundation
import Hummingbird
import NIOCore
import StoreDeskCore
import StoreDeskStoreAPI
import StoreDeskTrust

/// What Apple's App Store Server API takes of a store: its customers and transactions, the app's keys and
/// settings, the products, refunds' and extensions' writes, the notification history and its deliveries,
/// and the time line.
public typealias AppStoreServerAPIStore = AppStoreServerStore & AppleAPIStore & AppleSupportStore & AppsStore & CatalogueStore
    & NotificationHistoryStore & NotificationDeliveryStore & StoreTimeLine

/// `/inApps`: Apple's App Store Server API, served from the store, for a game server's own Apple client
/// (Apple's libraries with their base URL changed). Every request carries an ES256 JWT that one of the
/// app's registered API keys signed (`apps set APP --api-key-file …`), checked by
/// `AppStoreAPITokenVerifier` at the wall clock's time; a token refused gets 401 and nothing is done.
/// Core decides (`AppStoreServerAPI`, `AppStorePayloads`); this moves bytes, reads and writes the store,
/// and signs the payloads with the store's chain (`StoreSigner`).
///
/// - `GET /inApps/v1/transactions/{transactionId}`: Get Transaction Info.
/// - `GET /inApps/v1|v2/history/{transactionId}`: Get Transaction History (pages of 20, `revision`, filters).
/// - `GET /inApps/v1/subscriptions/{transactionId}`: Get All Subscription Statuses (`status` filter).
/// - `GET /inApps/v1/lookup/{orderId}`: Look Up Order ID (`AppleOrderId`).
/// - `GET /inApps/v2/refund/lookup/{transactionId}`: Get Refund History.
/// - `POST /inApps/v1/notifications/test`, `GET /inApps/v1/notifications/test/{token}`: a TEST notification.
/// - `PUT /inApps/v1/transactions/{originalTransactionId}/appAccountToken`: Set App Account Token.
/// - `PUT /inApps/v1/subscriptions/extend/{originalTransactionId}`: Extend a Subscription Renewal Date.
/// - `PUT /inApps/v1/transactions/consumption/{transactionId}`: Send Consumption Information (answers the
///   consumable's CONSUMPTION_REQUEST on the store's desk; 202).
/// - `POST /inApps/v1/subscriptions/extend/mass`, `GET /inApps/v1/subscriptions/extend/mass/{productId}/{requestIdentifier}`:
///   Extend Subscription Renewal Dates for All Active Subscribers, and its status.
/// - `GET /inApps/v1/transactions/appTransactions/{transactionId}`: Get App Transaction Info.
///
/// Each API key has a token bucket (`APIRateLimits`, `serve --api-rate-limit`): past it, 429 / 4290000.
/// - `POST /inApps/v1/notifications/history`: Get Notification History (the app's notifications the store
///   holds, signed again by its chain, each with the attempts `serve`'s sender made to the app's notification
///   URL; `onlyFailures`: those sent that have not reached it).
struct AppStoreServerAPIHandler: Sendable {
    let store: any AppStoreServerAPIStore
    let apps: AppDirectory
    let chain: SigningChain
    let tests: TestNotifications
    /// Sends TEST notifications to the app's URL (nil when `serve` sends none).
    let sender: NotificationSender?
    let limits: APIRateLimits
    let body: BodyReader

    /// Who asked: the app whose key signed the token, and the key.
    struct Caller: Sendable {
        var app: App
        var keyId: String
    }

    func register(on router: Router<ServeContext>) {
        router.get("/inApps/v1/transactions/{transactionId}") { request, context in
            await handle(request, context) { caller, now in try transactionInfo(caller, context.parameters.get("transactionId") ?? "", now) }
        }
        for version in ["v1", "v2"] {
            router.get("/inApps/\(version)/history/{transactionId}") { request, context in
                let items = request.uri.queryParameters.map { (name: String($0.key), value: String($0.value)) }
                return await handle(request, context) { caller, now in
                    try history(caller, context.parameters.get("transactionId") ?? "", items, now)
                }
            }
        }
        router.get("/inApps/v1/subscriptions/{transactionId}") { request, context in
            let statuses = request.uri.queryParameters.getAll("status").map { String($0) }
            return await handle(request, context) { caller, now in
                try subscriptionStatuses(caller, context.parameters.get("transactionId") ?? "", statuses, now)
            }
        }
        router.get("/inApps/v1/lookup/{orderId}") { request, context in
            await handle(request, context) { caller, now in try orderLookup(caller, context.parameters.get("orderId") ?? "", now) }
        }
        router.get("/inApps/v2/refund/lookup/{transactionId}") { request, context in
            let revision = request.uri.queryParameters.get("revision").map { String($0) }
            return await handle(request, context) { caller, now in
                try refundHistory(caller, context.parameters.get("transactionId") ?? "", revision, now)
            }
        }
        router.post("/inApps/v1/notifications/test") { request, context in
            await handle(request, context) { caller, now in try requestTestNotification(caller, now) }
        }
        router.get("/inApps/v1/notifications/test/{token}") { request, context in
            await handle(request, context) { caller, _ in try testNotificationStatus(caller, context.parameters.get("token") ?? "") }
        }
        router.put("/inApps/v1/transactions/{transactionId}/appAccountToken") { request, context in
            try await withBody(request, context) { caller, bytes, now in
                try setAppAccountToken(caller, context.parameters.get("transactionId") ?? "", bytes, now)
            }
        }
        router.post("/inApps/v1/notifications/history") { request, context in
            let token = request.uri.queryParameters.get("paginationToken").map { String($0) }
            return try await withBody(request, context) { caller, bytes, _ in try notificationHistory(caller, bytes, token) }
        }
        router.get("/inApps/v1/transactions/appTransactions/{transactionId}") { request, context in
            await handle(request, context) { caller, now in try appTransactionInfo(caller, context.parameters.get("transactionId") ?? "", now) }
        }
        router.post("/inApps/v1/subscriptions/extend/mass") { request, context in
            try await withBody(request, context) { caller, bytes, now in try massExtend(caller, bytes, now) }
        }
        router.get("/inApps/v1/subscriptions/extend/mass/{productId}/{requestIdentifier}") { request, context in
            await handle(request, context) { caller, _ in
                try massExtensionStatus(
                    caller, context.parameters.get("productId") ?? "", context.parameters.get("requestIdentifier") ?? "")
            }
        }
        router.put("/inApps/v1/transactions/consumption/{transactionId}") { request, context in
            try await withBody(request, context) { caller, bytes, now in
                try sendConsumption(caller, context.parameters.get("transactionId") ?? "", bytes, now)
            }
        }
        router.put("/inApps/v1/subscriptions/extend/{transactionId}") { request, context in
            try await withBody(request, context) { caller, bytes, now in
                try extendRenewalDate(caller, context.parameters.get("transactionId") ?? "", bytes, now)
            }
        }
    }

    /// `handle` for a request with a JSON body, read first (bounded in size and time).
    private func withBody(
        _ request: Request, _ context: ServeContext, _ work: @escaping @Sendable (Caller, [UInt8], Instant) throws -> Reply
    ) async throws -> Response {
        let bytes: [UInt8]
        switch try await body.read(request) {
        case .body(let read): bytes = read
        case .tooLarge, .tooSlow: return Self.error(.generalBadRequest, context, "body too large or too slow")
        }
        return await handle(request, context) { caller, now in try work(caller, bytes, now) }
    }

    /// What an endpoint answers: a status and a JSON body (nil: none).
    struct Reply: Sendable {
        var status: HTTPResponse.Status = .ok
        var json: Data?
        var note: String
    }

    /// Authenticates, then runs `work` off the event loops (store reads, ES256 signatures) at the store's
    /// instant; Apple's errors become their JSON, a refused token a bare 401.
    private func handle(
        _ request: Request, _ context: ServeContext, _ work: @escaping @Sendable (Caller, Instant) throws -> Reply
    ) async -> Response {
        let authorization = request.headers[.authorization]
        let store = self.store, apps = self.apps, limits = self.limits
        let outcome: Result<Reply, any Error> = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(
                    returning: Result {
                        let caller = try Self.authenticate(authorization, store: store, apps: apps, wall: Instant(Date()))
                        guard limits.take(keyId: caller.keyId, appId: caller.app.id, at: Instant(Date())) else { throw AppStoreAPIError.rateLimitExceeded }
                        return try work(caller, try store.now(wall: Instant(Date())).instant)
                    })
            }
        }
        switch outcome {
        case .success(let reply):
            context.note.set("\(reply.status.code) \(reply.note)")
            var headers: HTTPFields = [:]
            if reply.json != nil { headers[.contentType] = "application/json" }
            return Response(status: reply.status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: reply.json ?? Data())))
        case .failure(let refusal as AppStoreAPITokenRefusal):
            context.note.set("401 " + refusal.description)
            return Response(status: .unauthorized, headers: [:], body: .init())
        case .failure(let error as AppStoreAPIError):
            return Self.error(error, context, error.errorMessage)
        case .failure(let error):
            return Self.error(.generalInternal, context, "store: \(error)")
        }
    }

    private static func error(_ error: AppStoreAPIError, _ context: ServeContext, _ note: String) -> Response {
        context.note.set("\(error.status) \(error.errorCode) \(note)")
        return Response(
            status: HTTPResponse.Status(code: error.status), headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(string: error.body)))
    }

    /// The app whose registered key signed the bearer token, for the app its `bid` names.
    static func authenticate(_ authorization: String?, store: any AppleAPIStore, apps: AppDirectory, wall: Instant) throws -> Caller {
        guard let authorization, authorization.hasPrefix("Bearer ") else { throw AppStoreAPITokenRefusal.missing }
        guard let bundleId = AppStoreAPITokenVerifier.claimedBundleId(authorization: authorization) else {
            throw AppStoreAPITokenRefusal.malformed("no bid claim can be read")
        }
        var owners: [String: App] = [:]
        var keys: [AppStoreAPIKey] = []
        for app in apps.apps(bundleId: bundleId) {
            for key in try store.appAPIKeys(appId: app.id) {
                owners[key.keyId] = owners[key.keyId] ?? app
                keys.append(AppStoreAPIKey(keyId: key.keyId, issuerId: key.issuerId, publicKeyDER: key.publicKeyDER))
            }
        }
        switch AppStoreAPITokenVerifier(keys: keys).verify(authorization: authorization, bundleId: bundleId, now: wall) {
        case .success(let token):
            guard let app = owners[token.keyId] else { throw AppStoreAPITokenRefusal.unknownKeyId(token.keyId) }
            return Caller(app: app, keyId: token.keyId)
        case .failure(let refusal):
            throw refusal
        }
    }

    /// The customer of a transaction of the caller's app; another app's transaction is not found.
    private func customer(_ caller: Caller, _ transactionId: String) throws -> AppStoreCustomer {
        guard let customer = try store.appStoreCustomer(transactionId: transactionId), customer.app.id == caller.app.id else {
            throw AppStoreAPIError.transactionIdNotFound
        }
        return customer
    }

    /// The rows of a transaction of the caller's app a request shows (`read`); another app's is not found.
    private func slice(_ caller: Caller, _ transactionId: String, _ read: AppStoreSliceRead) throws -> AppStoreHistorySlice {
        guard let slice = try store.appStoreSlice(transactionId: transactionId, read, limit: AppStoreServerAPI.pageSize + 1),
            slice.customer.app.id == caller.app.id
        else { throw AppStoreAPIError.transactionIdNotFound }
        return slice
    }

    private func transactionInfo(_ caller: Caller, _ id: String, _ now: Instant) throws -> Reply {
        let customer = try slice(caller, try AppStoreServerAPI.checkTransactionId(id), .transaction).customer
        let payload = try AppStoreServerAPI.transaction(customer, at: now)
        return try Self.json(["signedTransactionInfo": try chain.signTransaction(payload)], note: "transaction \(id)")
    }

    private func history(_ caller: Caller, _ id: String, _ items: [(name: String, value: String)], _ now: Instant) throws -> Reply {
        let query = try AppStoreHistoryQuery(items: items)
        let slice = try slice(caller, try AppStoreServerAPI.checkTransactionId(id), .history(query))
        let customer = slice.customer
        let page = AppStoreServerAPI.history(slice, query: query, at: now)
        return try Self.json(
            HistoryResponse(
                revision: page.revision.token, hasMore: page.hasMore, bundleId: customer.app.bundleId, appAppleId: customer.app.appleAppId,
                environment: customer.environment.rawValue, signedTransactions: try page.payloads.map(chain.signTransaction)),
            note: "history of \(id): \(page.payloads.count)\(page.hasMore ? ", more" : "")")
    }

    private func refundHistory(_ caller: Caller, _ id: String, _ revision: String?, _ now: Instant) throws -> Reply {
        let after = try revision.map { token throws(AppStoreAPIError) in try AppStoreRevision(token: token) }
        let slice = try slice(caller, try AppStoreServerAPI.checkTransactionId(id), .refunds(after))
        let page = AppStoreServerAPI.refunds(slice, revision: after, at: now)
        return try Self.json(
            RefundHistoryResponse(
                signedTransactions: try page.payloads.map(chain.signTransaction), revision: page.revision.token, hasMore: page.hasMore),
            note: "refunds of \(id): \(page.payloads.count)")
    }

    private func subscriptionStatuses(_ caller: Caller, _ id: String, _ statuses: [String], _ now: Instant) throws -> Reply {
        let filter = try AppStoreServerAPI.statusFilter(statuses)
        let customer = try customer(caller, try AppStoreServerAPI.checkTransactionId(id))
        let groups = AppStoreServerAPI.statuses(customer, statuses: filter, at: now)
        let data = try groups.map { group in
            StatusResponse.Group(
                subscriptionGroupIdentifier: group.subscriptionGroupIdentifier,
                lastTransactions: try group.lastTransactions.map { item in
                    StatusResponse.Item(
                        status: item.status, originalTransactionId: item.originalTransactionId,
                        signedTransactionInfo: try chain.signTransaction(item.transaction),
                        signedRenewalInfo: try chain.signRenewalInfo(item.renewal))
                })
        }
        return try Self.json(
            StatusResponse(
                environment: customer.environment.rawValue, bundleId: customer.app.bundleId, appAppleId: customer.app.appleAppId, data: data),
            note: "statuses of \(id): \(groups.reduce(0) { $0 + $1.lastTransactions.count })")
    }

    private func orderLookup(_ caller: Caller, _ orderId: String, _ now: Instant) throws -> Reply {
        let customer = try AppleOrderId.transactionId(of: orderId).flatMap { try store.appStoreTransaction(transactionId: $0) }
        guard let customer, customer.app.id == caller.app.id, let payloads = AppStoreServerAPI.order(customer, orderId: orderId, at: now) else {
            return try Self.json(OrderLookupResponse(status: 1, signedTransactions: nil), note: "order \(orderId): none")
        }
        return try Self.json(
            OrderLookupResponse(status: 0, signedTransactions: try payloads.map(chain.signTransaction)), note: "order \(orderId)")
    }

    private func requestTestNotification(_ caller: Caller, _ now: Instant) throws -> Reply {
        let uuid = UUID().uuidString.lowercased()
        let environment = caller.app.environments == .production ? "Production" : "Sandbox"
        let payload = ResponseBodyV2DecodedPayload(
            notificationType: .test, notificationUUID: uuid,
            data: NotificationData(environment: environment, appAppleId: caller.app.appleAppId, bundleId: caller.app.bundleId),
            signedDate: now)
        let token = "\(uuid)_\(now.millis)"
        let signed = try chain.signNotification(payload)
        tests.keep(token, appId: caller.app.id, signedPayload: signed)
        // Sent as Apple sends it; Get Test Notification Status shows the attempt once the POST ends.
        if let sender, let url = try store.app(id: caller.app.id)?.notificationURL {
            sender.sendTest(signed, uuid: uuid, to: url) { [tests] attempt in tests.record(token, attempt) }
        }
        return try Self.json(["testNotificationToken": token], note: "test notification \(token)")
    }

    private func testNotificationStatus(_ caller: Caller, _ token: String) throws -> Reply {
        guard token.split(separator: "_").count == 2, token.utf8.count <= 128 else { throw AppStoreAPIError.invalidTestNotificationToken }
        guard let (signedPayload, attempts) = tests.kept(token, appId: caller.app.id) else { throw AppStoreAPIError.testNotificationNotFound }
        return try Self.json(
            CheckTestNotificationResponse(
                signedPayload: signedPayload,
                sendAttempts: attempts.map { .init(attemptDate: $0.at.millis, sendAttemptResult: $0.result.rawValue) }),
            note: "test notification \(token)")
    }

    private func setAppAccountToken(_ caller: Caller, _ id: String, _ bytes: [UInt8], _ now: Instant) throws -> Reply {
        let originalId = try AppStoreServerAPI.checkTransactionId(id, original: true)
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else {
            throw AppStoreAPIError.generalBadRequest
        }
        guard let text = object["appAccountToken"] as? String else { throw AppStoreAPIError.invalidAppAccountTokenUUID }
        guard let customer = try store.appStoreTransaction(transactionId: originalId), customer.app.id == caller.app.id else {
            throw AppStoreAPIError.originalTransactionIdNotFound
        }
        let token = try AppStoreServerAPI.checkAppAccountToken(customer, token: text)
        try store.setAppAccountToken(token, originalTransactionId: originalId, actor: .apiKey(caller.keyId), at: now)
        return Reply(status: .ok, json: nil, note: "app account token of \(originalId) set")
    }

    private func extendRenewalDate(_ caller: Caller, _ id: String, _ bytes: [UInt8], _ now: Instant) throws -> Reply {
        let originalId = try AppStoreServerAPI.checkTransactionId(id, original: true)
        let request = try RenewalExtensionRequest(json: bytes)
        guard let customer = try store.appStoreTransaction(transactionId: originalId), customer.app.id == caller.app.id,
            let done = try store.extendRenewalDate(originalTransactionId: originalId, request, actor: .apiKey(caller.keyId), at: now)
        else { throw AppStoreAPIError.originalTransactionIdNotFound }
        return try Self.json(
            ExtendRenewalDateResponse(
                originalTransactionId: originalId, webOrderLineItemId: AppleOrderId.of(transactionId: originalId), success: true,
                effectiveDate: done.effectiveDate.millis),
            note: "renewal of \(originalId) extended by \(done.extendByDays) days to \(done.effectiveDate.iso8601)")
    }

    private func appTransactionInfo(_ caller: Caller, _ id: String, _ now: Instant) throws -> Reply {
        let customer = try customer(caller, try AppStoreServerAPI.checkTransactionId(id))
        let signed = try chain.signAppTransaction(AppTransactionDecodedPayload.of(customer, at: now))
        return try Self.json(["signedAppTransactionInfo": signed], note: "app transaction of \(id)")
    }

    /// Extend Subscription Renewal Dates for All Active Subscribers: each entitled subscription to the
    /// product extended as Extend a Subscription Renewal Date would (the mass request's identifier keeps
    /// a repeat from extending twice), done before the answer; its counts kept in the store for the status
    /// request (any serve of the store answers it, after a restart too).
    private func massExtend(_ caller: Caller, _ bytes: [UInt8], _ now: Instant) throws -> Reply {
        let request = try MassRenewalExtensionRequest(json: bytes)
        guard let product = try store.product(id: request.productId), product.appId == caller.app.id, product.type == .autoRenewable else {
            throw AppStoreAPIError.invalidProductId
        }
        if try store.massExtension(appId: caller.app.id, productId: product.id, requestIdentifier: request.single.requestIdentifier) == nil {
            var succeeded = 0, failed = 0
            for id in try store.entitledSubscriptionIds(appId: caller.app.id, productId: product.id) {
                do {
                    if try store.extendRenewalDate(originalTransactionId: id, request.single, actor: .apiKey(caller.keyId), at: now) != nil {
                        succeeded += 1
                    } else {
                        failed += 1
                    }
                } catch is AppStoreAPIError {
                    failed += 1
                }
            }
            _ = try store.keepMassExtension(
                MassRenewalExtensionStatus(request.single.requestIdentifier, completed: now, succeeded: succeeded, failed: failed),
                appId: caller.app.id, productId: product.id, actor: .apiKey(caller.keyId))
        }
        return try Self.json(["requestIdentifier": request.single.requestIdentifier], note: "mass extension of \(product.id)")
    }

    private func massExtensionStatus(_ caller: Caller, _ productId: String, _ requestIdentifier: String) throws -> Reply {
        guard !requestIdentifier.isEmpty, requestIdentifier.count <= 128 else { throw AppStoreAPIError.invalidRequestIdentifier }
        guard let status = try store.massExtension(appId: caller.app.id, productId: productId, requestIdentifier: requestIdentifier) else {
            throw AppStoreAPIError.statusRequestNotFound
        }
        return try Self.json(status, note: "mass extension \(requestIdentifier): \(status.succeededCount) extended, \(status.failedCount) not")
    }

    private func sendConsumption(_ caller: Caller, _ id: String, _ bytes: [UInt8], _ now: Instant) throws -> Reply {
        let transactionId = try AppStoreServerAPI.checkTransactionId(id)
        let info = try ConsumptionInformation(json: bytes)
        let customer = try slice(caller, transactionId, .transaction).customer
        guard let purchase = customer.purchases.first(where: { $0.transaction.id == transactionId }) else {
            throw AppStoreAPIError.transactionIdNotFound
        }
        guard purchase.product.type == .consumable else { throw AppStoreAPIError.invalidTransactionNotConsumable }
        do {
            _ = try store.answerConsumption(transactionId: transactionId, info, by: .apiKey(caller.keyId), at: now)
        } catch StoreError.invalidArgument {
            // No consumption request to answer (or answered already): nothing is taken.
            throw AppStoreAPIError.generalBadRequest
        }
        return Reply(status: .accepted, json: nil, note: "consumption information for \(transactionId)")
    }

    private func notificationHistory(_ caller: Caller, _ bytes: [UInt8], _ token: String?) throws -> Reply {
        let query = try NotificationHistoryQuery(json: bytes, paginationToken: token)
        let rows = try store.appNotifications(appId: caller.app.id, query, limit: AppStoreServerAPI.pageSize + 1)
        let page = rows.prefix(AppStoreServerAPI.pageSize)
        let deliveries = try store.notificationDeliveries(eventIds: page.map(\.id))
        let items = try page.map { row in
            let line = try chain.signedNotificationLine(row.event)
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String], let signed = object["signedPayload"] else {
                throw AppStoreAPIError.generalInternal
            }
            let attempts = (deliveries[row.id]?.attempts ?? []).map {
                NotificationHistoryResponse.SendAttempt(attemptDate: $0.at.millis, sendAttemptResult: $0.result.rawValue)
            }
            return NotificationHistoryResponse.Item(signedPayload: signed, sendAttempts: attempts)
        }
        let last = page.last?.id ?? query.after ?? 0
        return try Self.json(
            NotificationHistoryResponse(
                notificationHistory: items, hasMore: rows.count > page.count, paginationToken: NotificationHistoryQuery.token(after: last)),
            note: "notification history: \(items.count)")
    }

    /// Apple's JSON: nil fields left out, slashes as they are.
    private static func json(_ value: some Encodable, note: String) throws -> Reply {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Reply(json: try encoder.encode(value), note: note)
    }

    struct HistoryResponse: Encodable {
        var revision: String
        var hasMore: Bool
        var bundleId: String
        var appAppleId: Int64?
        var environment: String
        var signedTransactions: [String]
    }

    struct RefundHistoryResponse: Encodable {
        var signedTransactions: [String]
        var revision: String
        var hasMore: Bool
    }

    struct StatusResponse: Encodable {
        struct Item: Encodable {
            var status: Int
            var originalTransactionId: String
            var signedTransactionInfo: String
            var signedRenewalInfo: String
        }

        struct Group: Encodable {
            var subscriptionGroupIdentifier: String
            var lastTransactions: [Item]
        }

        var environment: String
        var bundleId: String
        var appAppleId: Int64?
        var data: [Group]
    }

    struct ExtendRenewalDateResponse: Encodable {
        var originalTransactionId: String
        var webOrderLineItemId: String
        var success: Bool
        var effectiveDate: Int64
    }

    struct NotificationHistoryResponse: Encodable {
        /// Apple's `SendAttemptItem`.
        struct SendAttempt: Encodable {
            var attemptDate: Int64
            var sendAttemptResult: String
        }

        struct Item: Encodable {
            var signedPayload: String
            var sendAttempts: [SendAttempt]
        }

        var notificationHistory: [Item]
        var hasMore: Bool
        var paginationToken: String
    }

    struct OrderLookupResponse: Encodable {
        var status: Int
        var signedTransactions: [String]?
    }

    struct CheckTestNotificationResponse: Encodable {
        var signedPayload: String
        var sendAttempts: [NotificationHistoryResponse.SendAttempt]
    }
}
