extension SubscriptionInfo {
    /// Where the subscription stands, in the words an operator reads to a player: what happens next, or
    /// what happened last. Dates come through `date`, so a screen can write them short and the CLI long.
    ///
    ///     info.standing { $0.dayText(in: zone) }
    ///     // "billing failed 2026-11-10; access kept until 2026-11-26"
    public func standing(_ date: (Instant) -> String, product: (String) -> String = { $0 }) -> String {
        switch state {
        case .active:
            guard autoRenew else { return "ends \(date(expiresDate)): auto-renew off" }
            return "renews \(date(expiresDate))" + (pendingProductId.map { " as \(product($0))" } ?? "")
        case .gracePeriod:
            return "billing failed \(date(expiresDate)); access kept until \(date(gracePeriodExpiresDate ?? expiresDate))"
        case .billingRetry:
            let until = billingRetryExpiresDate.map { "; retried until \(date($0))" } ?? ""
            return "billing failed \(date(expiresDate))\(until)"
        case .expired:
            return "expired" + (expirationIntent.map { " (\($0.reason))" } ?? "") + "; the last period ended \(date(expiresDate))"
        case .revoked:
            let what = revocation == .familySharing ? "family sharing ended" : "refunded"
            let reason = revocationReason.map { ", reason: \($0)" } ?? ""
            return what + (revocationDate.map { " \(date($0))" } ?? "") + reason + "; access removed (Apple's status: revoked)"
        }
    }

    /// `free trial, introductory`, `pay as you go, offer code SPRING`, `promotional winback-50`; nil at
    /// the regular price.
    public var offerText: String? {
        guard let offerType else { return nil }
        let kind = offerType.key.replacingOccurrences(of: "_", with: " ") + (offerId.map { " " + $0 } ?? "")
        guard let offerDiscountType else { return kind }
        return offerDiscountType.rawValue.lowercased().replacingOccurrences(of: "_", with: " ") + ", " + kind
    }
}

extension ExpirationIntent {
    /// `the player cancelled`, `billing error`: why it expired, for a sentence.
    public var reason: String {
        switch rawValue {
        case 1: "the player turned auto-renew off"
        case 2: "billing error"
        case 3: "price increase declined"
        case 4: "product no longer for sale"
        default: "other reason"
        }
    }
}
