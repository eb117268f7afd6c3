/// The decoded-notification JSON line StoreDesk keeps and exports, written field by field.
///
/// It is byte for byte what `JSONEncoder` with `.sortedKeys` and `.withoutEscapingSlashes` writes of a
/// `SubscriptionEvent` (a test holds the two together), without the encoder's containers and boxes: an
/// import writes one of these for every signed line it stores, and through `JSONEncoder` that was a
/// tenth of the import's time.
struct CanonicalJSONWriter {
    private(set) var bytes: [UInt8] = []
    /// Whether the object being written has a member yet (a comma goes before the next).
    private var hasMember: [Bool] = []

    init() { bytes.reserveCapacity(1536) }

    mutating func beginObject() {
        bytes.append(UInt8(ascii: "{"))
        hasMember.append(false)
    }

    mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        hasMember.removeLast()
    }

    /// `"key":` after a comma when needed. Keys are StoreDesk's own ASCII field names.
    mutating func key(_ key: StaticString) {
        if hasMember.last == true { bytes.append(UInt8(ascii: ",")) }
        if !hasMember.isEmpty { hasMember[hasMember.count - 1] = true }
        bytes.append(UInt8(ascii: "\""))
        key.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }

    mutating func field(_ key: StaticString, _ value: String?) {
        guard let value else { return }
        self.key(key)
        string(value)
    }

    mutating func field(_ key: StaticString, _ value: Int64?) {
        guard let value else { return }
        self.key(key)
        bytes.append(contentsOf: String(value).utf8)
    }

    mutating func field(_ key: StaticString, _ value: Int?) { field(key, value.map(Int64.init)) }

    mutating func field(_ key: StaticString, _ value: Instant?) { field(key, value?.millis) }

    mutating func field(_ key: StaticString, _ value: Bool?) {
        guard let value else { return }
        self.key(key)
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    /// A JSON string as the encoder escapes it: `"` and `\`, the C0 controls (`\b \t \n \f \r` by name,
    /// the others as `\u00XX`); `/` and everything else as it is.
    mutating func string(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x08: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
            case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0C: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
            case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x00..<0x20:
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0x0F)])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}

extension SubscriptionEvent {
    /// The event's canonical JSON line (see `CanonicalJSONWriter`): Apple's field names, keys sorted.
    func canonicalJSONLine() -> String {
        var json = CanonicalJSONWriter()
        json.beginObject()
        json.key("data")
        json.beginObject()
        json.field("appAppleId", appAppleId)
        json.field("bundleId", bundleId)
        json.field("bundleVersion", bundleVersion)
        json.field("environment", environment)
        if let renewal {
            json.key("renewalInfo")
            renewal.write(to: &json)
        }
        json.field("status", status)
        if let transaction {
            json.key("transactionInfo")
            transaction.write(to: &json)
        }
        json.endObject()
        json.field("notificationType", notificationType.rawValue)
        json.field("notificationUUID", notificationUUID)
        json.field("signedDate", signedDate)
        json.field("subtype", subtype?.rawValue)
        json.field("version", version)
        json.endObject()
        return String(decoding: json.bytes, as: UTF8.self)
    }
}

extension TransactionInfo {
    func write(to json: inout CanonicalJSONWriter) {
        json.beginObject()
        json.field("appAccountToken", appAccountToken)
        json.field("bundleId", bundleId)
        json.field("currency", currency)
        json.field("environment", environment)
        json.field("expiresDate", expiresDate)
        json.field("inAppOwnershipType", inAppOwnershipType)
        json.field("isUpgraded", isUpgraded)
        json.field("offerDiscountType", offerDiscountType?.rawValue)
        json.field("offerIdentifier", offerIdentifier)
        json.field("offerPeriod", offerPeriod)
        json.field("offerType", offerType?.rawValue)
        json.field("originalPurchaseDate", originalPurchaseDate)
        json.field("originalTransactionId", originalTransactionId)
        json.field("price", price)
        json.field("productId", productId)
        json.field("purchaseDate", purchaseDate)
        json.field("quantity", quantity)
        json.field("revocationDate", revocationDate)
        json.field("revocationReason", revocationReason?.rawValue)
        json.field("signedDate", signedDate)
        json.field("storefront", storefront)
        json.field("subscriptionGroupIdentifier", subscriptionGroupIdentifier)
        json.field("transactionId", transactionId)
        json.field("transactionReason", transactionReason)
        json.field("type", type)
        json.field("webOrderLineItemId", webOrderLineItemId)
        json.endObject()
    }
}

extension RenewalInfo {
    func write(to json: inout CanonicalJSONWriter) {
        json.beginObject()
        json.field("autoRenewProductId", autoRenewProductId)
        json.field("autoRenewStatus", autoRenewStatus)
        json.field("currency", currency)
        json.field("environment", environment)
        json.field("expirationIntent", expirationIntent?.rawValue)
        json.field("gracePeriodExpiresDate", gracePeriodExpiresDate)
        json.field("isInBillingRetryPeriod", isInBillingRetryPeriod)
        json.field("offerDiscountType", offerDiscountType?.rawValue)
        json.field("offerIdentifier", offerIdentifier)
        json.field("offerType", offerType?.rawValue)
        json.field("originalTransactionId", originalTransactionId)
        json.field("priceIncreaseStatus", priceIncreaseStatus)
        json.field("productId", productId)
        json.field("recentSubscriptionStartDate", recentSubscriptionStartDate)
        json.field("renewalDate", renewalDate)
        json.field("renewalPrice", renewalPrice)
        json.field("signedDate", signedDate)
        json.endObject()
    }
}
