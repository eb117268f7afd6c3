import Foundation

/// Get Notification History's request (`POST /inApps/v1/notifications/history`), checked as Apple checks
/// it: a start and an end date (the start first), one filter at most beside them (a notification type,
/// with its subtype, or a transaction id), `onlyFailures`, and the `paginationToken` of the previous page.
///
/// StoreDesk's history is the app's notifications the store holds (imported, simulated), each signed
/// again by the store's chain, with the attempts `serve` made to send it; `onlyFailures` keeps those sent
/// whose every attempt so far failed.
public struct NotificationHistoryQuery: Hashable, Sendable {
    public var startDate: Instant
    public var endDate: Instant
    public var notificationType: String?
    public var notificationSubtype: String?
    public var transactionId: String?
    public var onlyFailures: Bool
    /// The id of the last notification of the previous page.
    public var after: Int64?

    /// From the JSON body and the query's `paginationToken`.
    public init(json bytes: [UInt8], paginationToken: String?) throws(AppStoreAPIError) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else { throw .generalBadRequest }
        func millis(_ value: Any?) -> Int64? { value is String ? nil : (value as? NSNumber)?.int64Value }
        guard let start = millis(object["startDate"]), start >= 0 else { throw .invalidStartDate }
        guard let end = millis(object["endDate"]), end >= 0 else { throw .invalidEndDate }
        guard start < end else { throw .startDateAfterEndDate }
        startDate = Instant(millis: start)
        endDate = Instant(millis: end)
        notificationType = object["notificationType"] as? String
        notificationSubtype = object["notificationSubtype"] as? String
        if let type = notificationType, !type.allSatisfy({ $0.isASCII && ($0.isUppercase || $0 == "_") }) || type.isEmpty {
            throw .invalidNotificationType
        }
        if let id = object["transactionId"] as? String { transactionId = try AppStoreServerAPI.checkTransactionId(id) }
        if notificationType != nil, transactionId != nil { throw .multipleFiltersSupplied }
        onlyFailures = object["onlyFailures"] as? Bool ?? false
        if let paginationToken {
            guard paginationToken.first == "N", let id = Int64(paginationToken.dropFirst()), id >= 0 else { throw .invalidPaginationToken }
            after = id
        }
    }

    /// The token of a page whose last notification is `id`.
    public static func token(after id: Int64) -> String { "N\(id)" }
}

extension AppStoreAPIError {
    public static let invalidPaginationToken = Self(status: 400, errorCode: 4_000_014, errorMessage: "Invalid pagination token.")
    public static let invalidNotificationType = Self(status: 400, errorCode: 4_000_018, errorMessage: "Invalid notification type.")
    public static let multipleFiltersSupplied = Self(
        status: 400, errorCode: 4_000_019, errorMessage: "Invalid request. Supply either a transaction id or a notification type, but not both.")
}
