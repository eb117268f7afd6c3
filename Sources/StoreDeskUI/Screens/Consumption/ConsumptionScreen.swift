import Foundation
import StoreDeskCore
import StoreDeskStoreAPI

extension ScreenID {
    public static let consumption = ConsumptionScreen.id
}

/// The Consumption screen: the consumption-request desk. Every CONSUMPTION_REQUEST raised for a
/// consumable's refund request, newest first, with its standing on the console's clock (open with the
/// time left of Apple's 12 hours, answered, answered late, missed); `r` raises one for a consumable
/// purchase (its reason one of Apple's), `a` answers the selected one with consumption information,
/// field by field at the prompt. Both are the store's `AppleSupportStore` writes, audited as the
/// console's staff member; `storedesk support consumption request|answer|list` does the same.
public struct ConsumptionScreen: Sendable {
    /// The requests as last read, newest first (at most `limit`).
    public var requests: [ConsumptionRequestRecord] = []
    /// Whether the first read came back.
    public var loaded = false
    /// The selected request's transaction (kept on the same request when the list is read again).
    public var selectedTransaction: String?
    /// Which standings the list shows; `s` cycles all → open → missed → answered.
    public var standing: StandingFilter = .all
    /// Text found in the transaction, the player, the product, the app or the reason (any case).
    public var filter = ""
    public var detailScroll = 0
    /// An answer being put together at the prompt: the request and the fields typed so far.
    var draft: AnswerDraft?
    /// A request being raised: its transaction, waiting for the reason.
    var raising: String?
    /// The console's clock at the last entry point: what the keys' guards judge a request's standing at.
    public var clock = Instant(millis: 0)

    /// The newest this many requests: a desk works on today's, and the store keeps one a transaction.
    public static let limit = 500

    public init() {}

    /// Which requests the list shows.
    public enum StandingFilter: String, Sendable, CaseIterable {
        case all, open, missed, answered

        func admits(_ standing: ConsumptionRequestRecord.Standing) -> Bool {
            switch (self, standing) {
            case (.all, _), (.open, .open), (.missed, .missed), (.answered, .answered): true
            default: false
            }
        }
    }

    public enum Event: Sendable {
        case requests([ConsumptionRequestRecord])
        /// A write came back: a line for the status bar, and the request to select.
        case written(Outcome, select: String?)
    }

    /// What a desk write came back with.
    public enum Outcome: Sendable {
        case done(String)
        case refused(String)
    }

    /// The requests the list shows at `now`: the standing and the filter applied, in the store's order.
    public func visible(at now: Instant) -> [ConsumptionRequestRecord] {
        let text = filter.trimmingCharacters(in: .whitespaces).lowercased()
        return requests.filter { request in
            guard standing.admits(request.standing(at: now)) else { return false }
            guard !text.isEmpty else { return true }
            return Self.searched(request).contains { $0.lowercased().contains(text) }
        }
    }

    /// The fields `/` looks in.
    static func searched(_ request: ConsumptionRequestRecord) -> [String] {
        [request.transactionId, request.userId, request.productId ?? "", request.appId, request.reason]
    }

    /// The selected request among `rows`: the one with `selectedTransaction`, else the first.
    func selectedIndex(in rows: [ConsumptionRequestRecord]) -> Int {
        selectedTransaction.flatMap { id in rows.firstIndex { $0.transactionId == id } } ?? 0
    }

    func selectedRequest(at now: Instant) -> ConsumptionRequestRecord? {
        let rows = visible(at: now)
        return rows.isEmpty ? nil : rows[selectedIndex(in: rows)]
    }

    /// The player as every list shows a player: an id that holds a mobile number has it masked.
    static func player(_ request: ConsumptionRequestRecord) -> String { Masking.phoneNumbers(in: request.userId) }
}
