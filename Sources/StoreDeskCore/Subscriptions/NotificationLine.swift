import Foundation

/// One notification line as read: the event, and every JWS a part of it came in, kept so a
/// `SignatureVerifying` can check them (nothing here checks a signature).
///
/// A line is Apple's raw `{"signedPayload": "<JWS>"}` (whose payload carries `signedTransactionInfo` and
/// `signedRenewalInfo` as JWS strings), or a decoded notification whose infos are objects or JWS strings.
///
///     let line = try NotificationLine.decode(jsonLine: text)
///     line.signedPayload?.algorithm   // "ES256"
///     line.event.provenance           // .unverifiedJWS until a verifier says otherwise
public struct NotificationLine: Sendable {
    public var event: SubscriptionEvent
    /// The JWS the whole notification came in (`signedPayload`), nil for a decoded notification.
    public var signedPayload: UnverifiedJWS?
    /// The JWS of `data.signedTransactionInfo`, nil when it came as an object or not at all.
    public var signedTransaction: UnverifiedJWS?
    /// The JWS of `data.signedRenewalInfo`, nil when it came as an object or not at all.
    public var signedRenewal: UnverifiedJWS?

    public init(
        event: SubscriptionEvent, signedPayload: UnverifiedJWS? = nil, signedTransaction: UnverifiedJWS? = nil,
        signedRenewal: UnverifiedJWS? = nil
    ) {
        self.event = event
        self.signedPayload = signedPayload
        self.signedTransaction = signedTransaction
        self.signedRenewal = signedRenewal
    }

    /// Whether any part came signed: such a line is verified, or refused, or taken unverified only by
    /// the operator's choice.
    public var isSigned: Bool { signedPayload != nil || signedTransaction != nil || signedRenewal != nil }

    /// One signed part, named as Apple names the field, with the instant its chain is validated at: the
    /// part's own `signedDate`, nil when it has none (then the current time, as Apple's library does).
    public struct SignedPart: Sendable {
        public var field: String
        public var jws: UnverifiedJWS
        public var signedDate: Instant?
    }

    /// The signed parts, the notification first.
    public var signedParts: [SignedPart] {
        var parts: [SignedPart] = []
        if let signedPayload { parts.append(SignedPart(field: "signedPayload", jws: signedPayload, signedDate: event.signedDate)) }
        if let signedTransaction {
            parts.append(
                SignedPart(field: "signedTransactionInfo", jws: signedTransaction, signedDate: event.transaction?.signedDate))
        }
        if let signedRenewal {
            parts.append(SignedPart(field: "signedRenewalInfo", jws: signedRenewal, signedDate: event.renewal?.signedDate))
        }
        return parts
    }

    /// Reads one line; throws `SubscriptionDecodingError`, never traps, whatever the line holds.
    public static func decode(jsonLine: String) throws -> NotificationLine {
        let text = jsonLine.trimmingWhitespaceAndNewlines()
        guard !text.isEmpty else { throw SubscriptionDecodingError.emptyLine }
        return try decode(jsonLine: Data(text.utf8))
    }

    /// Reads one line's bytes; see `decode(jsonLine:)`.
    public static func decode(jsonLine: Data) throws -> NotificationLine {
        do {
            return try JSONDecoder().decode(NotificationLine.self, from: jsonLine)
        } catch {
            throw SubscriptionDecodingError(error)
        }
    }

    /// Reads one line of a file. Apple's raw `{"signedPayload": "<JWS>"}` lines, kilobytes of base64 each,
    /// are taken apart without a JSON pass over the wrapper (a JWS has no character JSON would escape);
    /// anything else goes through `decode(jsonLine:)`.
    public static func decode(line: Substring) throws -> NotificationLine {
        if let compact = signedPayload(of: line) {
            do {
                let jws = try UnverifiedJWS(compact: String(compact))
                var decoded = try jws.decodePayload(NotificationLine.self)
                guard decoded.signedPayload == nil else {
                    throw SubscriptionDecodingError.malformedJWS("the signedPayload's payload is itself a signedPayload")
                }
                decoded.signedPayload = jws
                decoded.event.provenance = .unverifiedJWS
                return decoded
            } catch {
                throw SubscriptionDecodingError(error)
            }
        }
        return try decode(jsonLine: Data(line.utf8))
    }

    /// The JWS of a line that is exactly `{"signedPayload": "..."}` (spaces allowed), else nil.
    ///
    /// Scans the line's contiguous UTF-8 bytes (a file's lines always have them): stepping a
    /// `Substring.UTF8View` index by index over kilobytes of base64 was a tenth of a signed import's time.
    static func signedPayload(of line: Substring) -> Substring? {
        let range: Range<Int>?? = line.utf8.withContiguousStorageIfAvailable { bytes in signedPayloadRange(in: bytes) }
        let found: Range<Int>?
        if let range {
            found = range
        } else {
            found = Array(line.utf8).withUnsafeBufferPointer { signedPayloadRange(in: $0) }
        }
        guard let found else { return nil }
        let utf8 = line.utf8
        let start = utf8.index(utf8.startIndex, offsetBy: found.lowerBound)
        let end = utf8.index(start, offsetBy: found.count)
        return line[start..<end]
    }

    /// The byte offsets of the JWS in `{"signedPayload": "<JWS>"}`, else nil.
    private static func signedPayloadRange(in bytes: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        var index = 0
        func skipSpaces() {
            while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 || bytes[index] == 0x0D || bytes[index] == 0x0A {
                index += 1
            }
        }
        func expect(_ text: StaticString) -> Bool {
            let count = text.utf8CodeUnitCount
            guard bytes.count - index >= count else { return false }
            let wanted = text.utf8Start
            for offset in 0..<count where bytes[index + offset] != wanted[offset] { return false }
            index += count
            return true
        }
        skipSpaces()
        guard expect("{") else { return nil }
        skipSpaces()
        guard expect("\"signedPayload\"") else { return nil }
        skipSpaces()
        guard expect(":") else { return nil }
        skipSpaces()
        guard expect("\"") else { return nil }
        let start = index
        // The closing quote and any backslash before it, found with `memchr` (kilobytes of base64).
        guard let base = bytes.baseAddress, start < bytes.count,
            let quote = memchr(base + start, Int32(UInt8(ascii: "\"")), bytes.count - start)
        else { return nil }
        let end = UnsafeRawPointer(quote) - UnsafeRawPointer(base)
        guard memchr(base + start, Int32(UInt8(ascii: "\\")), end - start) == nil else { return nil }
        index = end
        index += 1
        skipSpaces()
        guard expect("}") else { return nil }
        skipSpaces()
        return index == bytes.count ? start..<end : nil
    }
}

extension NotificationLine: Decodable {
    public init(from decoder: Decoder) throws {
        typealias Keys = SubscriptionEvent.Keys
        typealias DataKeys = SubscriptionEvent.DataKeys
        let container = try decoder.container(keyedBy: Keys.self)
        if let signed = try container.decodeIfPresent(String.self, forKey: .signedPayload) {
            let jws = try UnverifiedJWS(compact: signed)
            self = try jws.decodePayload(NotificationLine.self)
            guard signedPayload == nil else {
                throw SubscriptionDecodingError.malformedJWS("the signedPayload's payload is itself a signedPayload")
            }
            signedPayload = jws
            event.provenance = .unverifiedJWS
            return
        }
        let subtype = try container.decodeIfPresent(NotificationSubtype.self, forKey: .subtype)
        event = SubscriptionEvent(
            notificationType: try container.decode(NotificationType.self, forKey: .notificationType),
            subtype: subtype?.rawValue.isEmpty == true ? nil : subtype,
            notificationUUID: try container.decode(String.self, forKey: .notificationUUID),
            signedDate: try container.decode(Instant.self, forKey: .signedDate),
            version: try container.decodeIfPresent(String.self, forKey: .version), provenance: .decodedJSON)
        guard container.contains(.data), try !container.decodeNil(forKey: .data) else { return }
        let data = try container.nestedContainer(keyedBy: DataKeys.self, forKey: .data)
        event.appAppleId = try data.decodeIfPresent(Int64.self, forKey: .appAppleId)
        event.bundleId = try data.decodeIfPresent(String.self, forKey: .bundleId)
        event.bundleVersion = try data.decodeIfPresent(String.self, forKey: .bundleVersion)
        event.environment = try data.decodeIfPresent(String.self, forKey: .environment)
        event.status = try data.decodeIfPresent(Int.self, forKey: .status)
        (event.transaction, signedTransaction) = try Self.info(
            TransactionInfo.self, in: data, keys: [.transactionInfo, .signedTransactionInfo])
        (event.renewal, signedRenewal) = try Self.info(RenewalInfo.self, in: data, keys: [.renewalInfo, .signedRenewalInfo])
        if signedTransaction != nil || signedRenewal != nil { event.provenance = .unverifiedJWS }
    }

    /// The first of `keys` present, as an object or as a JWS string whose payload is that object (and
    /// then the JWS too).
    private static func info<T: Decodable>(
        _ type: T.Type, in data: KeyedDecodingContainer<SubscriptionEvent.DataKeys>, keys: [SubscriptionEvent.DataKeys]
    ) throws -> (T?, UnverifiedJWS?) {
        for key in keys where data.contains(key) {
            if try data.decodeNil(forKey: key) { continue }
            if let compact = try? data.decode(String.self, forKey: key) {
                let jws = try UnverifiedJWS(compact: compact)
                return (try jws.decodePayload(type), jws)
            }
            return (try data.decode(type, forKey: key), nil)
        }
        return (nil, nil)
    }
}
