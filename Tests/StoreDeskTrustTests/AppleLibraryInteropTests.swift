import Crypto
import Foundation
import StoreDeskCore
import Testing

@testable import StoreDeskTrust

/// Apple's App Store Server Library for Python (the real one, from PyPI, in `.build/apple-venv`) against
/// what StoreDesk signs and verifies: its `SignedDataVerifier` (online checks off, OpenSSL's strict checks
/// on) takes the store's transactions, renewal infos and notifications with the store's root as its root,
/// and the JWT its `AppStoreServerAPIClient` signs requests with passes the store's token verifier.
@Suite struct AppleLibraryInteropTests {
    struct Verdict: Decodable {
        var ok: Bool
        var status: String?
        var decoded: [String: JSONValue]?
    }

    /// Enough of JSON to compare what Apple's library decoded.
    enum JSONValue: Decodable, Equatable {
        case string(String), number(Double), bool(Bool), array([JSONValue]), object([String: JSONValue]), null

        init(from decoder: Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                self = .null
            } else if let value = try? container.decode(Bool.self) {
                self = .bool(value)
            } else if let value = try? container.decode(Double.self) {
                self = .number(value)
            } else if let value = try? container.decode(String.self) {
                self = .string(value)
            } else if let value = try? container.decode([JSONValue].self) {
                self = .array(value)
            } else {
                self = .object(try container.decode([String: JSONValue].self))
            }
        }

        var string: String? { if case .string(let text) = self { text } else { nil } }
        var number: Double? { if case .number(let value) = self { value } else { nil } }
        var object: [String: JSONValue]? { if case .object(let value) = self { value } else { nil } }
    }

    /// Has Apple's `SignedDataVerifier` (the chain's root as its only root) judge each `(kind, jws)`.
    func appleVerdicts(
        _ cases: [(kind: String, jws: String)], root chain: SigningChain, environment: String = "Production",
        bundleId: String = ApplePayloads.bundleId, appAppleId: Int64 = ApplePayloads.appAppleId
    ) throws -> [Verdict] {
        try appleVerdicts(cases, rootDER: Data(try SigningChain.der(chain.root)), environment: environment, bundleId: bundleId, appAppleId: appAppleId)
    }

    func appleVerdicts(
        _ cases: [(kind: String, jws: String)], rootDER: Data, environment: String, bundleId: String, appAppleId: Int64
    ) throws -> [Verdict] {
        let folder = try ExternalTools.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let root = folder.appendingPathComponent("root.der")
        try rootDER.write(to: root)
        let input = try JSONSerialization.data(withJSONObject: cases.map { ["kind": $0.kind, "jws": $0.jws] })
        let output = try ExternalTools.appleLibrary(
            ["verify", root.path, environment, bundleId, String(appAppleId)], stdin: input)
        return try JSONDecoder().decode([Verdict].self, from: Data(output.utf8))
    }

    @Test func applesVerifierTakesATransactionRenewalAndNotificationTheStoreSigned() throws {
        let chain = try Signed.chain
        let transaction = try chain.signTransaction(ApplePayloads.transaction())
        let renewal = try chain.signRenewalInfo(ApplePayloads.renewal())
        let notification = try chain.signNotification(
            ApplePayloads.notification(), transaction: ApplePayloads.transaction(), renewal: ApplePayloads.renewal())
        let verdicts = try appleVerdicts(
            [("transaction", transaction), ("renewal", renewal), ("notification", notification)], root: chain)
        #expect(verdicts.map(\.ok) == [true, true, true], "\(verdicts.map { $0.status ?? "ok" })")
        guard verdicts.count == 3 else { return }
        // What Apple's library decoded is what was signed, under the same names.
        let decodedTransaction = try #require(verdicts[0].decoded)
        #expect(decodedTransaction["transactionId"]?.string == "2000000100000202")
        #expect(decodedTransaction["expiresDate"]?.number == 1_788_598_800_000)
        #expect(decodedTransaction["offerDiscountType"]?.string == "FREE_TRIAL")
        #expect(decodedTransaction["storefrontId"]?.string == "143465")
        #expect(verdicts[1].decoded?["eligibleWinBackOfferIds"] == .array([.string("winback.month")]))
        let decodedNotification = try #require(verdicts[2].decoded)
        #expect(decodedNotification["notificationType"]?.string == "DID_RENEW")
        // The nested infos of the notification are there, and verify on their own too.
        let nested = try UnverifiedJWS(compact: notification).decodePayload(ResponseBodyV2DecodedPayload.self)
        #expect(decodedNotification["data"]?.object?["signedTransactionInfo"]?.string == nested.data?.signedTransactionInfo)
        #expect(decodedNotification["data"]?.object?["appAppleId"]?.number == Double(ApplePayloads.appAppleId))
        let inner = try appleVerdicts(
            [("transaction", try #require(nested.data?.signedTransactionInfo)), ("renewal", try #require(nested.data?.signedRenewalInfo))],
            root: chain)
        #expect(inner.map(\.ok) == [true, true])
    }

    @Test func applesVerifierRefusesWhatItShould() throws {
        let chain = try Signed.chain
        let sandbox = try chain.signNotification(ApplePayloads.notification(environment: "Sandbox"))
        let otherApp = try chain.signNotification(ApplePayloads.notification(appAppleId: 999))
        let otherBundle = try chain.signTransaction(ApplePayloads.transaction(bundleId: "com.other.game"))
        let stranger = try SigningChain(name: "Not The Store").signTransaction(ApplePayloads.transaction())
        // A chain without key identifiers: what the demo's first chain was, and why Apple's library refused it.
        let noKeyIds = try SigningChain(.init(name: "Test App Store", keyIdentifiers: false))
        let verdicts = try appleVerdicts(
            [("notification", sandbox), ("notification", otherApp), ("transaction", otherBundle), ("transaction", stranger)],
            root: chain)
        #expect(verdicts.map { $0.status ?? "ok" } == [
            "INVALID_ENVIRONMENT", "INVALID_APP_IDENTIFIER", "INVALID_APP_IDENTIFIER", "VERIFICATION_FAILURE",
        ])
        let strict = try appleVerdicts([("transaction", try noKeyIds.signTransaction(ApplePayloads.transaction()))], root: noKeyIds)
        #expect(strict.map { $0.status ?? "ok" } == ["VERIFICATION_FAILURE"])
        // In Sandbox, the same library takes the Sandbox notification.
        let sandboxVerdicts = try appleVerdicts([("notification", sandbox)], root: chain, environment: "Sandbox")
        #expect(sandboxVerdicts.map(\.ok) == [true])
    }

    /// The demo's signed notifications (`Data/Demo/notifications.jsonl`, signed by
    /// `storedesk-demo-signer`) pass Apple's verifier with the demo's root (`Data/Demo/trust-root.pem`) as its
    /// root, strict checks on: the notification and the transaction and renewal infos inside it.
    @Test func applesVerifierTakesEverySignedNotificationOfTheDemo() throws {
        let demo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Data/Demo")
        let pem = try String(contentsOf: demo.appendingPathComponent("trust-root.pem"), encoding: .utf8)
        let rootDER = try #require(Data(base64Encoded: pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()))
        let lines = try String(contentsOf: demo.appendingPathComponent("notifications.jsonl"), encoding: .utf8).split(separator: "\n")
        var checked = 0
        for line in lines {
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let signed = object["signedPayload"] as? String
            else { continue }
            let payload = try UnverifiedJWS(compact: signed).decodePayload(ResponseBodyV2DecodedPayload.self)
            let data = try #require(payload.data)
            var cases = [(kind: "notification", jws: signed)]
            if let transaction = data.signedTransactionInfo { cases.append(("transaction", transaction)) }
            if let renewal = data.signedRenewalInfo { cases.append(("renewal", renewal)) }
            let verdicts = try appleVerdicts(
                cases, rootDER: rootDER, environment: data.environment ?? "Production", bundleId: try #require(data.bundleId),
                appAppleId: try #require(data.appAppleId))
            #expect(verdicts.map { $0.status ?? "ok" } == Array(repeating: "ok", count: cases.count), "\(payload.notificationUUID ?? "?")")
            checked += 1
        }
        #expect(checked == 15)
    }

    @Test func theJWTApplesClientSignsPassesTheStoresVerifier() throws {
        let privateKey = P256.Signing.PrivateKey()
        let folder = try ExternalTools.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let p8 = folder.appendingPathComponent("SubscriptionKey.p8")
        try privateKey.pemRepresentation.write(to: p8, atomically: true, encoding: .utf8)
        let token = try ExternalTools.appleLibrary(
            ["token", p8.path, APITokens.keyId, APITokens.issuerId, APITokens.bundleId]
        ).trimmingCharacters(in: .whitespacesAndNewlines)
        // The store keeps only the public half of the key it was given.
        let key = try AppStoreAPIKey(keyId: APITokens.keyId, issuerId: APITokens.issuerId, pem: privateKey.pemRepresentation)
        let verifier = AppStoreAPITokenVerifier(keys: [key])
        let now = Instant(Date())
        let passed = try verifier.verify(authorization: "Bearer " + token, bundleId: APITokens.bundleId, now: now).get()
        #expect(passed.keyId == APITokens.keyId && passed.issuerId == APITokens.issuerId)
        // Apple's client says five minutes: expired a little later, and never another app's.
        #expect(passed.expiresAt.millis - now.millis <= 300_000 + 1000)
        #expect(verifier.verify(token, bundleId: "com.other.game", now: now) == .failure(
            .bundleId(APITokens.bundleId, expected: "com.other.game")))
        #expect(verifier.verify(token, bundleId: APITokens.bundleId, now: Instant(millis: now.millis + 301_000)) == .failure(
            .expired(passed.expiresAt)))
        let otherKey = AppStoreAPIKey(keyId: APITokens.keyId, issuerId: APITokens.issuerId, publicKey: P256.Signing.PrivateKey().publicKey)
        #expect(AppStoreAPITokenVerifier(keys: [otherKey]).verify(token, bundleId: APITokens.bundleId, now: now) == .failure(
            .signature(keyId: APITokens.keyId)))
    }
}
