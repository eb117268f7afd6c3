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
        // Byte offsets of the trimmed text and its dots, found with `memchr` on the contiguous UTF-8 of a
        // native string, and whether the header segment is base64url, checked on the same bytes (a JWS of
        // Apple's is kilobytes: byte-by-byte loops over it were a tenth of a signed import's own work).
        let scanned: (start: Int, end: Int, dots: [Int], headerIsBase64URL: Bool?)? = compact.utf8.withContiguousStorageIfAvailable { bytes in
            var start = 0
            var end = bytes.count
            while start < end, Self.isSpace(bytes[start]) { start += 1 }
            while end > start, Self.isSpace(bytes[end - 1]) { end -= 1 }
            guard let base = bytes.baseAddress else { return (start, end, [], nil) }
            var dots: [Int] = []
            var from = start
            while from < end, dots.count < 3, let dot = memchr(base + from, Int32(UInt8(ascii: ".")), end - from) {
                let offset = UnsafeRawPointer(dot) - UnsafeRawPointer(base)
                dots.append(offset)
                from = offset + 1
            }
            let header = dots.first.map { Self.allBase64URL(UnsafeBufferPointer(rebasing: bytes[start..<$0])) }
            return (start, end, dots, header)
        }
        let found = scanned.map { (start: $0.start, end: $0.end, dots: $0.dots) }
        let headerIsBase64URL = scanned?.headerIsBase64URL
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
        guard !headerSegment.isEmpty, headerIsBase64URL ?? headerSegment.utf8.allSatisfy(Self.isBase64URL) else {
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

    /// Whether every byte is base64url (or `=`), without a branch a byte: each byte's class from a table,
    /// or-ed together.
    private static func allBase64URL(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        base64URLClass.withUnsafeBufferPointer { table in
            var bad: UInt8 = 0
            for byte in bytes { bad |= table[Int(byte)] }
            return bad == 0
        }
    }

    /// 0 for a base64url character or `=`, 1 for any other byte.
    private static let base64URLClass: [UInt8] = (0..<256).map { isBase64URL(UInt8($0)) ? 0 : 1 }

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
        // On the text's contiguous bytes: iterating a substring's UTF-8 view byte by byte is several times slower.
        if let decoded = text.utf8.withContiguousStorageIfAvailable({ base64URLDecode(bytes: $0) }) { return decoded }
        return Array(text.utf8).withUnsafeBufferPointer { base64URLDecode(bytes: $0) }
    }

    /// The value of each base64url character (`-` and `_`, never `+` and `/`), 0xFF for any other byte.
    private static let base64URLValues: [UInt8] = {
        var values = [UInt8](repeating: 0xFF, count: 256)
        for (value, character) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8.enumerated() {
            values[Int(character)] = UInt8(value)
        }
        return values
    }()

    /// Decodes in one pass over the bytes, four characters to three bytes (a JWS payload is kilobytes:
    /// translating it to base64 and handing it to Foundation copied it twice). Up to two `=` of padding
    /// at the end are taken; any other character outside the alphabet, or a length no encoding has
    /// (4n + 1), gives nil.
    private static func base64URLDecode(bytes: UnsafeBufferPointer<UInt8>) -> Data? {
        var count = bytes.count
        var padding = 0
        while padding < 2, count > 0, bytes[count - 1] == UInt8(ascii: "=") {
            count -= 1
            padding += 1
        }
        guard count % 4 != 1 else { return nil }
        let whole = count / 4
        let tail = count % 4
        var decoded = Data(count: whole * 3 + (tail == 0 ? 0 : tail - 1))
        let valid = base64URLValues.withUnsafeBufferPointer { table in
            decoded.withUnsafeMutableBytes { (output: UnsafeMutableRawBufferPointer) -> Bool in
                var bad: UInt8 = 0
                var out = 0
                var index = 0
                for _ in 0..<whole {
                    let a = table[Int(bytes[index])], b = table[Int(bytes[index + 1])]
                    let c = table[Int(bytes[index + 2])], d = table[Int(bytes[index + 3])]
                    bad |= a | b | c | d
                    output[out] = a << 2 | b >> 4
                    output[out + 1] = b << 4 | c >> 2
                    output[out + 2] = c << 6 | d
                    index += 4
                    out += 3
                }
                if tail >= 2 {
                    let a = table[Int(bytes[index])], b = table[Int(bytes[index + 1])]
                    bad |= a | b
                    output[out] = a << 2 | b >> 4
                    if tail == 3 {
                        let c = table[Int(bytes[index + 2])]
                        bad |= c
                        output[out + 1] = b << 4 | c >> 2
                    }
                }
                // A valid character is at most 63: any 0xFF sets the top bits.
                return bad & 0xC0 == 0
            }
        }
        return valid ? decoded : nil
    }

    /// Bytes to base64url without padding: how a simulated notification is wrapped for export.
    /// Base64url without padding, written byte by byte: the JWS of every API answer and notification
    /// goes through here, and Foundation's `replacingOccurrences` over the x5c chain's text took half of
    /// `serve`'s time answering Get Transaction Info.
    public static func base64URLEncode(_ data: Data) -> String {
        let alphabet = base64URLAlphabet
        return String(unsafeUninitializedCapacity: (data.count * 4 + 2) / 3) { out in
            var at = 0
            data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
                var index = 0
                while index + 3 <= bytes.count {
                    let chunk = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
                    out[at] = alphabet[Int(chunk >> 18)]
                    out[at + 1] = alphabet[Int(chunk >> 12 & 63)]
                    out[at + 2] = alphabet[Int(chunk >> 6 & 63)]
                    out[at + 3] = alphabet[Int(chunk & 63)]
                    at += 4
                    index += 3
                }
                let left = bytes.count - index
                if left > 0 {
                    let chunk = UInt32(bytes[index]) << 16 | (left == 2 ? UInt32(bytes[index + 1]) << 8 : 0)
                    out[at] = alphabet[Int(chunk >> 18)]
                    out[at + 1] = alphabet[Int(chunk >> 12 & 63)]
                    at += 2
                    if left == 2 {
                        out[at] = alphabet[Int(chunk >> 6 & 63)]
                        at += 1
                    }
                }
            }
            return at
        }
    }

    private static let base64URLAlphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
}
