import Foundation

/// Apple's JSON shape, read liberally and written in one canonical form.
///
/// Reads a decoded notification (`{"notificationType", ..., "data": {"transactionInfo": {...},
/// "renewalInfo": {...}}}`), the same with the infos under `signedTransactionInfo` / `signedRenewalInfo`
/// either as objects or as JWS strings, and a raw `{"signedPayload": "<JWS>"}` line. Writes the decoded
/// shape with `transactionInfo` and `renewalInfo` objects, so a simulated timeline exported as JSON Lines
/// reads back unchanged.
extension SubscriptionEvent: Codable {
    private enum Keys: String, CodingKey {
        case notificationType, subtype, notificationUUID, signedDate, version, data, signedPayload
    }

    private enum DataKeys: String, CodingKey {
        case appAppleId, bundleId, bundleVersion, environment, status
        case transactionInfo, renewalInfo, signedTransactionInfo, signedRenewalInfo
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        if let signed = try container.decodeIfPresent(String.self, forKey: .signedPayload) {
            var event = try UnverifiedJWS(compact: signed).decodePayload(SubscriptionEvent.self)
            event.provenance = .unverifiedJWS
            self = event
            return
        }
        notificationType = try container.decode(NotificationType.self, forKey: .notificationType)
        let subtype = try container.decodeIfPresent(NotificationSubtype.self, forKey: .subtype)
        self.subtype = subtype?.rawValue.isEmpty == true ? nil : subtype
        notificationUUID = try container.decode(String.self, forKey: .notificationUUID)
        signedDate = try container.decode(Instant.self, forKey: .signedDate)
        version = try container.decodeIfPresent(String.self, forKey: .version)
        provenance = .decodedJSON
        appAppleId = nil
        bundleId = nil
        bundleVersion = nil
        environment = nil
        status = nil
        transaction = nil
        renewal = nil
        guard container.contains(.data), try !container.decodeNil(forKey: .data) else { return }
        let data = try container.nestedContainer(keyedBy: DataKeys.self, forKey: .data)
        appAppleId = try data.decodeIfPresent(Int64.self, forKey: .appAppleId)
        bundleId = try data.decodeIfPresent(String.self, forKey: .bundleId)
        bundleVersion = try data.decodeIfPresent(String.self, forKey: .bundleVersion)
        environment = try data.decodeIfPresent(String.self, forKey: .environment)
        status = try data.decodeIfPresent(Int.self, forKey: .status)
        var fromJWS = false
        transaction = try Self.info(
            TransactionInfo.self, in: data, keys: [.transactionInfo, .signedTransactionInfo], fromJWS: &fromJWS)
        renewal = try Self.info(
            RenewalInfo.self, in: data, keys: [.renewalInfo, .signedRenewalInfo], fromJWS: &fromJWS)
        if fromJWS { provenance = .unverifiedJWS }
    }

    /// The first of `keys` present, as an object or as a JWS string whose payload is that object.
    private static func info<T: Decodable>(
        _ type: T.Type, in data: KeyedDecodingContainer<DataKeys>, keys: [DataKeys], fromJWS: inout Bool
    ) throws -> T? {
        for key in keys where data.contains(key) {
            if try data.decodeNil(forKey: key) { continue }
            if let compact = try? data.decode(String.self, forKey: key) {
                fromJWS = true
                return try UnverifiedJWS(compact: compact).decodePayload(type)
            }
            return try data.decode(type, forKey: key)
        }
        return nil
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(notificationType, forKey: .notificationType)
        try container.encodeIfPresent(subtype, forKey: .subtype)
        try container.encode(notificationUUID, forKey: .notificationUUID)
        try container.encode(signedDate, forKey: .signedDate)
        try container.encodeIfPresent(version, forKey: .version)
        var data = container.nestedContainer(keyedBy: DataKeys.self, forKey: .data)
        try data.encodeIfPresent(appAppleId, forKey: .appAppleId)
        try data.encodeIfPresent(bundleId, forKey: .bundleId)
        try data.encodeIfPresent(bundleVersion, forKey: .bundleVersion)
        try data.encodeIfPresent(environment, forKey: .environment)
        try data.encodeIfPresent(status, forKey: .status)
        try data.encodeIfPresent(transaction, forKey: .transactionInfo)
        try data.encodeIfPresent(renewal, forKey: .renewalInfo)
    }
}
