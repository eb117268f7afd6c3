import Testing

@testable import StoreDeskCore

@Suite("Subscription codes")
struct SubscriptionCodesTests {
    @Test func eachFamilyNumbersItsCodesOnce() {
        for family in SubscriptionCode.Family.allCases {
            let codes = SubscriptionCodes.all.filter { $0.family == family }.map(\.code)
            #expect(!codes.isEmpty, "\(family)")
            #expect(Set(codes).count == codes.count, "\(family)")
        }
        #expect(Set(SubscriptionCodes.all.map(\.id)).count == SubscriptionCodes.all.count)
        #expect(SubscriptionCodes.skErrors.map(\.code) == Array(0...20))
    }

    @Test func tableMatchesTheEngine() {
        #expect(SubscriptionCodes.statuses.map(\.code) == SubscriptionState.allCases.map(\.appleStatus).sorted())
        for intent in SubscriptionCodes.expirationIntents {
            #expect(ExpirationIntent(key: ExpirationIntent(rawValue: intent.code).key)?.rawValue == intent.code)
        }
        #expect(SubscriptionCodes.table.count == SubscriptionCodes.all.count)
        #expect(SubscriptionCodes.table.first?.name == "InAppPurchaseError.unknown")
    }

    @Test func searchesByNumberNameOrMeaning() {
        #expect(SubscriptionCodes.search("grace").map(\.id) == ["status.4"])
        #expect(SubscriptionCodes.search("paymentcancelled").map(\.id) == ["InAppPurchaseError.2", "SKError.2"])
        #expect(SubscriptionCodes.search("30006").map(\.name) == ["noSubscriptionInReceipt"])
        #expect(SubscriptionCodes.search("receipt").allSatisfy { $0.family == .inAppPurchaseError })
        #expect(SubscriptionCodes.search("price increase").map(\.id).contains("expirationIntent.3"))
        #expect(SubscriptionCodes.search("18").map(\.name) == ["ineligibleForOffer"])
        #expect(SubscriptionCodes.search("").count == SubscriptionCodes.all.count)
        #expect(SubscriptionCodes.search("revocationReason").count == 2)
    }
}
