/// The three kinds of people who use StoreDesk. What each may do is `Permission`'s to say.
public enum StaffRole: String, Sendable, Hashable, CaseIterable, Codable {
    /// Inspects users, subscriptions and queues; changes nothing.
    case `operator`
    /// Acts on restore requests and may reveal masked fields (each reveal audited).
    case support
    /// Drives simulations and edits configuration.
    case developer

    /// Whether this role may do it.
    public func may(_ permission: Permission) -> Bool { permission.roles.contains(self) }

    /// Why this role may not do it (`restores need the support or developer role`), or nil when it may.
    public func refusal(_ permission: Permission) -> String? { may(permission) ? nil : permission.refusal }
}

/// Something a person at StoreDesk may or may not do: the one model that key bindings, `:` verbs,
/// command-line options and the store's writes all ask, so the help's dimmed reason, the console's
/// refusal and the command line's error say the same thing.
///
///     StaffRole.operator.refusal(.resolveRestores)   // "restores need the support or developer role"
public enum Permission: String, Sendable, Hashable, CaseIterable {
    /// Reveal a masked phone number (audited).
    case revealPhone
    /// Confirm, decline and run restores, and log a player in at the desk.
    case resolveRestores
    /// Drive the payment simulation and finish its transactions.
    case driveSimulation
    /// Drive a live demo subscription.
    case driveSubscriptionDemo
    /// Edit a game's login entries.
    case editLoginConfiguration
    /// Drive the carrier's one-click login simulator.
    case driveOneTap
    /// Add or remove the root certificates App Store signatures are verified against.
    case editTrustRoots
    /// Add an app or change its settings (`apps add|set`).
    case editApps
    /// Import an app's catalogue from its StoreKit configuration (`catalog import`).
    case importCatalogue
    /// Apple's support actions on a purchase: refund, reverse a refund, consumption requests, renewal
    /// extensions, app account tokens (each audited, each writing Apple's notification).
    case actForApple

    /// The roles that may.
    public var roles: Set<StaffRole> {
        switch self {
        case .revealPhone: [.support]
        case .resolveRestores, .actForApple: [.support, .developer]
        case .driveSimulation, .driveSubscriptionDemo, .editLoginConfiguration, .driveOneTap, .editTrustRoots, .editApps,
            .importCatalogue:
            [.developer]
        }
    }

    /// What a refusal says, for every role that may not.
    public var refusal: String {
        switch self {
        case .revealPhone: "revealing a phone number needs the support role"
        case .resolveRestores: "restores need the support or developer role"
        case .actForApple: "refunds, extensions and consumption answers need the support or developer role"
        case .driveSimulation: "driving the simulation needs the developer role"
        case .driveSubscriptionDemo: "driving a demo subscription needs the developer role"
        case .editLoginConfiguration: "only a developer may edit the login configuration"
        case .driveOneTap: "only a developer may drive the one-tap login simulator"
        case .editTrustRoots: "only a developer may change the trusted roots"
        case .editApps: "only a developer may change an app's settings"
        case .importCatalogue: "only a developer may change an app's catalogue"
        }
    }
}
