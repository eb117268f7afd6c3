import Crypto
import Foundation
import StoreDeskCore

/// The bearer token of an App Store Server API request, checked as Apple checks it: an ES256 JWT whose
/// header names the key (`kid`) and whose claims name the issuer (`iss`), the audience
/// (`appstoreconnect-v1`), the app (`bid`) and an expiry (`exp`) that has not passed and is at most an
/// hour ahead. `iat` is checked when present (not in the future, at most an hour before `exp`): Apple's
/// documentation lists it, and Apple's own Python library sends none.
///
///     let verifier = AppStoreAPITokenVerifier(keys: [key])
///     switch verifier.verify(authorization: request.headers["Authorization"], bundleId: app.bundleId, now: now) {
///     case .success(let token): …           // token.keyId, token.issuerId
///     case .failure(let refusal): …         // 401, nothing done; refusal.description says why
///     }
public struct AppStoreAPITokenVerifier: Sendable {
    /// The only audience Apple takes.
    public static let audience = "appstoreconnect-v1"
    /// The longest a token may live: an hour.
    public static let longestLifetimeSeconds: Int64 = 3600

    /// The registered keys by their id.
    public var keys: [String: AppStoreAPIKey]
    /// Seconds a client's clock may run ahead of the store's: a token issued that far in the future, or
    /// expiring that much beyond an hour from now, is still taken. An expiry that has passed never is.
    public var leewaySeconds: Int64

    public init(keys: [AppStoreAPIKey], leewaySeconds: Int64 = 60) {
        self.keys = Dictionary(keys.map { ($0.keyId, $0) }, uniquingKeysWith: { _, last in last })
        self.leewaySeconds = leewaySeconds
    }

    /// Checks an `Authorization` header's value, `Bearer <JWT>`.
    public func verify(authorization: String?, bundleId: String, now: Instant) -> Result<AppStoreAPIToken, AppStoreAPITokenRefusal> {
        guard let authorization, authorization.hasPrefix("Bearer ") else { return .failure(.missing) }
        return verify(String(authorization.dropFirst("Bearer ".count)), bundleId: bundleId, now: now)
    }

    /// The `bid` a bearer token claims, read before anything is verified: it says which app's keys the
    /// token is then verified with (and `verify` checks it again). Nil when there is no readable claim.
    public static func claimedBundleId(authorization: String?) -> String? {
        guard let authorization, authorization.hasPrefix("Bearer ") else { return nil }
        let parts = authorization.dropFirst("Bearer ".count).split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let data = UnverifiedJWS.base64URLDecode(parts[1]),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return nil }
        return object["bid"] as? String
    }

    /// Checks a compact JWT for a request about the app whose bundle id is `bundleId`, at `now`.
    public func verify(_ token: String, bundleId: String, now: Instant) -> Result<AppStoreAPIToken, AppStoreAPITokenRefusal> {
        let parts = token.trimmingCharacters(in: .whitespaces).split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return .failure(.malformed("expected header.claims.signature, found \(parts.count) parts")) }
        guard let headerData = UnverifiedJWS.base64URLDecode(parts[0]),
            let header = try? JSONDecoder().decode(Header.self, from: headerData)
        else { return .failure(.malformed("the header is not base64url JSON")) }
        guard header.alg == "ES256" else { return .failure(.algorithm(header.alg)) }
        guard header.typ == "JWT" else { return .failure(.type(header.typ)) }
        guard let keyId = header.kid, !keyId.isEmpty else { return .failure(.missingKeyId) }
        guard let key = keys[keyId], let publicKey = key.publicKey else { return .failure(.unknownKeyId(keyId)) }
        guard let raw = UnverifiedJWS.base64URLDecode(parts[2]),
            let signature = try? P256.Signing.ECDSASignature(rawRepresentation: raw),
            publicKey.isValidSignature(signature, for: Data((parts[0] + "." + parts[1]).utf8))
        else { return .failure(.signature(keyId: keyId)) }
        guard let claimsData = UnverifiedJWS.base64URLDecode(parts[1]),
            let claims = try? JSONDecoder().decode(Claims.self, from: claimsData)
        else { return .failure(.malformed("the claims are not base64url JSON with string iss, aud, bid and numeric iat, exp")) }
        guard claims.iss == key.issuerId else { return .failure(.issuer(claims.iss)) }
        guard claims.aud?.contains(Self.audience) == true else { return .failure(.audience(claims.aud?.joined(separator: ","))) }
        guard claims.bid == bundleId else { return .failure(.bundleId(claims.bid, expected: bundleId)) }
        let nowSeconds = now.millis / 1000
        guard let exp = claims.exp else { return .failure(.missingExpiry) }
        guard exp > nowSeconds else { return .failure(.expired(Instant(millis: exp.clampedMultiplied(by: 1000)))) }
        guard exp <= nowSeconds + Self.longestLifetimeSeconds + leewaySeconds else {
            return .failure(.expiresTooLate(Instant(millis: exp.clampedMultiplied(by: 1000))))
        }
        if let iat = claims.iat {
            guard iat <= nowSeconds + leewaySeconds else { return .failure(.issuedInFuture(Instant(millis: iat.clampedMultiplied(by: 1000)))) }
            guard exp - iat <= Self.longestLifetimeSeconds else { return .failure(.lifetimeTooLong(seconds: exp - iat)) }
        }
        return .success(
            AppStoreAPIToken(
                keyId: keyId, issuerId: key.issuerId, bundleId: bundleId,
                issuedAt: claims.iat.map { Instant(millis: $0.clampedMultiplied(by: 1000)) },
                expiresAt: Instant(millis: exp.clampedMultiplied(by: 1000))))
    }

    private struct Header: Decodable {
        var alg: String?
        var kid: String?
        var typ: String?
    }

    private struct Claims: Decodable {
        var iss: String?
        /// RFC 7519 lets `aud` be a string or an array of strings.
        var aud: [String]?
        var bid: String?
        var iat: Int64?
        var exp: Int64?

        enum CodingKeys: String, CodingKey { case iss, aud, bid, iat, exp }

        init(from decoder: Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            iss = try container.decodeIfPresent(String.self, forKey: .iss)
            bid = try container.decodeIfPresent(String.self, forKey: .bid)
            if let one = try? container.decodeIfPresent(String.self, forKey: .aud) {
                aud = [one]
            } else {
                aud = try container.decodeIfPresent([String].self, forKey: .aud)
            }
            iat = try Self.seconds(container, .iat)
            exp = try Self.seconds(container, .exp)
        }

        /// A NumericDate: whole seconds, or seconds with a fraction (cut to the second).
        private static func seconds(_ container: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys) throws -> Int64? {
            if let whole = try? container.decodeIfPresent(Int64.self, forKey: key) { return whole }
            guard let value = try container.decodeIfPresent(Double.self, forKey: key) else { return nil }
            guard value.isFinite, abs(value) < 9e15 else {
                throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "not a date")
            }
            return Int64(value.rounded(.down))
        }
    }
}

/// A token that passed: whose key signed it, for which app, until when.
public struct AppStoreAPIToken: Hashable, Sendable {
    public var keyId: String
    public var issuerId: String
    public var bundleId: String
    public var issuedAt: Instant?
    public var expiresAt: Instant
}

/// Why a request's token was refused (Apple answers each with 401 and does nothing).
public enum AppStoreAPITokenRefusal: Error, Hashable, Sendable, CustomStringConvertible {
    /// No `Authorization: Bearer …` header.
    case missing
    /// Not three base64url parts of JSON.
    case malformed(String)
    /// `alg` is not ES256 (nil: none).
    case algorithm(String?)
    /// `typ` is not JWT.
    case type(String?)
    /// The header has no `kid`.
    case missingKeyId
    /// No key is registered under this `kid`.
    case unknownKeyId(String)
    /// The ES256 signature does not verify with the key registered under `kid`.
    case signature(keyId: String)
    /// `iss` is not the issuer the key was registered with.
    case issuer(String?)
    /// `aud` is not `appstoreconnect-v1`.
    case audience(String?)
    /// `bid` is not the app's bundle id.
    case bundleId(String?, expected: String)
    /// No `exp`.
    case missingExpiry
    /// `exp` has passed.
    case expired(Instant)
    /// `exp` is more than an hour ahead.
    case expiresTooLate(Instant)
    /// `iat` is in the future.
    case issuedInFuture(Instant)
    /// `exp` is more than an hour after `iat`.
    case lifetimeTooLong(seconds: Int64)

    public var description: String {
        switch self {
        case .missing: "no Authorization: Bearer token"
        case .malformed(let why): "the token is not a JWT: \(why)"
        case .algorithm(let alg): "alg is \(alg.map { "'\($0)'" } ?? "missing"), not ES256"
        case .type(let typ): "typ is \(typ.map { "'\($0)'" } ?? "missing"), not JWT"
        case .missingKeyId: "the header has no kid"
        case .unknownKeyId(let kid): "no API key is registered with kid '\(kid)'"
        case .signature(let kid): "the ES256 signature does not verify with key '\(kid)'"
        case .issuer(let iss): "iss \(iss.map { "'\($0)'" } ?? "missing") is not the key's issuer"
        case .audience(let aud): "aud \(aud.map { "'\($0)'" } ?? "missing") is not '\(AppStoreAPITokenVerifier.audience)'"
        case .bundleId(let bid, let expected): "bid \(bid.map { "'\($0)'" } ?? "missing") is not the app's bundle '\(expected)'"
        case .missingExpiry: "the token has no exp"
        case .expired(let exp): "the token expired at \(exp.iso8601)"
        case .expiresTooLate(let exp): "exp \(exp.iso8601) is more than an hour ahead"
        case .issuedInFuture(let iat): "iat \(iat.iso8601) is in the future"
        case .lifetimeTooLong(let seconds): "the token lives \(seconds) s from iat to exp, more than an hour"
        }
    }
}
