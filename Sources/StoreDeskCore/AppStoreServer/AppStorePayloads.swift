/// StoreDesk's transactions and subscriptions as Apple's payloads: what a `signedTransactionInfo` and a
/// `signedRenewalInfo` of the store's App Store Server API say, field by field. Pure: the same rows and
/// instant give the same payload.
///
///     let payload = AppStorePayloads.transaction(purchase, in: customer, at: now)
///     payload.type            // "Auto-Renewable Subscription"
///     payload.price           // 30000 for 30.00 (milliunits)
public enum AppStorePayloads {
    /// Apple's `type` of a product.
    public static func type(_ type: ProductType) -> String {
        switch type {
        case .autoRenewable: "Auto-Renewable Subscription"
        case .nonConsumable: "Non-Consumable"
        case .consumable: "Consumable"
        case .nonRenewing: "Non-Renewing Subscription"
        }
    }

    /// `FAMILY_SHARED` for a purchase revoked because family sharing stopped, else `PURCHASED`.
    public static func ownership(_ transaction: StoreTransaction) -> String {
        transaction.revocationReason == RevocationKind.familySharing.rawValue ? "FAMILY_SHARED" : "PURCHASED"
    }

    /// The three-letter storefront of a price's currency (CNY is China's, the demo's; otherwise the US).
    public static func storefront(currency: String) -> (code: String, id: String) {
        switch currency.uppercased() {
        case "CNY": ("CHN", "143465")
        case "JPY": ("JPN", "143462")
        case "EUR": ("DEU", "143443")
        case "GBP": ("GBR", "143444")
        default: ("USA", "143441")
        }
    }

    /// A purchase as Apple's `JWSTransactionDecodedPayload`, signed at `now`.
    public static func transaction(_ purchase: AppStorePurchase, in customer: AppStoreCustomer, at now: Instant) -> JWSTransactionDecodedPayload {
        let transaction = purchase.transaction, product = purchase.product
        let original = customer.purchases.first { $0.transaction.id == transaction.originalTransactionId }?.transaction
        let isSubscription = product.type == .autoRenewable
        let storefront = storefront(currency: product.currency)
        let revoked = transaction.revocationDate != nil
        let refund = revoked && transaction.revocationReason != RevocationKind.familySharing.rawValue
        let appleReason = customer.subscriptions.first { $0.id == transaction.originalTransactionId }?.appleRevocationReason
        return JWSTransactionDecodedPayload(
            originalTransactionId: transaction.originalTransactionId, transactionId: transaction.id,
            webOrderLineItemId: isSubscription ? AppleOrderId.of(transactionId: transaction.id) : nil,
            bundleId: customer.app.bundleId, productId: product.id,
            subscriptionGroupIdentifier: isSubscription ? product.subscriptionGroup : nil, purchaseDate: transaction.purchaseDate,
            originalPurchaseDate: original?.purchaseDate ?? transaction.purchaseDate,
            expiresDate: isSubscription || product.type == .nonRenewing ? transaction.expiresDate : nil,
            quantity: transaction.quantity, type: type(product.type), appAccountToken: purchase.appAccountToken,
            inAppOwnershipType: ownership(transaction), signedDate: now,
            revocationReason: revoked ? RevocationReason(rawValue: appleReason ?? 0) : nil, revocationDate: transaction.revocationDate,
            isUpgraded: nil, environment: transaction.environment.rawValue, storefront: storefront.code,
            storefrontId: storefront.id,
            transactionReason: isSubscription && transaction.id != transaction.originalTransactionId ? "RENEWAL" : "PURCHASE",
            currency: product.currency.uppercased(), price: Int64(product.priceCents).clampedMultiplied(by: 10 * Int64(transaction.quantity)),
            revocationType: refund ? "REFUND_FULL" : nil)
    }

    /// A subscription's renewal info at `now`, from what the subscription engine says of it then.
    public static func renewal(
        _ subscription: Subscription, info: SubscriptionInfo, in customer: AppStoreCustomer, at now: Instant
    ) -> JWSRenewalInfoDecodedPayload {
        let product = customer.purchases.first { $0.product.id == info.autoRenewProductId }?.product
        let ended = info.state == .expired || info.state == .revoked
        return JWSRenewalInfoDecodedPayload(
            expirationIntent: ended ? info.expirationIntent ?? (info.autoRenew ? nil : .cancelled) : nil,
            originalTransactionId: subscription.id, autoRenewProductId: info.autoRenewProductId, productId: info.productId,
            autoRenewStatus: info.autoRenew ? 1 : 0, isInBillingRetryPeriod: info.state == .billingRetry || info.state == .gracePeriod,
            gracePeriodExpiresDate: info.state == .gracePeriod ? info.gracePeriodExpiresDate : nil, signedDate: now,
            environment: customer.environment.rawValue, recentSubscriptionStartDate: info.originalPurchaseDate,
            renewalDate: ended ? nil : info.expiresDate, currency: product.map { $0.currency.uppercased() },
            renewalPrice: product.map { Int64($0.priceCents).clampedMultiplied(by: 10) })
    }
}
