import Testing

@testable import StoreDeskCore

/// A small catalogue in one subscription group, and dates written the short way.
enum Fixture {
    static let group = "starvoyage.vip"
    static let weekly = "vip.weekly"
    static let basic = "vip.monthly"
    static let premium = "vip.premium.monthly"
    static let yearly = "vip.yearly"
    static let gems = "gems.60"

    static let products: [Product] = [
        product(weekly, 1200, .oneWeek),
        product(basic, 3000, .oneMonth),
        product(premium, 6000, .oneMonth),
        product(yearly, 25800, .oneYear),
        Product(id: gems, appId: "1001", name: "60 gems", type: .consumable, priceCents: 600, currency: "CNY"),
    ]

    static func product(_ id: String, _ price: Int, _ period: SubscriptionPeriod) -> Product {
        Product(
            id: id, appId: "1001", name: id, type: .autoRenewable, priceCents: price, currency: "CNY",
            subscriptionGroup: group, period: period)
    }

    static func app(graceDays: Int = 16) -> App {
        App(
            id: "1001", name: "Star Voyage", bundleId: "com.storedesk.starvoyage", appKey: "secret",
            currencyPerYuan: 10, restoreOwnership: .transfer, gracePeriodDays: graceDays)
    }

    static func simulation(
        graceDays: Int = 16, start: String = "03-01", rate: TimeRate = .realTime, seed: UInt64 = 7
    ) -> SubscriptionSimulation {
        SubscriptionSimulation(
            app: app(graceDays: graceDays), products: products, start: day(start), rate: rate, seed: seed)
    }
}

/// `"04-05"` is 2026-04-05 08:00 UTC, `"04-05T10:30"` that day at 10:30, and a full ISO 8601 text is
/// itself. Keeps scenario tables readable.
func day(_ text: String) -> Instant {
    let iso: String
    if text.count == 5 {
        iso = "2026-\(text)T08:00:00Z"
    } else if text.count == 11 {
        iso = "2026-\(text):00Z"
    } else {
        iso = text
    }
    guard let instant = Instant(iso8601: iso) else {
        Issue.record("bad date \(text)")
        return Instant(millis: 0)
    }
    return instant
}
