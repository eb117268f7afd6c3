/// A discount a customer gets on a subscription: an introductory offer, a promotional offer or an offer
/// code, priced as a free trial, pay as you go, or pay up front.
///
/// Modelled as StoreKit's `Product.SubscriptionOffer` does it: a `period` and a `periodCount`. A free
/// trial or a pay-up-front offer is one transaction covering `period × periodCount`; pay as you go bills
/// `periodCount` transactions of `period` each at the offer price. Then the regular price resumes.
///
///     .freeTrial(.week)                                           // 1 week free, then monthly
///     .payAsYouGo(.month, periods: 3, priceCents: 600)            // 3 months at ¥6
///     .payUpFront(CalendarPeriod(6, .month), priceCents: 9800, type: .offerCode, id: "SPRING")
public struct SubscriptionOffer: Hashable, Sendable, Codable {
    public var type: OfferType
    /// The offer identifier; Apple sends none for introductory offers.
    public var id: String?
    public var discount: OfferDiscountType
    public var period: CalendarPeriod
    public var periodCount: Int
    /// The price of each pay-as-you-go period, or of the whole pay-up-front offer; 0 for a free trial.
    public var priceCents: Int

    public init(
        type: OfferType, id: String? = nil, discount: OfferDiscountType, period: CalendarPeriod,
        periodCount: Int = 1, priceCents: Int = 0
    ) {
        self.type = type
        self.id = id
        self.discount = discount
        self.period = period
        self.periodCount = periodCount
        self.priceCents = priceCents
    }

    public static func freeTrial(
        _ period: CalendarPeriod, type: OfferType = .introductory, id: String? = nil
    ) -> SubscriptionOffer {
        SubscriptionOffer(type: type, id: id, discount: .freeTrial, period: period)
    }

    public static func payAsYouGo(
        _ period: CalendarPeriod, periods: Int, priceCents: Int, type: OfferType = .introductory, id: String? = nil
    ) -> SubscriptionOffer {
        SubscriptionOffer(
            type: type, id: id, discount: .payAsYouGo, period: period, periodCount: periods, priceCents: priceCents)
    }

    public static func payUpFront(
        _ period: CalendarPeriod, priceCents: Int, type: OfferType = .introductory, id: String? = nil
    ) -> SubscriptionOffer {
        SubscriptionOffer(type: type, id: id, discount: .payUpFront, period: period, priceCents: priceCents)
    }

    /// How long each offer-priced transaction lasts.
    var termLength: CalendarPeriod {
        discount == .payAsYouGo ? period : CalendarPeriod(period.value * max(1, periodCount), period.unit)
    }

    /// How many offer-priced transactions there are.
    var termCount: Int { discount == .payAsYouGo ? max(1, periodCount) : 1 }

    /// Apple's milliunit price of one offer-priced transaction.
    var termPrice: Int64 { discount == .freeTrial ? 0 : Int64(priceCents).clampedMultiplied(by: 10) }

    /// A `TransactionInfo.offerPeriod` value.
    var offerPeriod: String { termLength.iso8601 }
}
