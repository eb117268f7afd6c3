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
    /// The app's Apple ID (App Store Connect's numeric id, `appAppleId` in signed data); nil until the
    /// developer gives it. Apple's verifier requires it to match for Production data.
    public var appleAppId: Int64?
    /// Which App Store environments this app takes signed data from.
    public var environment: AppEnvironment
    /// Where the game server listens for payment callbacks (http or https); nil when none is set.
    public var callbackURL: String?

    public init(
        id: String, name: String, bundleId: String, appKey: String, currencyPerYuan: Int,
        restoreOwnership: RestoreOwnership, gracePeriodDays: Int,
        appleAppId: Int64? = nil, environment: AppEnvironment = .both, callbackURL: String? = nil
    ) {
        self.id = id
        self.name = name
        self.bundleId = bundleId
        self.appKey = appKey
        self.currencyPerYuan = currencyPerYuan
        self.restoreOwnership = restoreOwnership
        self.gracePeriodDays = gracePeriodDays
        self.appleAppId = appleAppId
        self.environment = environment
        self.callbackURL = callbackURL
    }

    public enum CodingKeys: String, CodingKey {
        case id, name, environment
        case bundleId = "bundle_id"
        case appKey = "app_key"
        case currencyPerYuan = "currency_per_yuan"
        case restoreOwnership = "restore_ownership"
        case gracePeriodDays = "grace_period_days"
        case appleAppId = "apple_app_id"
        case callbackURL = "callback_url"
    }

    /// Reads an app written before the Apple app id, environment and callback URL existed (a
    /// hand-written `apps.json`) as having none of them, and both environments.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try c.decode(String.self, forKey: .id), name: try c.decode(String.self, forKey: .name),
            bundleId: try c.decode(String.self, forKey: .bundleId), appKey: try c.decode(String.self, forKey: .appKey),
            currencyPerYuan: try c.decode(Int.self, forKey: .currencyPerYuan),
            restoreOwnership: try c.decode(RestoreOwnership.self, forKey: .restoreOwnership),
            gracePeriodDays: try c.decode(Int.self, forKey: .gracePeriodDays),
            appleAppId: try c.decodeIfPresent(Int64.self, forKey: .appleAppId),
            environment: try c.decodeIfPresent(AppEnvironment.self, forKey: .environment) ?? .both,
            callbackURL: try c.decodeIfPresent(String.self, forKey: .callbackURL))
    }

    /// Writes every column, a missing value as null, so an update clears what was unset.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(name, forKey: .name)
        try c.encode(bundleId, forKey: .bundleId)
        try c.encode(appKey, forKey: .appKey)
        try c.encode(currencyPerYuan, forKey: .currencyPerYuan)
        try c.encode(restoreOwnership, forKey: .restoreOwnership)
        try c.encode(gracePeriodDays, forKey: .gracePeriodDays)
        try c.encode(appleAppId, forKey: .appleAppId)
        try c.encode(environment, forKey: .environment)
        try c.encode(callbackURL, forKey: .callbackURL)
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

/// The App Store environments an app takes signed data from: a team that only tests limits it to the
/// sandbox, a live game may refuse sandbox purchases. Xcode and local-testing data are never signed by
/// Apple and are judged apart.
///
///     AppEnvironment.production.accepts(.sandbox)   // false
public enum AppEnvironment: String, Hashable, Sendable, Codable, CaseIterable {
    case sandbox
    case production
    case both

    /// Whether data from `environment` belongs to this app.
    public func accepts(_ environment: StoreEnvironment) -> Bool {
        switch self {
        case .both: true
        case .sandbox: environment == .sandbox
        case .production: environment == .production
        }
    }
}
