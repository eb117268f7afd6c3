import Crypto
import Foundation
import StoreDeskCore
import Testing

@testable import StoreDeskTrust

/// API keys and their ES256 JWTs, as Apple's App Store Server API takes them.
enum APITokens {
    static let keyId = "2X9R4HXF34"
    static let issuerId = "57246542-96fe-1a63-e053-0824d011072a"
    static let bundleId = "com.storedesk.starvoyage"
    static let now = Instant(millis: 1_790_000_000_000)
    /// One key for the run, kept as bytes (swift-crypto's keys are not Sendable).
    private static let privateKeyBytes = P256.Signing.PrivateKey().rawRepresentation
    static var privateKey: P256.Signing.PrivateKey {
        (try? P256.Signing.PrivateKey(rawRepresentation: privateKeyBytes)) ?? P256.Signing.PrivateKey()
    }

    static var key: AppStoreAPIKey { AppStoreAPIKey(keyId: keyId, issuerId: issuerId, publicKey: privateKey.publicKey) }
    static var verifier: AppStoreAPITokenVerifier { AppStoreAPITokenVerifier(keys: [key]) }

    static var header: [String: Any] { ["alg": "ES256", "kid": keyId, "typ": "JWT"] }

    /// Claims as Apple documents them, issued now and expiring in 20 minutes.
    static var claims: [String: Any] {
        let seconds = now.millis / 1000
        return ["iss": issuerId, "aud": "appstoreconnect-v1", "bid": bundleId, "iat": seconds, "exp": seconds + 1200]
    }

    /// A compact JWT of `header` and `claims`, ES256-signed by `key`.
    static func token(header: [String: Any] = header, claims: [String: Any] = claims, key: P256.Signing.PrivateKey = privateKey)
        throws -> String
    {
        let input = [header, claims].map { part in
            UnverifiedJWS.base64URLEncode((try? JSONSerialization.data(withJSONObject: part, options: [.sortedKeys])) ?? Data())
        }.joined(separator: ".")
        return input + "." + UnverifiedJWS.base64URLEncode(try key.signature(for: Data(input.utf8)).rawRepresentation)
    }

    static func verify(_ token: String, bundleId: String = bundleId, at instant: Instant = now)
        -> Result<AppStoreAPIToken, AppStoreAPITokenRefusal>
    {
        verifier.verify(token, bundleId: bundleId, now: instant)
    }

    /// `claims` with `key` set to `value` (nil removes it).
    static func claims(_ key: String, _ value: Any?) -> [String: Any] {
        var changed = claims
        changed[key] = value
        return changed
    }

    static func header(_ key: String, _ value: Any?) -> [String: Any] {
        var changed = header
        changed[key] = value
        return changed
    }
}

@Suite struct AppStoreAPITokenTests {
    @Test func aTokenAsAppleDocumentsItPasses() throws {
        let token = try APITokens.verify(try APITokens.token()).get()
        #expect(token.keyId == APITokens.keyId && token.issuerId == APITokens.issuerId && token.bundleId == APITokens.bundleId)
        #expect(token.expiresAt == Instant(millis: APITokens.now.millis + 1_200_000))
        let header = try APITokens.verifier.verify(
            authorization: "Bearer " + (try APITokens.token()), bundleId: APITokens.bundleId, now: APITokens.now)
        #expect(header == .success(token))
        // Without iat, as Apple's Python library sends it; an audience given as an array.
        #expect((try? APITokens.verify(try APITokens.token(claims: APITokens.claims("iat", nil))).get()) != nil)
        #expect((try? APITokens.verify(try APITokens.token(claims: APITokens.claims("aud", ["appstoreconnect-v1"]))).get()) != nil)
    }

    @Test func eachRefusalNamesItsReason() throws {
        let seconds = APITokens.now.millis / 1000
        let stranger = P256.Signing.PrivateKey()
        let cases: [(String, AppStoreAPITokenRefusal)] = [
            ("a.b", .malformed("expected header.claims.signature, found 2 parts")),
            ("!!.e30.sig", .malformed("the header is not base64url JSON")),
            (try APITokens.token(header: APITokens.header("alg", "HS256")), .algorithm("HS256")),
            (try APITokens.token(header: APITokens.header("alg", nil)), .algorithm(nil)),
            (try APITokens.token(header: APITokens.header("typ", "JWS")), .type("JWS")),
            (try APITokens.token(header: APITokens.header("kid", nil)), .missingKeyId),
            (try APITokens.token(header: APITokens.header("kid", "UNKNOWN123")), .unknownKeyId("UNKNOWN123")),
            (try APITokens.token(key: stranger), .signature(keyId: APITokens.keyId)),
            (try APITokens.token(claims: APITokens.claims("iss", "someone-else")), .issuer("someone-else")),
            (try APITokens.token(claims: APITokens.claims("aud", "appstoreconnect-v2")), .audience("appstoreconnect-v2")),
            (try APITokens.token(claims: APITokens.claims("bid", "com.other.game")), .bundleId("com.other.game", expected: APITokens.bundleId)),
            (try APITokens.token(claims: APITokens.claims("bid", nil)), .bundleId(nil, expected: APITokens.bundleId)),
            (try APITokens.token(claims: APITokens.claims("exp", nil)), .missingExpiry),
            (try APITokens.token(claims: APITokens.claims("exp", seconds)), .expired(Instant(millis: seconds * 1000))),
            (
                try APITokens.token(claims: APITokens.claims("exp", seconds + 3600 + 61)),
                .expiresTooLate(Instant(millis: (seconds + 3661) * 1000))
            ),
            (try APITokens.token(claims: APITokens.claims("iat", seconds + 120)), .issuedInFuture(Instant(millis: (seconds + 120) * 1000))),
            (try APITokens.token(claims: APITokens.claims("iat", seconds + 1200 - 3601)), .lifetimeTooLong(seconds: 3601)),
            (try APITokens.token(claims: APITokens.claims("exp", "tomorrow")), .malformed(
                "the claims are not base64url JSON with string iss, aud, bid and numeric iat, exp")),
        ]
        for (token, refusal) in cases {
            #expect(APITokens.verify(token) == .failure(refusal), "\(refusal)")
        }
        // A token signed for one bundle is refused for another; a tampered claim breaks the signature.
        #expect(APITokens.verify(try APITokens.token(), bundleId: "com.other.game") == .failure(
            .bundleId(APITokens.bundleId, expected: "com.other.game")))
        let parts = try APITokens.token().split(separator: ".")
        let forged = UnverifiedJWS.base64URLEncode(try JSONSerialization.data(withJSONObject: APITokens.claims("bid", "com.other.game")))
        #expect(APITokens.verify("\(parts[0]).\(forged).\(parts[2])", bundleId: "com.other.game") == .failure(
            .signature(keyId: APITokens.keyId)))
        #expect(APITokens.verifier.verify(authorization: "Basic abc", bundleId: APITokens.bundleId, now: APITokens.now) == .failure(.missing))
        #expect(AppStoreAPITokenRefusal.expired(Instant(millis: 1_790_000_000_000)).description == "the token expired at 2026-09-21T14:13:20Z")
    }

    @Test func theExpiryIsJudgedAtTheGivenClockWithLeewayOnlyAhead() throws {
        let token = try APITokens.token()  // exp = now + 1200 s
        #expect((try? APITokens.verify(token, at: Instant(millis: APITokens.now.millis + 1_199_000)).get()) != nil)
        #expect(APITokens.verify(token, at: Instant(millis: APITokens.now.millis + 1_200_000)) == .failure(
            .expired(Instant(millis: APITokens.now.millis + 1_200_000))))
        // A client whose clock runs 30 s ahead: iat in the store's future is taken within the leeway.
        let ahead = try APITokens.token(claims: APITokens.claims("iat", APITokens.now.millis / 1000 + 30))
        #expect((try? APITokens.verify(ahead).get()) != nil)
    }

    @Test func aPrivateKeyIsReducedToItsPublicHalf() throws {
        let privateKey = P256.Signing.PrivateKey()
        let expected = privateKey.publicKey.derRepresentation
        // PKCS#8 (Apple's .p8), SEC1 as openssl writes it, and the public key itself all give the same key.
        let folder = try ExternalTools.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let p8 = folder.appendingPathComponent("key.p8")
        try privateKey.pemRepresentation.write(to: p8, atomically: true, encoding: .utf8)
        let sec1 = try ExternalTools.run(try ExternalTools.openssl, ["ec", "-in", p8.path])
        #expect(sec1.stdout.contains("-----BEGIN EC PRIVATE KEY-----"), "\(sec1.stderr)")
        for pem in [privateKey.pemRepresentation, sec1.stdout, privateKey.publicKey.pemRepresentation] {
            let key = try AppStoreAPIKey(keyId: APITokens.keyId, issuerId: APITokens.issuerId, pem: pem)
            #expect(Data(key.publicKeyDER) == expected)
            #expect(key.publicKeyPEM.hasPrefix("-----BEGIN PUBLIC KEY-----"))
            #expect(!"\(key)".contains("PRIVATE") && !String(reflecting: key).contains(privateKey.rawRepresentation.base64EncodedString()))
        }
        #expect(try AppStoreAPIKey.publicKeyPEM(fromPEM: privateKey.pemRepresentation) == privateKey.publicKey.pemRepresentation)
        // openssl derives the same public key from the same private key.
        let derived = try ExternalTools.run(try ExternalTools.openssl, ["pkey", "-in", p8.path, "-pubout"])
        #expect(derived.stdout == privateKey.publicKey.pemRepresentation + "\n")
        // What is not a P-256 key says so.
        let rsa = try ExternalTools.run(try ExternalTools.openssl, ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024"])
        #expect(throws: AppStoreAPIKey.Problem("its PRIVATE KEY is not a P-256 (ES256) key")) {
            try AppStoreAPIKey.publicKey(fromPEM: rsa.stdout)
        }
        #expect(throws: AppStoreAPIKey.Problem("holds a CERTIFICATE, not a key")) {
            try AppStoreAPIKey.publicKey(fromPEM: try Signed.chain.rootPEM())
        }
        #expect(throws: AppStoreAPIKey.Problem("not a PEM key: no -----BEGIN …----- block can be read")) {
            try AppStoreAPIKey.publicKey(fromPEM: "hello")
        }
    }
}
