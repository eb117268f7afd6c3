import Foundation
import StoreDeskCore
import Testing
import X509

@testable import StoreDeskTrust

/// Apple's payloads as the store will sign them: what the tests send and what each decodes to.
enum ApplePayloads {
    static let bundleId = "com.storedesk.starvoyage"
    static let appAppleId: Int64 = 6_741_000_101
    static let productId = "com.storedesk.starvoyage.vip.monthly"

    static func transaction(environment: String = "Production", bundleId: String = bundleId) -> JWSTransactionDecodedPayload {
        JWSTransactionDecodedPayload(
            originalTransactionId: "2000000100000201", transactionId: "2000000100000202", webOrderLineItemId: "2000000010000301",
            bundleId: bundleId, productId: productId, subscriptionGroupIdentifier: "21500001",
            purchaseDate: Instant(millis: 1_785_920_400_000), originalPurchaseDate: Instant(millis: 1_783_242_000_000),
            expiresDate: Instant(millis: 1_788_598_800_000), quantity: 1, type: "Auto-Renewable Subscription",
            appAccountToken: "7e3fb20b-4cdb-47cc-936d-99d65f608138", inAppOwnershipType: "PURCHASED",
            signedDate: Signed.signedDate, offerType: .introductory, offerIdentifier: "intro.week",
            environment: environment, storefront: "CHN", storefrontId: "143465", transactionReason: "RENEWAL", currency: "CNY",
            price: 30000, offerDiscountType: .freeTrial, appTransactionId: "704289572311031296", offerPeriod: "P1W")
    }

    static func renewal(environment: String = "Production") -> JWSRenewalInfoDecodedPayload {
        JWSRenewalInfoDecodedPayload(
            originalTransactionId: "2000000100000201", autoRenewProductId: productId, productId: productId, autoRenewStatus: 1,
            isInBillingRetryPeriod: false, signedDate: Signed.signedDate, environment: environment,
            recentSubscriptionStartDate: Instant(millis: 1_783_242_000_000), renewalDate: Instant(millis: 1_788_598_800_000),
            currency: "CNY", renewalPrice: 30000, eligibleWinBackOfferIds: ["winback.month"],
            appTransactionId: "704289572311031296")
    }

    static func notification(environment: String = "Production", appAppleId: Int64? = appAppleId) -> ResponseBodyV2DecodedPayload {
        ResponseBodyV2DecodedPayload(
            notificationType: .didRenew, notificationUUID: "a8f2a4e4-4c8f-4d5b-9f6a-0f1f4e2c9b01",
            data: NotificationData(
                environment: environment, appAppleId: appAppleId, bundleId: bundleId, bundleVersion: "2.4.1", status: 1),
            signedDate: Signed.signedDate)
    }

    /// A JSON object's keys.
    static func keys(_ json: Data) throws -> Set<String> {
        Set(try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any]).keys)
    }
}

@Suite struct AppStorePayloadSigningTests {
    @Test func aSignedTransactionCarriesApplesHeaderAndFieldNamesAndVerifies() throws {
        let chain = try Signed.chain
        let jws = try UnverifiedJWS(compact: try chain.signTransaction(ApplePayloads.transaction()))
        let header = try #require(try JSONSerialization.jsonObject(with: jws.header) as? [String: Any])
        #expect(header["alg"] as? String == "ES256")
        #expect(header["x5c"] as? [String] == (try chain.x5c()))
        #expect(
            try ApplePayloads.keys(jws.payload) == [
                "originalTransactionId", "transactionId", "webOrderLineItemId", "bundleId", "productId",
                "subscriptionGroupIdentifier", "purchaseDate", "originalPurchaseDate", "expiresDate", "quantity", "type",
                "appAccountToken", "inAppOwnershipType", "signedDate", "offerType", "offerIdentifier", "environment", "storefront",
                "storefrontId", "transactionReason", "currency", "price", "offerDiscountType", "appTransactionId", "offerPeriod",
            ])
        #expect(try jws.decodePayload(JWSTransactionDecodedPayload.self) == ApplePayloads.transaction())
        // The store's verifier, trusting the chain's root, takes it (and the import's TransactionInfo reads it).
        #expect(try Signed.verifier(chain).verify(jws, at: Signed.signedDate).map(\.rootSHA256) == .success(
            try TrustedRoot(chain.root).sha256))
        #expect(try jws.decodePayload(TransactionInfo.self).expiresDate == Instant(millis: 1_788_598_800_000))
    }

    @Test func aSignedRenewalInfoVerifies() throws {
        let chain = try Signed.chain
        let jws = try UnverifiedJWS(compact: try chain.signRenewalInfo(ApplePayloads.renewal()))
        #expect(try jws.decodePayload(JWSRenewalInfoDecodedPayload.self) == ApplePayloads.renewal())
        #expect(try ApplePayloads.keys(jws.payload).isSuperset(of: ["autoRenewStatus", "renewalDate", "eligibleWinBackOfferIds"]))
        #expect((try? Signed.verifier(chain).verify(jws, at: Signed.signedDate).get()) != nil)
        // Another chain's root does not anchor it.
        #expect(failedCheck(try Signed.verifier(try SigningChain(name: "Elsewhere")).verify(jws, at: Signed.signedDate)) == .untrustedRoot)
    }

    @Test func aNotificationNestsItsSignedInfosAndTheImportTakesItAsVerified() throws {
        let chain = try Signed.chain
        let body = try chain.notificationBody(
            ApplePayloads.notification(), transaction: ApplePayloads.transaction(), renewal: ApplePayloads.renewal())
        let signedPayload = try #require(
            (try JSONSerialization.jsonObject(with: body) as? [String: String])?["signedPayload"])
        let jws = try UnverifiedJWS(compact: signedPayload)
        let decoded = try jws.decodePayload(ResponseBodyV2DecodedPayload.self)
        #expect(try ApplePayloads.keys(jws.payload) == ["notificationType", "notificationUUID", "data", "version", "signedDate"])
        #expect(decoded.version == "2.0")
        let transaction = try UnverifiedJWS(compact: try #require(decoded.data?.signedTransactionInfo))
        let renewal = try UnverifiedJWS(compact: try #require(decoded.data?.signedRenewalInfo))
        #expect(try transaction.decodePayload(JWSTransactionDecodedPayload.self) == ApplePayloads.transaction())
        #expect(try renewal.decodePayload(JWSRenewalInfoDecodedPayload.self) == ApplePayloads.renewal())
        // The whole line through the import's judge: every signed part verified, the app's identity checked.
        let app = App(
            id: "1001", name: "Star Voyage", bundleId: ApplePayloads.bundleId, appKey: "secret", currencyPerYuan: 10,
            restoreOwnership: .transfer, gracePeriodDays: 16, appleAppId: ApplePayloads.appAppleId, environments: .both)
        let verdict = Signed.judge(
            String(decoding: body, as: UTF8.self), trust: Signed.trust(try Signed.verifier(chain)),
            catalogue: NotificationImport.Catalogue(products: [Signed.product], apps: [app]))
        #expect(Signed.outcome(verdict) == "imported as verified")
    }

    @Test func applesModelFieldNamesRoundTrip() throws {
        // Apple's documented names, every one the types model, read and written back unchanged.
        let transaction: [String: Any] = [
            "originalTransactionId": "1", "transactionId": "2", "webOrderLineItemId": "3", "bundleId": "b", "productId": "p",
            "subscriptionGroupIdentifier": "g", "purchaseDate": 1, "originalPurchaseDate": 2, "expiresDate": 3, "quantity": 1,
            "type": "Consumable", "appAccountToken": "t", "inAppOwnershipType": "FAMILY_SHARED", "signedDate": 4,
            "revocationReason": 1, "revocationDate": 5, "isUpgraded": true, "offerType": 3, "offerIdentifier": "o",
            "environment": "Sandbox", "storefront": "USA", "storefrontId": "143441", "transactionReason": "PURCHASE",
            "currency": "USD", "price": 990, "offerDiscountType": "PAY_UP_FRONT", "appTransactionId": "a", "offerPeriod": "P1M",
            "revocationType": "REFUND_PRORATED", "revocationPercentage": 50000,
        ]
        let renewal: [String: Any] = [
            "expirationIntent": 1, "originalTransactionId": "1", "autoRenewProductId": "p2", "productId": "p",
            "autoRenewStatus": 0, "isInBillingRetryPeriod": true, "priceIncreaseStatus": 1, "gracePeriodExpiresDate": 6,
            "offerType": 2, "offerIdentifier": "o", "signedDate": 4, "environment": "Sandbox", "recentSubscriptionStartDate": 1,
            "renewalDate": 7, "currency": "USD", "renewalPrice": 990, "offerDiscountType": "FREE_TRIAL",
            "eligibleWinBackOfferIds": ["w"], "appAccountToken": "t", "appTransactionId": "a", "offerPeriod": "P1W",
        ]
        let notification: [String: Any] = [
            "notificationType": "RENEWAL_EXTENSION", "subtype": "SUMMARY", "notificationUUID": "u", "version": "2.0",
            "signedDate": 4,
            "data": [
                "environment": "Sandbox", "appAppleId": 1234, "bundleId": "b", "bundleVersion": "1", "signedTransactionInfo": "x",
                "signedRenewalInfo": "y", "status": 5, "consumptionRequestReason": "LEGAL",
            ],
            "summary": [
                "environment": "Sandbox", "appAppleId": 1234, "bundleId": "b", "productId": "p", "requestIdentifier": "r",
                "storefrontCountryCodes": ["USA", "CHN"], "succeededCount": 5, "failedCount": 1,
            ],
        ]
        try expectRoundTrip(transaction, as: JWSTransactionDecodedPayload.self)
        try expectRoundTrip(renewal, as: JWSRenewalInfoDecodedPayload.self)
        try expectRoundTrip(notification, as: ResponseBodyV2DecodedPayload.self)
    }

    /// `object` decoded as `type` and encoded again is the same JSON.
    func expectRoundTrip<T: Codable>(_ object: [String: Any], as type: T.Type, ignoring: Set<String> = []) throws {
        var object = object
        for key in ignoring { object.removeValue(forKey: key) }
        let json = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        let again = try SigningChain.appleJSON(try JSONDecoder().decode(type, from: json))
        let written = try #require(try JSONSerialization.jsonObject(with: again) as? NSDictionary)
        #expect(written == object as NSDictionary, "\(T.self): \(String(decoding: again, as: UTF8.self))")
    }
}

/// The same names against Apple's own model files, when `../shared/apple-fixtures` is here.
@Suite(.enabled(if: AppleFixtures.available, "../shared/apple-fixtures is not here"))
struct AppleModelFixtureTests {
    static let models = "app-store-server-library-swift/Tests/AppStoreServerLibraryTests/resources/models/"

    func model(_ name: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: try AppleFixtures.data(Self.models + name)) as? [String: Any])
    }

    @Test func applesTransactionRenewalAndNotificationModelsRoundTrip() throws {
        let notModelled: Set<String> = [
            "advancedCommerceInfo", "billingPlanType", "commitmentInfo", "renewalBillingPlanType",
        ]
        let test = AppStorePayloadSigningTests()
        try test.expectRoundTrip(try model("signedTransaction.json"), as: JWSTransactionDecodedPayload.self, ignoring: notModelled)
        try test.expectRoundTrip(
            try model("signedTransactionWithRevocation.json"), as: JWSTransactionDecodedPayload.self, ignoring: notModelled)
        try test.expectRoundTrip(try model("signedRenewalInfo.json"), as: JWSRenewalInfoDecodedPayload.self, ignoring: notModelled)
        for name in ["signedNotification.json", "signedConsumptionRequestNotification.json", "signedSummaryNotification.json"] {
            try test.expectRoundTrip(try model(name), as: ResponseBodyV2DecodedPayload.self)
        }
    }
}

/// Apple's own test chain with its keys (from Apple's Java library), read as the store reads a kept chain.
@Suite(.enabled(if: AppleFixtures.available, "../shared/apple-fixtures is not here"))
struct AppleTestChainTests {
    @Test func applesTestChainAndSEC1KeysReadAsAStoredChainSignWhatItsTestCAVerifies() throws {
        let certs = "app-store-server-library-java/src/test/resources/certs/"
        let pem = try ["testLeaf.pem", "testIntermediate.pem", "testCA.pem", "testCA.key", "testLeaf.key", "testIntermediate.key"]
            .map { try AppleFixtures.text(certs + $0) }.joined(separator: "\n")
        let chain = try SigningChain(stored: try SigningChain.Stored(pem: pem))
        #expect(chain.leaf == (try Certificate(pemEncoded: try AppleFixtures.text(certs + "testLeaf.pem"))))
        let jws = try UnverifiedJWS(compact: try chain.signTransaction(ApplePayloads.transaction(environment: "Sandbox")))
        let verifier = try AppStoreSignatureVerifier(roots: [try AppleFixtures.testRoot()])
        #expect((try? verifier.verify(jws, at: Signed.signedDate).get()) != nil)
    }
}

/// The check a failed verification names.
func failedCheck<T>(_ result: Result<T, SignatureFailure>) -> SignatureFailure.Check? {
    if case .failure(let failure) = result { return failure.check }
    return nil
}
