import Testing

@testable import StoreDeskCore

/// Prices as a user reads them: decimals only where the currency has a minor unit.
@Suite struct ProductPriceTests {
    static func price(_ cents: Int, _ currency: String) -> String {
        Product(id: "p", appId: "1001", name: "p", type: .consumable, priceCents: cents, currency: currency).priceText
    }

    @Test func zeroDecimalCurrenciesShowWholeAmounts() {
        #expect(Self.price(12_000, "JPY") == "JPY 120")
        #expect(Self.price(1_200_000, "KRW") == "KRW 12000")
        #expect(Self.price(99_000, "CLP") == "CLP 990")
        #expect(Self.price(0, "JPY") == "JPY 0")
    }

    @Test func currenciesWithCentsKeepTwoDecimals() {
        #expect(Self.price(600, "CNY") == "¥6.00")
        #expect(Self.price(99, "USD") == "$0.99")
        #expect(Self.price(12_905, "TWD") == "TWD 129.05")
        #expect(Self.price(-150, "CNY") == "-¥1.50")
    }

    /// A fraction a yen price should never carry is shown rather than rounded away.
    @Test func aStrayFractionIsNotHidden() {
        #expect(Self.price(12_050, "JPY") == "JPY 120.50")
    }
}
