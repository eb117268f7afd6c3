import Foundation
import StoreDeskCore
import SwiftASN1
import Testing
import X509

@testable import StoreDeskTrust

/// The test resources of Apple's App Store Server Library, with what Apple's own tests expect of each
/// (`expectations.json`), used as a peer's test suite. They live outside the repository
/// (`../shared/apple-fixtures`, or `STOREDESK_APPLE_FIXTURES`); without them these tests are skipped.
enum AppleFixtures {
    static let directory: URL? = {
        if let path = ProcessInfo.processInfo.environment["STOREDESK_APPLE_FIXTURES"], !path.isEmpty {
            let folder = URL(fileURLWithPath: path, isDirectory: true)
            return FileManager.default.fileExists(atPath: folder.appendingPathComponent("expectations.json").path) ? folder : nil
        }
        var folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while folder.path != "/" {
            let candidate = folder.appendingPathComponent("shared/apple-fixtures")
            if FileManager.default.fileExists(atPath: candidate.appendingPathComponent("expectations.json").path) {
                return candidate
            }
            folder.deleteLastPathComponent()
        }
        return nil
    }()

    static var available: Bool { directory != nil }

    static func data(_ path: String) throws -> Data {
        let folder = try #require(directory)
        return try Data(contentsOf: folder.appendingPathComponent(path))
    }

    static func text(_ path: String) throws -> String {
        String(decoding: try data(path), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func expectations() throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: data("expectations.json")) as? [String: Any])
    }

    /// Apple's test CA, the only root Apple's tests configure.
    static func testRoot() throws -> TrustedRoot {
        try TrustRootFile.root(from: data("app-store-server-library-swift/Tests/AppStoreServerLibraryTests/resources/certs/testCA.der"))
    }

    static func certificate(_ path: String) throws -> Certificate {
        try Certificate(derEncoded: Array(data(path)))
    }
}

@Suite(.enabled(if: AppleFixtures.available, "../shared/apple-fixtures is not here"))
struct AppleFixtureTests {
    /// What a payload claims, read from Apple's JSON as `SignedDataVerifier` reads it for each method.
    func claims(of jws: UnverifiedJWS, method: String) throws -> (AppIdentityCheck.Claims, AppIdentityCheck.Kind, Instant?) {
        let payload = try #require(try JSONSerialization.jsonObject(with: jws.payload) as? [String: Any])
        let signedDate = (payload["signedDate"] as? NSNumber).map { Instant(millis: Int64($0.doubleValue.rounded(.down))) }
        switch method {
        case "verifyAndDecodeNotification":
            let data = payload["data"] as? [String: Any] ?? [:]
            return (
                .init(
                    bundleId: data["bundleId"] as? String, appAppleId: (data["appAppleId"] as? NSNumber)?.int64Value,
                    environment: data["environment"] as? String), .notification, signedDate)
        case "verifyAndDecodeTransaction":
            return (.init(bundleId: payload["bundleId"] as? String, environment: payload["environment"] as? String), .transaction, signedDate)
        case "verifyAndDecodeRenewalInfo":
            return (.init(environment: payload["environment"] as? String), .renewalInfo, signedDate)
        default:
            // verifyAndDecodeAppTransaction: an app transaction names its environment `receiptType`.
            return (.init(bundleId: payload["bundleId"] as? String, environment: payload["receiptType"] as? String), .transaction,
                    signedDate)
        }
    }

    /// Apple's verdict for one signed-data case, as StoreDesk reaches it: the signature and chain
    /// (`AppStoreSignatureVerifier`, skipped for Xcode and LocalTesting data as Apple's rule says), then the
    /// app (`AppIdentityCheck`) for an app limited to the case's environment, as Apple's verifier is.
    func verdict(of item: [String: Any]) throws -> String {
        let text: String
        if let literal = item["literal"] as? String {
            text = literal
        } else {
            text = try AppleFixtures.text(try #require(item["file"] as? String))
        }
        guard let jws = try? UnverifiedJWS(compact: text) else { return "INVALID_JWT_FORMAT" }
        let method = try #require(item["method"] as? String)
        guard let (claims, kind, signedDate) = try? claims(of: jws, method: method) else { return "INVALID_JWT_FORMAT" }
        let environment = item["environment"] as? String ?? "Sandbox"
        let app = App(
            id: "fixture", name: "Fixture", bundleId: item["bundleId"] as? String ?? "com.example", appKey: "k",
            currencyPerYuan: 1, restoreOwnership: .transfer, gracePeriodDays: 0,
            appleAppId: (item["appAppleId"] as? NSNumber)?.int64Value,
            environments: environment == "Production" ? .production : .sandbox)
        if !NotificationTrust.storeKitTestingEnvironments.contains(claims.environment ?? "") {
            let verifier = try AppStoreSignatureVerifier(roots: [try AppleFixtures.testRoot()])
            if case .failure(let failure) = verifier.verify(jws, at: signedDate ?? Instant(Date())) {
                return "FAIL: \(failure.check)"
            }
        }
        guard let problem = AppIdentityCheck.problem(claims, of: kind, app: app) else { return "VALID" }
        return problem.hasPrefix("environment") ? "INVALID_ENVIRONMENT" : "INVALID_APP_IDENTIFIER"
    }

    @Test func everySignedDataCaseEndsAsApplesTestsExpect() throws {
        let cases = try #require(try AppleFixtures.expectations()["signed_data_cases"] as? [[String: Any]])
        #expect(cases.count >= 12)
        for item in cases {
            let expected = try #require(item["expect"] as? String)
            let got = try verdict(of: item)
            if ProcessInfo.processInfo.environment["STOREDESK_SHOW_VERDICTS"] != nil { print("\(item["id"] ?? "?"): \(got)") }
            if expected == "FAIL" {
                #expect(got != "VALID", "\(item["id"] ?? "?"): \(got)")
            } else {
                #expect(got == expected, "\(item["id"] ?? "?")")
            }
        }
    }

    @Test func theOlderChainVerifiesThoughItsThirdCertificateIsNotTheTestCA() throws {
        // testNotification's x5c[2] is a different self-signed certificate with the test CA's key: it
        // verifies only because x5c[2] is never used, as in Apple's libraries.
        let jws = try UnverifiedJWS(
            compact: AppleFixtures.text("app-store-server-library-swift/Tests/AppStoreServerLibraryTests/resources/mock_signed_data/testNotification"))
        let verifier = try AppStoreSignatureVerifier(roots: [try AppleFixtures.testRoot()])
        let signer = try verifier.verify(jws, at: Instant(millis: 1_681_314_324_000)).get()
        #expect(signer.rootSHA256 == (try AppleFixtures.testRoot()).sha256)
        #expect(signer.leafSerial == "0b")
        // A byte changed in the payload breaks the signature.
        var parts = jws.signingInput.split(separator: ".").map(String.init)
        parts[1] = UnverifiedJWS.base64URLEncode(jws.payload.map { $0 == UInt8(ascii: "4") ? UInt8(ascii: "5") : $0 }.reduce(into: Data()) { $0.append($1) })
        let tampered = try UnverifiedJWS(compact: parts.joined(separator: ".") + "." + jws.signature)
        #expect(failureCheck(verifier.verify(tampered, at: Instant(millis: 1_681_314_324_000))) == .signature)
    }

    @Test func everyChainCaseEndsAsApplesTestsExpect() throws {
        let chainCases = try #require(try AppleFixtures.expectations()["chain_cases"] as? [String: Any])
        let cases = try #require(chainCases["cases"] as? [[String: Any]])
        var checked = 0
        for item in cases where item["online"] as? Bool != true {
            let expected = try #require(item["expect"] as? String)
            if item["chain_length"] as? Int == 2 {
                let header = try JSONSerialization.data(withJSONObject: ["alg": "ES256", "x5c": ["YQ==", "Yg=="]])
                #expect(failureCheck(AppStoreSignatureVerifier.chainKey(header: header)) == .chainLength)
                checked += 1
                continue
            }
            guard let leafPath = item["leaf"] as? String, let intermediatePath = item["intermediate"] as? String else {
                // "abc" as the leaf: not a certificate.
                let header = try JSONSerialization.data(withJSONObject: ["alg": "ES256", "x5c": ["abc", "abc", "abc"]])
                #expect(failureCheck(AppStoreSignatureVerifier.chainKey(header: header)) == .certificate, "\(expected)")
                checked += 1
                continue
            }
            let root = item["root"] as? String == "testCA"
                ? try AppleFixtures.testRoot() : try TrustRootFile.root(from: AppleFixtures.data(try #require(item["root"] as? String)))
            let time = Date(timeIntervalSince1970: (item["effective_date"] as? Double) ?? 1_761_962_975)
            let result = ChainValidation.validate(
                leaf: try AppleFixtures.certificate(leafPath), intermediate: try AppleFixtures.certificate(intermediatePath),
                roots: CertificateStore([try Certificate(derEncoded: root.der)]), at: time)
            switch result {
            case .validCertificate(let chain):
                #expect(expected == "VALID", "\(leafPath)")
                if let key = item["leaf_public_key"] as? String {
                    var serializer = DER.Serializer()
                    try serializer.serialize(chain.leaf.publicKey)
                    #expect(serializer.serializedBytes == Array(try AppleFixtures.data(key)))
                }
            case .couldNotValidate:
                #expect(expected == "FAIL", "\(leafPath)")
            }
            checked += 1
        }
        #expect(checked >= 7)
    }

    @Test func applesRealRootIsRecognisedByItsFingerprint() throws {
        let root = try TrustRootFile.root(from: AppleFixtures.data("extracted/AppleRootCA-G3.cer"))
        #expect(root.isAppleRootCAG3)
        #expect(root.sha256 == (try AppleFixtures.expectations()["trust_anchors"] as? [String: Any])?["real_apple_root_ca_g3_sha256"] as? String)
        // The test chain does not lead to it.
        let jws = try UnverifiedJWS(
            compact: AppleFixtures.text("app-store-server-library-swift/Tests/AppStoreServerLibraryTests/resources/mock_signed_data/renewalInfo"))
        #expect(failureCheck(try AppStoreSignatureVerifier(roots: [root]).verify(jws, at: Instant(millis: 1_672_956_154_000))) == .untrustedRoot)
    }

    @Test func storeKitTestingDataDecodesUnverifiedWithItsFractionalDates() throws {
        // Apple decodes Xcode data without a signature check; its dates carry fractions of a millisecond.
        let resources = "app-store-server-library-swift/Tests/AppStoreServerLibraryTests/resources/"
        let transaction = try AppleFixtures.text(resources + "xcode/xcode-signed-transaction")
        let renewal = try AppleFixtures.text(resources + "xcode/xcode-signed-renewal-info")
        let line = """
            {"notificationType":"SUBSCRIBED","subtype":"INITIAL_BUY","notificationUUID":"xcode-1","signedDate":1697679936056,\
            "data":{"environment":"Xcode","bundleId":"com.example.naturelab.backyardbirds.example",\
            "signedTransactionInfo":"\(transaction)","signedRenewalInfo":"\(renewal)"}}
            """
        let decoded = try NotificationLine.decode(jsonLine: line)
        let trust = NotificationTrust(
            verifier: try AppStoreSignatureVerifier(roots: [try AppleFixtures.testRoot()]), allowUnverified: false, now: Instant(Date()))
        #expect(trust.judge(decoded) == .trusted(.storeKitTesting, nil))
        let info = try #require(decoded.event.transaction)
        #expect(info.originalTransactionId == "0")
        #expect(info.productId == "pass.premium")
        #expect(info.purchaseDate.millis == 1_697_679_936_049)
        #expect(info.expiresDate?.millis == 1_700_358_336_049)
        #expect(info.signedDate?.millis == 1_697_679_936_056)
        #expect(decoded.event.renewal?.renewalDate?.millis == 1_700_358_336_049)
        #expect(decoded.event.renewal?.autoRenewProductId == "pass.premium")
    }

    @Test func localTestingModelsDecodeWithApplesValues() throws {
        // Apple signs these with a throw-away key and decodes them in LocalTesting: so does this.
        let models = "app-store-server-library-swift/Tests/AppStoreServerLibraryTests/resources/models/"
        let throwaway = try SigningChain(name: "Throw-away")
        let transaction = try throwaway.sign(AppleFixtures.data(models + "signedTransaction.json"), x5c: .some(nil))
        let renewal = try throwaway.sign(AppleFixtures.data(models + "signedRenewalInfo.json"), x5c: .some(nil))
        let line = """
            {"notificationType":"SUBSCRIBED","notificationUUID":"local-1","signedDate":1698148900000,\
            "data":{"environment":"LocalTesting","bundleId":"com.example",\
            "signedTransactionInfo":"\(transaction)","signedRenewalInfo":"\(renewal)"}}
            """
        let decoded = try NotificationLine.decode(jsonLine: line)
        #expect(NotificationTrust(verifier: nil, allowUnverified: false, now: Instant(Date())).judge(decoded) == .trusted(.storeKitTesting, nil))
        let info = try #require(decoded.event.transaction)
        #expect(info.originalTransactionId == "12345")
        #expect(info.transactionId == "23456")
        #expect(info.webOrderLineItemId == "34343")
        #expect(info.subscriptionGroupIdentifier == "55555")
        #expect(info.originalPurchaseDate?.millis == 1_698_148_800_000)
        #expect(info.expiresDate?.millis == 1_698_149_000_000)
        #expect(info.revocationDate?.millis == 1_698_148_950_000)
        #expect(info.appAccountToken == "7e3fb20b-4cdb-47cc-936d-99d65f608138")
        #expect(info.price == 10990)
        #expect(info.currency == "USD")
        #expect(info.offerPeriod == "P1Y")
        let renewalInfo = try #require(decoded.event.renewal)
        #expect(renewalInfo.autoRenewProductId == "com.example.product.2")
        #expect(renewalInfo.isInBillingRetryPeriod == true)
        #expect(renewalInfo.gracePeriodExpiresDate?.millis == 1_698_148_900_000)
        #expect(renewalInfo.renewalPrice == 9990)
    }

    private func failureCheck<T>(_ result: Result<T, SignatureFailure>) -> SignatureFailure.Check? {
        if case .failure(let failure) = result { return failure.check }
        return nil
    }
}
