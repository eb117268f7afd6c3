/// What a developer does to a demo subscription, as the customer or Apple would: the same actions for the
/// console's keys and for `storedesk events simulate --step ACTION@SECONDS`.
///
///     try SubscriptionDemoAction.parse("change:vip.yearly").apply(to: &sim, id, at: now)
public enum SubscriptionDemoAction: Hashable, Sendable, CustomStringConvertible {
    /// Renewals start failing to bill (an expired card): grace period when the app has one, then retry.
    case billingFails
    /// The payment method is fixed: a failing subscription recovers.
    case billingFixed
    case autoRenew(Bool)
    /// Another product of the group: a dearer one upgrades at once, a cheaper one waits for the renewal.
    case change(productId: String)
    /// Apple refunds the current period: revoked, access removed.
    case refund

    /// The names `parse` takes, for help and errors.
    public static let names = "billing-fails, billing-fixed, auto-renew-off, auto-renew-on, refund, change:PRODUCT"

    public static func parse(_ text: String) -> SubscriptionDemoAction? {
        switch text {
        case "billing-fails": .billingFails
        case "billing-fixed": .billingFixed
        case "auto-renew-off": .autoRenew(false)
        case "auto-renew-on": .autoRenew(true)
        case "refund": .refund
        default:
            text.hasPrefix("change:") && text.count > 7 ? .change(productId: String(text.dropFirst(7))) : nil
        }
    }

    public var description: String {
        switch self {
        case .billingFails: "billing-fails"
        case .billingFixed: "billing-fixed"
        case .autoRenew(let on): on ? "auto-renew-on" : "auto-renew-off"
        case .refund: "refund"
        case .change(let id): "change:" + id
        }
    }

    /// Acts on the simulation at `instant` and says what happened, or throws the simulation's refusal
    /// (then nothing changed but the clock).
    @discardableResult
    public func apply(to simulation: inout SubscriptionSimulation, _ originalTransactionId: String, at instant: Instant) throws -> String {
        switch self {
        case .billingFails:
            try simulation.startBillingProblem(originalTransactionId, at: instant)
            return "renewals now fail to bill: grace period (when the app has one), then billing retry"
        case .billingFixed:
            try simulation.resolveBillingProblem(originalTransactionId, at: instant)
            return "payment method fixed: the subscription recovers"
        case .autoRenew(let on):
            try simulation.setAutoRenew(originalTransactionId, on, at: instant)
            return on ? "auto-renew on again" : "auto-renew off: it expires at the end of the period"
        case .refund:
            try simulation.refund(originalTransactionId, at: instant)
            return "refunded: revoked, access removed"
        case .change(let productId):
            guard let product = simulation.products[productId] else { throw SubscriptionSimulationError.unknownProduct(productId) }
            let current = simulation.subscription(originalTransactionId).flatMap { simulation.products[$0.productId] }
            if product.priceCents > current?.priceCents ?? 0 {
                try simulation.upgrade(originalTransactionId, to: productId, at: instant)
                return "upgraded to \(productId) at once"
            }
            try simulation.downgrade(originalTransactionId, to: productId, at: instant)
            return "downgrades to \(productId) at the next renewal"
        }
    }
}
