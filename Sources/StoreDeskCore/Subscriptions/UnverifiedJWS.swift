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
    /// The decoded JOSE header JSON (`{"alg":"ES256","x5c":[...]}`): decoded when asked, since a verifier
    /// reads each distinct header once and keys the rest on `headerSegment`.
    public var header: Data { Self.base64URLDecode(headerSegment) ?? Data() }
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
    /// Works on the text's bytes: Apple's notifications are several kilobytes of base64 a line.
    public init(compact: String) throws {
        // Byte offsets of the trimmed text and its dots, found on the contiguous UTF-8 of a native string.
        let found: (start: Int, end: Int, dots: [Int])? = compact.utf8.withContiguousStorageIfAvailable { bytes in
            var start = 0
            var end = bytes.count
            while start < end, Self.isSpace(bytes[start]) { start += 1 }
            while end > start, Self.isSpace(bytes[end - 1]) { end -= 1 }
            var dots: [Int] = []
            var index = start
            while index < end, dots.count < 3 {
                if bytes[index] == UInt8(ascii: ".") { dots.append(index) }
                index += 1
            }
            return (start, end, dots)
        }
        let utf8 = compact.utf8
        let (startOffset, endOffset, dotOffsets) =
            found
            ?? {
                let bytes = Array(utf8)
                var start = 0
                var end = bytes.count
                while start < end, Self.isSpace(bytes[start]) { start += 1 }
                while end > start, Self.isSpace(bytes[end - 1]) { end -= 1 }
                let dots = (start..<end).filter { bytes[$0] == UInt8(ascii: ".") }.prefix(3)
                return (start, end, Array(dots))
            }()
        let start = utf8.index(utf8.startIndex, offsetBy: startOffset)
        let end = utf8.index(utf8.startIndex, offsetBy: endOffset)
        guard dotOffsets.count == 2 else {
            let parts = compact[start..<end].split(separator: ".", omittingEmptySubsequences: false).count
            throw SubscriptionDecodingError.malformedJWS(
                "expected header.payload.signature, found \(parts) part\(parts == 1 ? "" : "s")")
        }
        let firstDot = utf8.index(utf8.startIndex, offsetBy: dotOffsets[0])
        let secondDot = utf8.index(utf8.startIndex, offsetBy: dotOffsets[1])
        let headerSegment = compact[start..<firstDot]
        guard !headerSegment.isEmpty, headerSegment.utf8.allSatisfy(Self.isBase64URL) else {
            throw SubscriptionDecodingError.malformedJWS("the header is not base64url")
        }
        guard let payload = Self.base64URLDecode(compact[utf8.index(after: firstDot)..<secondDot]), !payload.isEmpty else {
            throw SubscriptionDecodingError.malformedJWS("the payload is not base64url")
        }
        self.payload = payload
        self.signature = String(compact[utf8.index(after: secondDot)..<end])
        self.headerSegment = headerSegment
        self.signingInput = compact[start..<secondDot]
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    private static func isBase64URL(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "="):
            true
        default: false
        }
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
        let count = text.utf8.count
        let padded = (count + 3) / 4 * 4
        guard count % 4 != 1 else { return nil }
        var failed = false
        let translated = [UInt8](unsafeUninitializedCapacity: padded) { buffer, initialized in
            var index = 0
            for byte in text.utf8 {
                switch byte {
                case UInt8(ascii: "-"): buffer[index] = UInt8(ascii: "+")
                case UInt8(ascii: "_"): buffer[index] = UInt8(ascii: "/")
                case UInt8(ascii: "+"), UInt8(ascii: "/"): failed = true
                default: buffer[index] = byte
                }
                index += 1
            }
            while index < padded {
                buffer[index] = UInt8(ascii: "=")
                index += 1
            }
            initialized = padded
        }
        guard !failed else { return nil }
        return Data(base64Encoded: Data(translated))
    }

    /// Bytes to base64url without padding: how a simulated notification is wrapped for export.
    public static func base64URLEncode(_ data: Data) -> String {
        data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
