import Testing
@testable import StoreDeskCore

@Suite struct SyntheticPopulationTests {
    let catalogue = Catalogue(
        apps: [
            App(id: "1", name: "Game", bundleId: "b", appKey: "k", currencyPerYuan: 10, restoreOwnership: .transfer, gracePeriodDays: 16)
        ],
        products: [
            Product(id: "gems", appId: "1", name: "Gems", type: .consumable, priceCents: 600, currency: "CNY", grantsCurrency: 60),
            Product(id: "vip", appId: "1", name: "VIP", type: .autoRenewable, priceCents: 3000, currency: "CNY", subscriptionGroup: "g", period: .oneMonth),
        ])
    let now = Instant(millis: 1_795_161_600_000)

    @Test func aHouseholdDependsOnlyOnSeedAndIndex() {
        let a = SyntheticPopulation(catalogue: catalogue, seed: 5, now: now)
        let b = SyntheticPopulation(catalogue: catalogue, seed: 5, now: now)
        for index in [0, 1, 999, 123_456] {
            #expect(a.household(index).user == b.household(index).user)
            #expect(a.household(index).transactions == b.household(index).transactions)
        }
        #expect(a.household(3).user != SyntheticPopulation(catalogue: catalogue, seed: 6, now: now).household(3).user)
    }

    @Test func householdsKeepTheStoreInvariants() {
        let population = SyntheticPopulation(catalogue: catalogue, seed: 1, now: now)
        for index in 0..<3000 {
            let h = population.household(index)
            #expect(Masking.isMaskedIDCard(h.user.idCard))
            let granted = Set(h.grants.map(\.orderId))
            #expect(granted.count == h.grants.count, "an order granted twice")
            for t in h.transactions where t.state == .purchased && t.finished {
                let order = h.orders.first { $0.transactionId == t.id }
                #expect(order != nil && granted.contains(order?.id ?? ""), "finished purchase \(t.id) not delivered")
            }
            for s in h.subscriptions {
                switch s.state {
                case .active: #expect(s.expiresDate > now)
                case .expired, .billingRetry: #expect(s.expiresDate < now)
                case .gracePeriod: #expect((s.gracePeriodExpiresDate ?? now) > now)
                case .revoked: #expect(s.revocationDate != nil)
                }
            }
            for r in h.restoreRequests {
                #expect(h.transactions.contains { $0.id == r.transactionId && $0.isDropped })
            }
        }
    }
}
