extension NotificationImport {
    /// The App Store's first day (2008-07-10): no notification, purchase or expiry can be older.
    public static let earliestDate = Instant(millis: 1_215_648_000_000)

    /// How far a transaction's `purchaseDate` may follow the notification's `signedDate`: Apple renews up
    /// to a day before a period ends and dates the renewal from that end, so a renewal's purchase can
    /// lie a little after the moment Apple signed the notice of it. Two days, for margin.
    public static let purchaseAfterSigningAllowance = Instant.Duration.days(2)

    /// The longest a transaction may run from its purchase to its expiry: two years. Apple's longest
    /// period is a year, and renewal-date extensions add at most 90 days twice a year.
    public static let longestPeriod = Instant.Duration.days(731)

    /// Why the dates of a decoded notification cannot be taken into a store, or nil when they can.
    ///
    /// A store keeps every chain's dates in order (`storedesk check`'s `subscription_dates_out_of_order`):
    /// first bought, then this period's purchase, then its expiry, then any grace period; a refund after
    /// the purchase. A line whose own dates break that (an expiry of 0 or before the purchase, a purchase
    /// in year 0 or 9999, a subscription without an expiry) is refused here, with the date that is wrong.
    ///
    ///     NotificationImport.dateProblem(in: event)   // "expiresDate 1970-01-01T00:00:00Z is not after purchaseDate …"
    public static func dateProblem(in event: SubscriptionEvent) -> String? {
        func text(_ instant: Instant) -> String {
            instant.isSupported ? instant.iso8601 : "\(instant.millis) ms"
        }
        func early(_ name: String, _ date: Instant) -> String? {
            date < earliestDate ? "\(name) \(text(date)) is before 2008-07-10, when the App Store opened" : nil
        }
        if let problem = early("signedDate", event.signedDate) { return problem }
        guard let transaction = event.transaction else { return nil }
        let latestPurchase = event.signedDate.adding(purchaseAfterSigningAllowance)
        let purchase = transaction.purchaseDate
        if let problem = early("purchaseDate", purchase) { return problem }
        if purchase > latestPurchase {
            return "purchaseDate \(text(purchase)) is after the notification was signed (signedDate \(text(event.signedDate)))"
        }
        if let original = transaction.originalPurchaseDate {
            if let problem = early("originalPurchaseDate", original) { return problem }
            if original > purchase {
                return "originalPurchaseDate \(text(original)) is after this period's purchaseDate \(text(purchase))"
            }
        }
        guard let expires = transaction.expiresDate else {
            return "an auto-renewable subscription's transaction has no expiresDate"
        }
        if expires <= purchase {
            return "expiresDate \(text(expires)) is not after purchaseDate \(text(purchase))"
        }
        if expires.duration(since: purchase) > longestPeriod {
            return "expiresDate \(text(expires)) is more than two years after purchaseDate \(text(purchase))"
        }
        if let revoked = transaction.revocationDate {
            if revoked < purchase { return "revocationDate \(text(revoked)) is before purchaseDate \(text(purchase))" }
            if revoked > latestPurchase {
                return "revocationDate \(text(revoked)) is after the notification was signed (signedDate \(text(event.signedDate)))"
            }
        }
        if let grace = event.renewal?.gracePeriodExpiresDate {
            if grace <= expires {
                return "gracePeriodExpiresDate \(text(grace)) is not after expiresDate \(text(expires))"
            }
            if grace.duration(since: expires) > longestPeriod {
                return "gracePeriodExpiresDate \(text(grace)) is more than two years after expiresDate \(text(expires))"
            }
        }
        return nil
    }
}

extension Subscription {
    /// Why a subscription row's dates are out of order, or nil when they follow each other: the rule
    /// `storedesk check` reports as `subscription_dates_out_of_order`, applied before a row is written.
    public var datesProblem: String? {
        if originalPurchaseDate > purchaseDate {
            return "first bought \(originalPurchaseDate.iso8601), after its current period began \(purchaseDate.iso8601)"
        }
        if expiresDate <= purchaseDate {
            return "expires \(expiresDate.iso8601), not after its current period began \(purchaseDate.iso8601)"
        }
        if let grace = gracePeriodExpiresDate, grace <= expiresDate {
            return "its grace period ends \(grace.iso8601), not after the period it extends \(expiresDate.iso8601)"
        }
        if let revoked = revocationDate, revoked < purchaseDate {
            return "revoked \(revoked.iso8601), before its current period began \(purchaseDate.iso8601)"
        }
        if state == .revoked, revocationDate == nil { return "revoked without a revocation date" }
        return nil
    }
}
