import Foundation

/// Send Consumption Information (`PUT /inApps/v1/transactions/consumption/{transactionId}`): what a game
/// server tells Apple about a consumable whose refund the customer asked for, checked field by field with
/// Apple's error codes. The same answer comes from the console and `storedesk subs consumption answer`.
///
///     let info = try ConsumptionInformation(json: body)      // 4000032 ... 4000042, 4000035
///     info.json                                               // what the store keeps, Apple's field names
public struct ConsumptionInformation: Hashable, Sendable, Codable {
    /// Must be true: the customer agreed to share the data (4000035 otherwise).
    public var customerConsented: Bool
    /// 0 undeclared, 1 not consumed, 2 partially consumed, 3 fully consumed.
    public var consumptionStatus: Int
    /// 0 undeclared, 1 Apple, 2 non-Apple.
    public var platform: Int
    public var sampleContentProvided: Bool
    /// 0 delivered and working, 1 quality issue, 2 wrong item, 3 server outage, 4 currency change, 5 other.
    public var deliveryStatus: Int
    /// A UUID, or empty when the app has none for the customer.
    public var appAccountToken: String
    /// 0-7 each: Apple's bands.
    public var accountTenure: Int
    public var playTime: Int
    public var lifetimeDollarsRefunded: Int
    public var lifetimeDollarsPurchased: Int
    /// 0-4.
    public var userStatus: Int
    /// 0 undeclared, 1 grant, 2 decline, 3 no preference; optional.
    public var refundPreference: Int?

    public init(
        customerConsented: Bool = true, consumptionStatus: Int, platform: Int, sampleContentProvided: Bool, deliveryStatus: Int,
        appAccountToken: String = "", accountTenure: Int = 0, playTime: Int = 0, lifetimeDollarsRefunded: Int = 0,
        lifetimeDollarsPurchased: Int = 0, userStatus: Int = 0, refundPreference: Int? = nil
    ) throws(AppStoreAPIError) {
        guard customerConsented else { throw .invalidCustomerConsented }
        guard (0...3).contains(consumptionStatus) else { throw .invalidConsumptionStatus }
        guard (0...2).contains(platform) else { throw .invalidPlatform }
        guard (0...5).contains(deliveryStatus) else { throw .invalidDeliveryStatus }
        guard appAccountToken.isEmpty || UUID(uuidString: appAccountToken) != nil else { throw .invalidAppAccountToken }
        guard (0...7).contains(accountTenure) else { throw .invalidAccountTenure }
        guard (0...7).contains(playTime) else { throw .invalidPlayTime }
        guard (0...7).contains(lifetimeDollarsRefunded) else { throw .invalidLifetimeDollarsRefunded }
        guard (0...7).contains(lifetimeDollarsPurchased) else { throw .invalidLifetimeDollarsPurchased }
        guard (0...4).contains(userStatus) else { throw .invalidUserStatus }
        if let refundPreference, !(0...3).contains(refundPreference) { throw .generalBadRequest }
        self.customerConsented = customerConsented
        self.consumptionStatus = consumptionStatus
        self.platform = platform
        self.sampleContentProvided = sampleContentProvided
        self.deliveryStatus = deliveryStatus
        self.appAccountToken = appAccountToken
        self.accountTenure = accountTenure
        self.playTime = playTime
        self.lifetimeDollarsRefunded = lifetimeDollarsRefunded
        self.lifetimeDollarsPurchased = lifetimeDollarsPurchased
        self.userStatus = userStatus
        self.refundPreference = refundPreference
    }

    /// From Apple's JSON body; a field missing or of the wrong type gets that field's code.
    public init(json bytes: [UInt8]) throws(AppStoreAPIError) {
        guard let object = try? JSONDecoder().decode([String: Scalar].self, from: Data(bytes)) else { throw .generalBadRequest }
        func int(_ name: String, _ error: AppStoreAPIError) throws(AppStoreAPIError) -> Int {
            guard case .int(let value)? = object[name] else { throw error }
            return value
        }
        func bool(_ name: String, _ error: AppStoreAPIError) throws(AppStoreAPIError) -> Bool {
            guard case .bool(let value)? = object[name] else { throw error }
            return value
        }
        let token: String
        switch object["appAccountToken"] {
        case nil: token = ""
        case .text(let text)?: token = text
        default: throw .invalidAppAccountToken
        }
        let preference: Int? = object["refundPreference"] == nil ? nil : try int("refundPreference", .generalBadRequest)
        try self.init(
            customerConsented: try bool("customerConsented", .invalidCustomerConsented),
            consumptionStatus: try int("consumptionStatus", .invalidConsumptionStatus), platform: try int("platform", .invalidPlatform),
            sampleContentProvided: try bool("sampleContentProvided", .invalidSampleContentProvided),
            deliveryStatus: try int("deliveryStatus", .invalidDeliveryStatus), appAccountToken: token,
            accountTenure: try int("accountTenure", .invalidAccountTenure), playTime: try int("playTime", .invalidPlayTime),
            lifetimeDollarsRefunded: try int("lifetimeDollarsRefunded", .invalidLifetimeDollarsRefunded),
            lifetimeDollarsPurchased: try int("lifetimeDollarsPurchased", .invalidLifetimeDollarsPurchased),
            userStatus: try int("userStatus", .invalidUserStatus), refundPreference: preference)
    }

    /// One field of the body as JSON typed it: `true` is never 1, nor 1 `true`.
    enum Scalar: Decodable, Equatable {
        case bool(Bool), int(Int), text(String), other

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let value = try? container.decode(Bool.self) {
                self = .bool(value)
            } else if let value = try? container.decode(Int.self) {
                self = .int(value)
            } else if let value = try? container.decode(String.self) {
                self = .text(value)
            } else {
                self = .other
            }
        }
    }

    /// Apple's JSON, keys sorted: what the store keeps with the answered request.
    public var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}

extension AppStoreAPIError {
    public static let invalidAccountTenure = Self(status: 400, errorCode: 4_000_032, errorMessage: "Invalid request. The account tenure field is invalid.")
    public static let invalidAppAccountToken = Self(status: 400, errorCode: 4_000_033, errorMessage: "Invalid request. The app account token field is invalid.")
    public static let invalidConsumptionStatus = Self(status: 400, errorCode: 4_000_034, errorMessage: "Invalid request. The consumption status field is invalid.")
    public static let invalidCustomerConsented = Self(status: 400, errorCode: 4_000_035, errorMessage: "Invalid request. The customer consented field is invalid or doesn't indicate that the customer consented.")
    public static let invalidDeliveryStatus = Self(status: 400, errorCode: 4_000_036, errorMessage: "Invalid request. The delivery status field is invalid.")
    public static let invalidLifetimeDollarsPurchased = Self(status: 400, errorCode: 4_000_037, errorMessage: "Invalid request. The lifetime dollars purchased field is invalid.")
    public static let invalidLifetimeDollarsRefunded = Self(status: 400, errorCode: 4_000_038, errorMessage: "Invalid request. The lifetime dollars refunded field is invalid.")
    public static let invalidPlatform = Self(status: 400, errorCode: 4_000_039, errorMessage: "Invalid request. The platform field is invalid.")
    public static let invalidPlayTime = Self(status: 400, errorCode: 4_000_040, errorMessage: "Invalid request. The playtime field is invalid.")
    public static let invalidSampleContentProvided = Self(status: 400, errorCode: 4_000_041, errorMessage: "Invalid request. The sample content provided field is invalid.")
    public static let invalidUserStatus = Self(status: 400, errorCode: 4_000_042, errorMessage: "Invalid request. The user status field is invalid.")
    public static let invalidTransactionNotConsumable = Self(status: 400, errorCode: 4_000_043, errorMessage: "Invalid request. The transaction id parameter must represent a consumable in-app purchase.")
    public static let rateLimitExceeded = Self(status: 429, errorCode: 4_290_000, errorMessage: "Rate limit exceeded.")
}

/// A CONSUMPTION_REQUEST raised for a consumable's refund request, and its answer: Apple gives the
/// game server 12 hours (on the store's time line) to send consumption information.
public struct ConsumptionRequestRecord: Hashable, Sendable {
    public static let answerWithin = Instant.Duration.hours(12)
    /// Apple's reasons (`consumptionRequestReason`).
    public static let reasons = ["UNINTENDED_PURCHASE", "FULFILLMENT_ISSUE", "UNSATISFIED_WITH_PURCHASE", "LEGAL", "OTHER"]

    public var transactionId: String
    public var appId: String
    public var userId: String
    /// The consumable's product, as its transaction names it (nil when the transaction is gone).
    public var productId: String?
    public var reason: String
    public var requestedAt: Instant
    public var requestedBy: String
    public var answeredAt: Instant?
    public var answeredBy: String?
    /// `ConsumptionInformation.json` once answered.
    public var answer: String?

    public init(
        transactionId: String, appId: String, userId: String, productId: String? = nil, reason: String, requestedAt: Instant,
        requestedBy: String, answeredAt: Instant? = nil, answeredBy: String? = nil, answer: String? = nil
    ) {
        self.transactionId = transactionId
        self.appId = appId
        self.userId = userId
        self.productId = productId
        self.reason = reason
        self.requestedAt = requestedAt
        self.requestedBy = requestedBy
        self.answeredAt = answeredAt
        self.answeredBy = answeredBy
        self.answer = answer
    }

    public var deadline: Instant { requestedAt.adding(Self.answerWithin) }

    /// Where the request stands at `now`.
    public enum Standing: Hashable, Sendable {
        case open(remaining: Instant.Duration)
        case answered(late: Bool)
        case missed
    }

    public func standing(at now: Instant) -> Standing {
        if let answeredAt { return .answered(late: answeredAt > deadline) }
        return now < deadline ? .open(remaining: Instant.Duration(millis: deadline.millis - now.millis)) : .missed
    }

    /// `open, 11h 59m left`, `answered`, `missed (deadline 2026-…)`.
    public func describe(at now: Instant) -> String {
        switch standing(at: now) {
        case .open(let remaining):
            return "open, \(remaining.shortText) left"
        case .answered(let late): return late ? "answered after the deadline" : "answered"
        case .missed: return "missed (deadline \(deadline.iso8601))"
        }
    }
}
