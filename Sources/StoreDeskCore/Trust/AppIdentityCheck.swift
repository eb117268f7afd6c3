/// Apple's checks of what signed data says about the app, made after its signature verified, as the App
/// Store Server Library's `SignedDataVerifier` makes them, for an app that may take both environments.
///
/// Apple's verifier is set up for one environment; a StoreDesk app takes Sandbox and Production unless
/// it is limited to one (`apps set ID --environment`). So the Apple ID is checked where Apple checks it
/// (a verifier set for Production, here an app limited to Production, or data that says Production), and
/// the environment must be one the app takes. Xcode and LocalTesting data (StoreKit testing, never signed
/// by the App Store) goes only to an app that takes Sandbox.
///
///     AppIdentityCheck.problem(.init(bundleId: "com.example", appAppleId: 1234, environment: "Production"),
///                              of: .notification, app: app)   // nil, or why not
public enum AppIdentityCheck {
    public enum Kind: Sendable {
        /// `verifyAndDecodeNotification`: bundle, Apple ID, environment.
        case notification
        /// `verifyAndDecodeTransaction`: bundle, environment.
        case transaction
        /// `verifyAndDecodeRenewalInfo`: environment only.
        case renewalInfo
    }

    /// What signed data claims about its app.
    public struct Claims: Hashable, Sendable {
        public var bundleId: String?
        public var appAppleId: Int64?
        public var environment: String?

        public init(bundleId: String? = nil, appAppleId: Int64? = nil, environment: String? = nil) {
            self.bundleId = bundleId
            self.appAppleId = appAppleId
            self.environment = environment
        }
    }

    /// Why the data is not the app's, in one line; nil when it is. `notificationEnvironment` is the
    /// environment of the notification a transaction or renewal info came in: both must agree.
    public static func problem(_ claims: Claims, of kind: Kind, app: App, notificationEnvironment: String? = nil) -> String? {
        if kind != .renewalInfo, claims.bundleId != app.bundleId {
            return "bundleId \(quoted(claims.bundleId)) is not app \(app.id)'s (\(app.bundleId))"
        }
        if kind == .notification, app.environments == .production || claims.environment == StoreEnvironment.production.rawValue {
            guard let appleAppId = app.appleAppId else {
                return "app \(app.id) has no Apple ID to check a Production notification against: "
                    + "storedesk apps set \(app.id) --apple-app-id ID"
            }
            if claims.appAppleId != appleAppId {
                return "appAppleId \(claims.appAppleId.map(String.init) ?? "(none)") is not app \(app.id)'s Apple ID (\(appleAppId))"
            }
        }
        guard let environment = claims.environment else { return "the signed data names no environment" }
        if let refusal = environmentProblem(environment, app: app) { return refusal }
        if let notificationEnvironment, notificationEnvironment != environment {
            return "environment \(environment) is not the notification's (\(notificationEnvironment))"
        }
        return nil
    }

    /// Why the app does not take data of `environment`; nil when it does.
    public static func environmentProblem(_ environment: String, app: App) -> String? {
        let taken: Bool
        if let store = StoreEnvironment(rawValue: environment) {
            taken = app.environments.takes(store)
        } else if NotificationTrust.storeKitTestingEnvironments.contains(environment) {
            taken = app.environments.takes(.sandbox)
        } else {
            return "environment \(quoted(environment)) is none of Sandbox, Production, Xcode and LocalTesting"
        }
        return taken
            ? nil
            : "environment \(environment): app \(app.id) takes \(app.environments.spoken) only "
                + "(storedesk apps set \(app.id) --environment both)"
    }

    private static func quoted(_ text: String?) -> String { text.map { "'\($0)'" } ?? "(none)" }
}
