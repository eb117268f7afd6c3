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
    /// The app's Apple ID (App Store Connect's numeric id): a Production notification or transaction must
    /// carry it as `appAppleId`, as Apple's `SignedDataVerifier` checks. Nil until the team says it.
    public var appleAppId: Int64?
    /// Which App Store environments' signed data the app takes: both unless the team limits it to one.
    public var environments: AppEnvironments
    /// Where the game server takes payment callbacks (http or https); nil when none is set.
    public var callbackURL: String?
    /// Where the store sends this app's App Store Server Notifications V2 (`serve`'s sender, http or
    /// https); nil when none is set.
    public var notificationURL: String?

    public init(
        id: String, name: String, bundleId: String, appKey: String, currencyPerYuan: Int,
        restoreOwnership: RestoreOwnership, gracePeriodDays: Int, appleAppId: Int64? = nil,
        environments: AppEnvironments = .both, callbackURL: String? = nil, notificationURL: String? = nil
    ) {
        self.id = id
        self.name = name
        self.bundleId = bundleId
        self.appKey = appKey
        self.currencyPerYuan = currencyPerYuan
        self.restoreOwnership = restoreOwnership
        self.gracePeriodDays = gracePeriodDays
        self.appleAppId = appleAppId
        self.environments = environments
        self.callbackURL = callbackURL
        self.notificationURL = notificationURL
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        name = try container.decode(String.self, forKey: .name)
        bundleId = try container.decode(String.self, forKey: .bundleId)
        appKey = try container.decode(String.self, forKey: .appKey)
        currencyPerYuan = try container.decode(Int.self, forKey: .currencyPerYuan)
        restoreOwnership = try container.decode(RestoreOwnership.self, forKey: .restoreOwnership)
        gracePeriodDays = try container.decode(Int.self, forKey: .gracePeriodDays)
        // Both are new (v11): a demo file or an old row without them takes any environment, no Apple ID.
        appleAppId = try container.decodeIfPresent(Int64.self, forKey: .appleAppId)
        environments = try container.decodeIfPresent(AppEnvironments.self, forKey: .environments) ?? .both
        // New in v12: none until a developer sets one.
        callbackURL = try container.decodeIfPresent(String.self, forKey: .callbackURL)
        // New in v20: none until a developer sets one.
        notificationURL = try container.decodeIfPresent(String.self, forKey: .notificationURL)
    }

    /// Writes every column, an absent value as null, so saving an app clears what was unset.
    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(name, forKey: .name)
        try container.encode(bundleId, forKey: .bundleId)
        try container.encode(appKey, forKey: .appKey)
        try container.encode(currencyPerYuan, forKey: .currencyPerYuan)
        try container.encode(restoreOwnership, forKey: .restoreOwnership)
        try container.encode(gracePeriodDays, forKey: .gracePeriodDays)
        try container.encode(appleAppId, forKey: .appleAppId)
        try container.encode(environments, forKey: .environments)
        try container.encode(callbackURL, forKey: .callbackURL)
        try container.encode(notificationURL, forKey: .notificationURL)
    }

    public enum CodingKeys: String, CodingKey {
        case id, name
        case bundleId = "bundle_id"
        case appKey = "app_key"
        case currencyPerYuan = "currency_per_yuan"
        case restoreOwnership = "restore_ownership"
        case gracePeriodDays = "grace_period_days"
        case appleAppId = "apple_app_id"
        case environments = "environment"
        case callbackURL = "callback_url"
        case notificationURL = "notification_url"
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

/// The App Store environments whose signed data an app takes (`apps set ID --environment ...`).
/// Apple's library takes one environment per verifier; a team usually sees both, so both is the default.
public enum AppEnvironments: String, Hashable, Sendable, Codable, CaseIterable {
    case sandbox
    case production
    case both

    /// `Sandbox`, `Production` or `Sandbox and Production`, as an operator reads it.
    public var spoken: String {
        switch self {
        case .both: "Sandbox and Production"
        case .sandbox: "Sandbox"
        case .production: "Production"
        }
    }

    /// Whether data signed in `environment` (`Production`, `Sandbox`) belongs to this app.
    public func takes(_ environment: StoreEnvironment) -> Bool {
        switch self {
        case .both: true
        case .sandbox: environment == .sandbox
        case .production: environment == .production
        }
    }
}
