import Foundation

/// Apple's JSON shape, read liberally and written in one canonical form.
///
/// Reads a decoded notification (`{"notificationType", ..., "data": {"transactionInfo": {...},
/// "renewalInfo": {...}}}`), the same with the infos under `signedTransactionInfo` / `signedRenewalInfo`
/// either as objects or as JWS strings, and a raw `{"signedPayload": "<JWS>"}` line. Writes the decoded
/// shape with `transactionInfo` and `renewalInfo` objects, so a simulated timeline exported as JSON Lines
/// reads back unchanged.
extension SubscriptionEvent: Codable {
    enum Keys: String, CodingKey {
        case notificationType, subtype, notificationUUID, signedDate, version, data, signedPayload
    }

    enum DataKeys: String, CodingKey {
        case appAppleId, bundleId, bundleVersion, environment, status
        case transactionInfo, renewalInfo, signedTransactionInfo, signedRenewalInfo
    }

    /// Decodes the event alone; `NotificationLine` also keeps the JWS each part came in.
    public init(from decoder: Decoder) throws {
        self = try NotificationLine(from: decoder).event
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
