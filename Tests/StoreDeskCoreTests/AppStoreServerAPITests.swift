import Testing

@testable import StoreDeskCore

/// The App Store Server API's decisions: Apple's order ids, Apple's payload fields, history pages of 20
/// with their revision and filters, statuses, and Apple's error numbers.
@Suite struct AppStoreServerAPITests {
    static let day: Int64 = 86_400_000
    static let start = Instant(millis: 1_780_000_000_000)
    static let app = App(
        id: "1001", name: "Star", bundleId: "com.example.star", appKey: "k", currencyPerYuan: 10, restoreOwnership: .transfer,
        gracePeriodDays: 16, appleAppId: 6_741_000_101)
    static let gems = Product(id: "gems", appId: "1001", name: "Gems", type: .consumable, priceCents: 3000, currency: "CNY")
    static let sword = Product(id: "sword", appId: "1001", name: "Sword", type: .nonConsumable, priceCents: 600, currency: "CNY")
    static let vip = Product(
        id: "vip.monthly", appId: "1001", name: "VIP", type: .autoRenewable, priceCents: 2500, currency: "CNY", subscriptionGroup: "vip",
        period: .oneMonth)

    static func purchase(
        _ id: String, _ product: Product, day: Int64, original: String? = nil, state: TransactionState = .purchased,
        environment: StoreEnvironment = .production, revokedDay: Int64? = nil, reason: String? = nil
    ) -> AppStorePurchase {
        AppStorePurchase(
            transaction: StoreTransaction(
                id: id, originalTransactionId: original ?? id, userId: "u1", appId: "1001", productId: product.id, state: state,
                environment: environment, sid: "s1", purchaseDate: Instant(millis: start.millis + day * Self.day),
                expiresDate: product.type == .autoRenewable ? Instant(millis: start.millis + (day + 30) * Self.day) : nil,
                revocationDate: revokedDay.map { Instant(millis: start.millis + $0 * Self.day) }, revocationReason: reason, finished: true),
            product: product, appAccountToken: "2f6a5c1e-0000-4000-8000-000000000001")
    }

    static func customer(asking id: String = "2000000000000001", purchases: [AppStorePurchase], subscriptions: [Subscription] = []) -> AppStoreCustomer {
        AppStoreCustomer(app: app, askedTransactionId: id, environment: .production, purchases: purchases, subscriptions: subscriptions)
    }

    @Test func orderIdsAreTenCharactersForAppleShapedIdsAndComeBackToTheirTransaction() {
        var seen = Set<String>()
        for id in ["2000000100000001", "2000000100000002", "2000000000000017", "1", "3656158440062975", "sim1-T12", "2000000100000001x", "007"] {
            let order = AppleOrderId.of(transactionId: id)
            #expect(AppleOrderId.transactionId(of: order) == id, "\(id) → \(order)")
            #expect(AppleOrderId.transactionId(of: order.lowercased()) == id)
            #expect(order.allSatisfy { $0.isASCII && ($0.isUppercase || $0.isNumber) })
            #expect(seen.insert(order).inserted)
            let appleShaped = UInt64(id).map { $0 < 3_656_158_440_062_976 && String($0) == id } ?? false
            #expect((order.count == 10) == appleShaped, "\(id) → \(order)")
        }
        // Neighbours do not look alike, and text no transaction makes names none.
        #expect(AppleOrderId.of(transactionId: "2000000100000001").prefix(4) != AppleOrderId.of(transactionId: "2000000100000002").prefix(4))
        for text in ["", "MK5TTTVWJ", "MK5TTTVWJ!", "X", "X0189", "XMZXW61"] {
            #expect(AppleOrderId.transactionId(of: text) == nil, "\(text)")
        }
        #expect(AppleOrderId.transactionId(of: "XMZXW6") == "foo")
    }

    @Test func aPurchaseBecomesApplesTransactionPayload() throws {
        let first = Self.purchase("2000000000000001", Self.vip, day: 0)
        let renewal = Self.purchase("2000000000000002", Self.vip, day: 30, original: "2000000000000001", revokedDay: 31, reason: "refund")
        let customer = Self.customer(asking: "2000000000000002", purchases: [first, renewal])
        let signedAt = Instant(millis: Self.start.millis + 40 * Self.day)
        let payload = try AppStoreServerAPI.transaction(customer, at: signedAt)
        #expect(payload.transactionId == "2000000000000002" && payload.originalTransactionId == "2000000000000001")
        #expect(payload.bundleId == "com.example.star" && payload.productId == "vip.monthly" && payload.subscriptionGroupIdentifier == "vip")
        #expect(payload.type == "Auto-Renewable Subscription" && payload.transactionReason == "RENEWAL" && payload.inAppOwnershipType == "PURCHASED")
        #expect(payload.originalPurchaseDate == first.transaction.purchaseDate && payload.purchaseDate == renewal.transaction.purchaseDate)
        #expect(payload.expiresDate == renewal.transaction.expiresDate && payload.signedDate == signedAt)
        #expect(payload.price == 25_000 && payload.currency == "CNY" && payload.storefront == "CHN" && payload.environment == "Production")
        #expect(payload.revocationDate == renewal.transaction.revocationDate && payload.revocationReason == .other && payload.revocationType == "REFUND_FULL")
        #expect(payload.webOrderLineItemId == AppleOrderId.of(transactionId: "2000000000000002"))
        #expect(payload.appAccountToken == "2f6a5c1e-0000-4000-8000-000000000001")
        let gems = AppStorePayloads.transaction(Self.purchase("2000000000000003", Self.gems, day: 2), in: customer, at: signedAt)
        #expect(gems.type == "Consumable" && gems.expiresDate == nil && gems.subscriptionGroupIdentifier == nil && gems.transactionReason == "PURCHASE")
        #expect(gems.webOrderLineItemId == nil && gems.revocationReason == nil && gems.price == 30_000)
        let shared = AppStorePayloads.transaction(Self.purchase("2000000000000004", Self.sword, day: 3, revokedDay: 4, reason: "family_sharing"), in: customer, at: signedAt)
        #expect(shared.inAppOwnershipType == "FAMILY_SHARED" && shared.revocationType == nil && shared.type == "Non-Consumable")
    }

    @Test func onlyBoughtTransactionsOfTheAskedEnvironmentAreShown() {
        let purchases = [
            Self.purchase("2000000000000001", Self.gems, day: 0), Self.purchase("2000000000000002", Self.gems, day: 1, state: .failed),
            Self.purchase("2000000000000003", Self.gems, day: 2, state: .purchasing), Self.purchase("2000000000000004", Self.gems, day: 3, state: .restored),
            Self.purchase("2000000000000005", Self.gems, day: 4, environment: .sandbox),
        ]
        #expect(AppStoreServerAPI.visible(Self.customer(purchases: purchases)).map(\.transaction.id) == ["2000000000000001", "2000000000000004"])
        #expect(throws: AppStoreAPIError.transactionIdNotFound) {
            try AppStoreServerAPI.transaction(Self.customer(asking: "2000000000000002", purchases: purchases), at: Self.start)
        }
    }

    @Test func historyPagesByTwentyWithARevisionBothWays() throws {
        let purchases: [AppStorePurchase] = (1...45).map { (index: Int) -> AppStorePurchase in
            let product: Product = index % 3 == 0 ? Self.vip : Self.gems
            return Self.purchase(String(2_000_000_000_000_000 + index), product, day: Int64(index))
        }
        let customer = Self.customer(purchases: purchases.shuffled())
        for descending in [false, true] {
            var query = AppStoreHistoryQuery()
            query.descending = descending
            var seen: [String] = []
            var pages = 0
            while pages < 10 {
                let page = AppStoreServerAPI.history(customer, query: query, at: Self.start)
                seen += page.payloads.compactMap(\.transactionId)
                pages += 1
                #expect(page.payloads.count == (pages < 3 ? 20 : 5))
                query.revision = try AppStoreRevision(token: page.revision.token)
                if !page.hasMore { break }
            }
            let expected = purchases.map(\.transaction.id)
            #expect(seen == (descending ? expected.reversed() : expected), "\(descending)")
            #expect(pages == 3)
            // The last revision asked again gives nothing more.
            let after = AppStoreServerAPI.history(customer, query: query, at: Self.start)
            #expect(after.payloads.isEmpty && !after.hasMore)
        }
    }

    @Test func historyFiltersAsAppleNamesThem() throws {
        let purchases = [
            Self.purchase("2000000000000001", Self.gems, day: 0), Self.purchase("2000000000000002", Self.vip, day: 1),
            Self.purchase("2000000000000003", Self.sword, day: 2, revokedDay: 3, reason: "refund"),
            Self.purchase("2000000000000004", Self.sword, day: 4, revokedDay: 5, reason: "family_sharing"),
        ]
        let customer = Self.customer(purchases: purchases)
        func ids(_ items: [(String, String)]) throws -> [String] {
            let query = try AppStoreHistoryQuery(items: items.map { (name: $0.0, value: $0.1) })
            return AppStoreServerAPI.history(customer, query: query, at: Self.start).payloads.compactMap { $0.transactionId.map { String($0.suffix(1)) } }
        }
        let day1 = String(Self.start.millis + Self.day), day3 = String(Self.start.millis + 3 * Self.day)
        #expect(try ids([]) == ["1", "2", "3", "4"])
        #expect(try ids([("startDate", day1), ("endDate", day3)]) == ["2", "3"])
        #expect(try ids([("productId", "gems"), ("productId", "vip.monthly")]) == ["1", "2"])
        #expect(try ids([("productType", "NON_CONSUMABLE")]) == ["3", "4"])
        #expect(try ids([("productType", "AUTO_RENEWABLE"), ("productType", "CONSUMABLE")]) == ["1", "2"])
        #expect(try ids([("subscriptionGroupIdentifier", "vip")]) == ["2"])
        #expect(try ids([("revoked", "True")]) == ["3", "4"])
        #expect(try ids([("revoked", "false")]) == ["1", "2"])
        #expect(try ids([("inAppOwnershipType", "FAMILY_SHARED")]) == ["4"])
        #expect(try ids([("sort", "DESCENDING"), ("productType", "NON_CONSUMABLE")]) == ["4", "3"])
        for (items, error) in [
            ([("startDate", "yesterday")], AppStoreAPIError.invalidStartDate), ([("endDate", "-5")], .invalidEndDate),
            ([("startDate", day3), ("endDate", day1)], .startDateAfterEndDate), ([("sort", "UP")], .invalidSort),
            ([("productType", "SUBSCRIPTION")], .invalidProductType), ([("inAppOwnershipType", "GIFTED")], .invalidInAppOwnershipType),
            ([("revoked", "maybe")], .invalidRevoked), ([("revision", "nonsense")], .invalidRevision),
        ] {
            #expect(throws: error) { try ids(items) }
        }
        let refunds = AppStoreServerAPI.refunds(customer, revision: nil, at: Self.start)
        #expect(refunds.payloads.compactMap(\.transactionId) == ["2000000000000003", "2000000000000004"] && !refunds.hasMore)
    }

    @Test func statusesGroupEachSubscriptionWithItsLatestTransactionAndRenewalInfo() throws {
        let purchases = [
            Self.purchase("2000000000000001", Self.vip, day: 0), Self.purchase("2000000000000002", Self.vip, day: 30, original: "2000000000000001"),
        ]
        let active = Subscription(
            id: "2000000000000001", userId: "u1", appId: "1001", productId: "vip.monthly", groupId: "vip", state: .active, autoRenew: true,
            originalPurchaseDate: purchases[0].transaction.purchaseDate, purchaseDate: purchases[1].transaction.purchaseDate,
            expiresDate: Instant(millis: Self.start.millis + 60 * Self.day))
        let customer = Self.customer(purchases: purchases, subscriptions: [active])
        let now = Instant(millis: Self.start.millis + 40 * Self.day)
        let groups = AppStoreServerAPI.statuses(customer, statuses: nil, at: now)
        let item = try #require(groups.first?.lastTransactions.first)
        #expect(groups.map(\.subscriptionGroupIdentifier) == ["vip"] && item.status == 1 && item.originalTransactionId == "2000000000000001")
        #expect(item.transaction.transactionId == "2000000000000002" && item.transaction.expiresDate == active.expiresDate)
        #expect(item.renewal.autoRenewStatus == 1 && item.renewal.renewalDate == active.expiresDate && item.renewal.expirationIntent == nil)
        #expect(item.renewal.autoRenewProductId == "vip.monthly" && item.renewal.renewalPrice == 25_000 && item.renewal.environment == "Production")
        #expect(AppStoreServerAPI.statuses(customer, statuses: [2, 5], at: now).isEmpty)
        // Played forward past its end without renewing: expired.
        var lapsed = active
        lapsed.autoRenew = false
        let later = Instant(millis: Self.start.millis + 90 * Self.day)
        let expired = try #require(AppStoreServerAPI.statuses(Self.customer(purchases: purchases, subscriptions: [lapsed]), statuses: [2], at: later).first?.lastTransactions.first)
        #expect(expired.status == 2 && expired.renewal.autoRenewStatus == 0 && expired.renewal.expirationIntent == .cancelled && expired.renewal.renewalDate == nil)
        #expect(throws: AppStoreAPIError.invalidStatus) { try AppStoreServerAPI.statusFilter(["6"]) }
        #expect(throws: AppStoreAPIError.invalidStatus) { try AppStoreServerAPI.statusFilter(["active"]) }
        #expect(try AppStoreServerAPI.statusFilter(["1", "4"]) == [1, 4] && AppStoreServerAPI.statusFilter([]) == nil)
    }

    @Test func ordersIdsTokensAndErrorsAreApples() throws {
        let purchases = [Self.purchase("2000000000000001", Self.vip, day: 0), Self.purchase("2000000000000002", Self.vip, day: 30, original: "2000000000000001")]
        let customer = Self.customer(purchases: purchases)
        let order = AppleOrderId.of(transactionId: "2000000000000001")
        #expect(AppStoreServerAPI.order(customer, orderId: order, at: Self.start)?.map(\.transactionId) == ["2000000000000001"])
        #expect(AppStoreServerAPI.order(customer, orderId: "MK5TTTVWJH", at: Self.start) == nil)
        #expect(AppStoreServerAPI.order(nil, orderId: order, at: Self.start) == nil)
        for bad in ["", "12 34", "1;DROP", String(repeating: "9", count: 65), "１２"] {
            #expect(throws: AppStoreAPIError.invalidTransactionId) { try AppStoreServerAPI.checkTransactionId(bad) }
        }
        #expect(throws: AppStoreAPIError.invalidOriginalTransactionId) { try AppStoreServerAPI.checkTransactionId("", original: true) }
        #expect(try AppStoreServerAPI.checkTransactionId("sim1-T12") == "sim1-T12")
        let uuid = "7E3FB20B-4CDB-47CC-936D-99D65F608138"
        #expect(try AppStoreServerAPI.checkAppAccountToken(customer, token: uuid) == uuid.lowercased())
        #expect(throws: AppStoreAPIError.invalidAppAccountTokenUUID) { try AppStoreServerAPI.checkAppAccountToken(customer, token: "not-a-uuid") }
        #expect(throws: AppStoreAPIError.transactionIdIsNotOriginal) {
            try AppStoreServerAPI.checkAppAccountToken(Self.customer(asking: "2000000000000002", purchases: purchases), token: uuid)
        }
        #expect(AppStoreAPIError.transactionIdNotFound.status == 404 && AppStoreAPIError.transactionIdNotFound.errorCode == 4_040_010)
        #expect(AppStoreAPIError.invalidTransactionId.body == #"{"errorCode":4000006,"errorMessage":"Invalid transaction id."}"#)
    }

    @Test func aRenewalDateIsExtendedAtMostNinetyDaysTwiceAYearWhileActive() throws {
        let expires = Instant(millis: Self.start.millis + 30 * Self.day)
        let active = Subscription(
            id: "2000000000000001", userId: "u1", appId: "1001", productId: "vip.monthly", groupId: "vip", state: .active, autoRenew: true,
            originalPurchaseDate: Self.start, purchaseDate: Self.start, expiresDate: expires)
        let now = Instant(millis: Self.start.millis + 10 * Self.day)
        let first = try RenewalExtension.decide(active, try RenewalExtensionRequest(extendByDays: 30, extendReasonCode: 1, requestIdentifier: "a"), earlier: [], at: now)
        #expect(!first.repeated && first.extension.previousExpiresDate == expires)
        #expect(first.extension.effectiveDate == expires.adding(.days(30)))
        let again = try RenewalExtension.decide(
            active, try RenewalExtensionRequest(extendByDays: 5, extendReasonCode: 0, requestIdentifier: "a"), earlier: [first.extension], at: now)
        #expect(again.repeated && again.extension == first.extension)
        let second = try RenewalExtension.decide(
            active, try RenewalExtensionRequest(extendByDays: 90, extendReasonCode: 3, requestIdentifier: "b"), earlier: [first.extension], at: now)
        #expect(throws: AppStoreAPIError.subscriptionMaxExtension) {
            try RenewalExtension.decide(
                active, try RenewalExtensionRequest(extendByDays: 1, extendReasonCode: 2, requestIdentifier: "c"),
                earlier: [first.extension, second.extension], at: now)
        }
        // A year on, the first two no longer count.
        let nextYear = Instant(millis: now.millis + 366 * Self.day)
        var renewed = active
        renewed.expiresDate = Instant(millis: nextYear.millis + 5 * Self.day)
        renewed.purchaseDate = Instant(millis: nextYear.millis - 25 * Self.day)
        #expect(throws: Never.self) {
            try RenewalExtension.decide(
                renewed, try RenewalExtensionRequest(extendByDays: 1, extendReasonCode: 2, requestIdentifier: "c"),
                earlier: [first.extension, second.extension], at: nextYear)
        }
        var revoked = active
        revoked.state = .revoked
        revoked.revocationDate = now
        #expect(throws: AppStoreAPIError.subscriptionExtensionIneligible) {
            try RenewalExtension.decide(revoked, try RenewalExtensionRequest(extendByDays: 1, extendReasonCode: 0, requestIdentifier: "d"), earlier: [], at: now)
        }
        for (days, reason, identifier, error) in [
            (0, 1, "x", AppStoreAPIError.invalidExtendByDays), (91, 1, "x", .invalidExtendByDays), (1, 4, "x", .invalidExtendReasonCode),
            (1, -1, "x", .invalidExtendReasonCode), (1, 1, "", .invalidRequestIdentifier), (1, 1, String(repeating: "r", count: 129), .invalidRequestIdentifier),
        ] {
            #expect(throws: error) { try RenewalExtensionRequest(extendByDays: days, extendReasonCode: reason, requestIdentifier: identifier) }
        }
        #expect(throws: AppStoreAPIError.generalBadRequest) { try RenewalExtensionRequest(json: Array("not json".utf8)) }
        #expect(try RenewalExtensionRequest(json: Array(#"{"extendByDays":7,"extendReasonCode":0,"requestIdentifier":"t"}"#.utf8)).extendByDays == 7)
    }

    @Test func notificationHistoryRequestsAreCheckedAsAppleChecksThem() throws {
        func query(_ json: String, token: String? = nil) throws(AppStoreAPIError) -> NotificationHistoryQuery {
            try NotificationHistoryQuery(json: Array(json.utf8), paginationToken: token)
        }
        let ok = try query(#"{"startDate":1,"endDate":2,"notificationType":"DID_RENEW","notificationSubtype":"BILLING_RECOVERY"}"#, token: "N41")
        #expect(ok.startDate.millis == 1 && ok.endDate.millis == 2 && ok.notificationType == "DID_RENEW" && ok.after == 41 && !ok.onlyFailures)
        #expect(try query(#"{"startDate":1,"endDate":2,"transactionId":"2000000100000030","onlyFailures":true}"#).onlyFailures)
        for (json, token, error) in [
            ("nope", nil, AppStoreAPIError.generalBadRequest), (#"{"endDate":2}"#, nil, .invalidStartDate),
            (#"{"startDate":"1","endDate":2}"#, nil, .invalidStartDate), (#"{"startDate":1}"#, nil, .invalidEndDate),
            (#"{"startDate":3,"endDate":2}"#, nil, .startDateAfterEndDate), (#"{"startDate":1,"endDate":2,"notificationType":"renew"}"#, nil, .invalidNotificationType),
            (#"{"startDate":1,"endDate":2,"notificationType":"TEST","transactionId":"1"}"#, nil, .multipleFiltersSupplied),
            (#"{"startDate":1,"endDate":2,"transactionId":"1 2"}"#, nil, .invalidTransactionId),
            (#"{"startDate":1,"endDate":2}"#, "page-2", .invalidPaginationToken),
        ] as [(String, String?, AppStoreAPIError)] {
            #expect(throws: error) { try query(json, token: token) }
        }
        #expect(NotificationHistoryQuery.token(after: 41) == "N41")
    }
}
