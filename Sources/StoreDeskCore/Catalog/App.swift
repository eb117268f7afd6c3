/// A game registered on the platform: its AppID, its AppKey (a secret, always masked) and the rules
/// that decide what a payment grants and who owns a restored purchase.
public struct App: Hashable, Sendable, Codable, Identifiable {
    public var id: String
    public var name: String
    public var bundleId: String
    /// The shared secret that signs server callbacks. Never listed or logged in the clear.
    public var appKey: String
    /// Game currency granted per yuan when a payment's gold does not match a product price.
    public var currencyPerYuan: Int
    public var restoreOwnership: RestoreOwnership
    /// Apple's billing grace period for this app's subscriptions: 0 (off), 3, 16 or 28 days.
    public var gracePeriodDays: Int

    public init(
        id: String, name: String, bundleId: String, appKey: String, currencyPerYuan: Int,
        restoreOwnership: RestoreOwnership, gracePeriodDays: Int
    ) {
        self.id = id
        self.name = name
        self.bundleId = bundleId
        self.appKey = appKey
        self.currencyPerYuan = currencyPerYuan
        self.restoreOwnership = restoreOwnership
        self.gracePeriodDays = gracePeriodDays
    }

    public enum CodingKeys: String, CodingKey {
        case id, name
        case bundleId = "bundle_id"
        case appKey = "app_key"
        case currencyPerYuan = "currency_per_yuan"
        case restoreOwnership = "restore_ownership"
        case gracePeriodDays = "grace_period_days"
    }

    public var maskedAppKey: String { Masking.secret(appKey) }
}

/// What happens when a purchase that already belongs to one game account is restored onto another,
/// as subscription platforms let an app choose.
public enum RestoreOwnership: String, Hashable, Sendable, Codable, CaseIterable {
    /// The purchase moves to the new account; the old one loses it.
    case transfer
    /// The purchase stays with its original account; restoring onto another is refused.
    case keep
    /// Both accounts hold it.
    case share
}
