import Foundation

/// A compact JWS (`header.payload.signature`) opened without checking its signature.
///
/// Apple signs every notification and every transaction and renewal info with ES256 and an x5c chain.
/// Opening one only makes the payload readable: an event decoded from it is marked
/// `SubscriptionEvent.Provenance.unverifiedJWS` until a `SignatureVerifying` (StoreDeskTrust's
/// `AppStoreSignatureVerifier`) has checked the parts kept here: the header segment (the cache key of its
/// chain), the signing input `header.payload` and the signature.
///
///     let jws = try UnverifiedJWS(compact: line.signedPayload)
///     let event = try jws.decodePayload(SubscriptionEvent.self)
public struct UnverifiedJWS: Hashable, Sendable {
    /// The decoded JOSE header JSON (`{"alg":"ES256","x5c":[...]}`).
    public var header: Data
    /// The decoded payload JSON.
    public var payload: Data
    /// The third part, still base64url (raw r‖s for ES256).
    public var signature: String
    /// The first part as sent, base64url: the same header (algorithm and x5c chain) gives the same text,
    /// so a verifier keys its chain cache on it.
    public var headerSegment: Substring
    /// `header.payload` as sent: the bytes the signature covers.
    public var signingInput: Substring

    /// Splits and base64url-decodes a compact JWS; throws `SubscriptionDecodingError.malformedJWS`.
    public init(compact: String) throws {
        let text = compact.trimmingCharacters(in: .whitespacesAndNewlines)
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw SubscriptionDecodingError.malformedJWS(
                "expected header.payload.signature, found \(parts.count) part\(parts.count == 1 ? "" : "s")")
        }
        guard let header = Self.base64URLDecode(parts[0]) else {
            throw SubscriptionDecodingError.malformedJWS("the header is not base64url")
        }
        guard let payload = Self.base64URLDecode(parts[1]), !payload.isEmpty else {
            throw SubscriptionDecodingError.malformedJWS("the payload is not base64url")
        }
        self.header = header
        self.payload = payload
        self.signature = String(parts[2])
        self.headerSegment = parts[0]
        self.signingInput = text[parts[0].startIndex..<parts[1].endIndex]
    }

    /// The header's `alg`, e.g. `ES256`; nil when the header is not JSON or has none.
    public var algorithm: String? {
        struct Header: Decodable { var alg: String? }
        return (try? JSONDecoder().decode(Header.self, from: header))?.alg
    }

    /// Decodes the payload JSON as `type`.
    public func decodePayload<T: Decodable>(_ type: T.Type) throws -> T {
        try JSONDecoder().decode(type, from: payload)
    }

    /// Base64url without padding (RFC 7515 §2) to bytes; nil on characters outside the alphabet.
    public static func base64URLDecode(_ text: some StringProtocol) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        switch base64.count % 4 {
        case 0: break
        case 2: base64 += "=="
        case 3: base64 += "="
        default: return nil
        }
        return Data(base64Encoded: base64)
    }

    /// Bytes to base64url without padding: how a simulated notification is wrapped for export.
    public static func base64URLEncode(_ data: Data) -> String {
        data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
