/// The rules for taking App Store notifications into a store, and what an import reports, line by line.
///
/// Each line ends one of three ways: imported (the notification and its subscription's new state are
/// kept), skipped (nothing to do: a repeat, or nothing about a subscription), or rejected (it cannot be
/// taken as it is: unreadable, an unknown product, signed in the future). The store applies a line all
/// or nothing, so a rejected line leaves no trace.
///
///     NotificationImport.problem(with: event, product: catalogue[id], bundleId: app.bundleId, clock: clock, wallClock: now)
public enum NotificationImport {
    public enum Outcome: Hashable, Sendable {
        case imported
        case skipped(String)
        case rejected(String)

        public var name: String {
            switch self {
            case .imported: "imported"
            case .skipped: "skipped"
            case .rejected: "rejected"
            }
        }

        /// Why a line was skipped or rejected; nil when it was imported.
        public var reason: String? {
            switch self {
            case .imported: nil
            case .skipped(let reason), .rejected(let reason): reason
            }
        }
    }

    /// One line's fate.
    public struct Line: Hashable, Sendable {
        /// 1-based, as an editor shows it.
        public var line: Int
        public var notificationUUID: String?
        public var originalTransactionId: String?
        /// The player the notification was given to, when it was imported.
        public var userId: String?
        public var outcome: Outcome

        public init(
            line: Int, notificationUUID: String? = nil, originalTransactionId: String? = nil, userId: String? = nil,
            outcome: Outcome
        ) {
            self.line = line
            self.notificationUUID = notificationUUID
            self.originalTransactionId = originalTransactionId
            self.userId = userId
            self.outcome = outcome
        }
    }

    public struct Report: Hashable, Sendable {
        /// Every non-blank line, in file order.
        public var lines: [Line] = []
        /// Players made for notifications no one owned, named after their original transaction.
        public var usersCreated: [String] = []
        /// The subscriptions whose rows the import wrote, in the order first touched.
        public var subscriptions: [String] = []

        public init() {}

        public var imported: Int { lines.count(where: { $0.outcome.name == "imported" }) }
        public var skipped: Int { lines.count(where: { $0.outcome.name == "skipped" }) }
        public var rejected: Int { lines.count(where: { $0.outcome.name == "rejected" }) }
    }

    /// Why a decoded notification cannot be imported as it is, or nil when it can.
    ///
    /// - Parameters:
    ///   - product: the catalogue's product for the transaction's `productId`, nil when unknown.
    ///   - bundleId: the bundle id of that product's app.
    ///   - clock: the store's clock (a demo or seeded store keeps one fixed until something moves it).
    ///   - wallClock: the real time of the import. Apple cannot have signed a notification after both:
    ///     a store's clock lagging the real world must not refuse real notifications signed yesterday,
    ///     and a clock the demo pushed ahead must not refuse the demo's own.
    public static func problem(
        with event: SubscriptionEvent, product: Product?, bundleId: String?, clock: Instant, wallClock: Instant
    ) -> Outcome? {
        guard let transaction = event.transaction else {
            return .skipped("\(event.appleName) carries no transaction: nothing to attach it to")
        }
        guard let product else {
            return .rejected("unknown product '\(transaction.productId)': add it to the catalogue first")
        }
        guard product.type == .autoRenewable else {
            return .skipped("\(product.id) is \(product.type.name), not an auto-renewable subscription")
        }
        let sentBundle = event.bundleId ?? transaction.bundleId
        if let sentBundle, let bundleId, sentBundle != bundleId {
            return .rejected("bundleId '\(sentBundle)' is not app \(product.appId)'s (\(bundleId))")
        }
        if event.signedDate > max(clock, wallClock) {
            return .rejected(
                "signed \(event.signedDate.iso8601), in the future: after both the store's clock \(clock.iso8601) "
                    + "and the wall clock \(wallClock.iso8601)")
        }
        if let problem = dateProblem(in: event) { return .rejected(problem) }
        return nil
    }

    /// The player made for a subscription nobody in the store owns: named after its original
    /// transaction, an Apple account, created when it was first bought.
    public static func newOwner(originalTransactionId: String, firstPurchase: Instant) -> User {
        User(
            id: newOwnerId(originalTransactionId), name: originalTransactionId, friendlyName: "", idCard: "", phone: "",
            site: .apple, adultType: .unverified, fcm: false, authorizState: 0, safety: 0, clientId: "app-store-import",
            createdAt: firstPurchase)
    }

    /// `ot-2000000100000205`: the id of the player made for an unowned original transaction.
    public static func newOwnerId(_ originalTransactionId: String) -> String { "ot-" + originalTransactionId }
}
