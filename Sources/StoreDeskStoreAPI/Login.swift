import StoreDeskCore

/// One game's login setup as the Login screen and `login entries show` need it.
public struct LoginEntrySetup: Sendable, Hashable {
    public var app: App
    /// nil: no row at all, which reads like a row with no entries (the SDK's default).
    public var configuration: LoginEntryConfiguration?
    /// Newest first.
    public var history: [LoginEntryHistory]

    public init(app: App, configuration: LoginEntryConfiguration?, history: [LoginEntryHistory]) {
        self.app = app
        self.configuration = configuration
        self.history = history
    }

    /// The saved list; nil when never configured.
    public var entries: [LoginEntry]? { configuration?.entries }
}

extension LoginEntrySetup {
    /// Whether `staff` may save `entries` on a store (`readOnly`: opened read-only), decided before any
    /// backend opens a transaction: only a developer may, and a list that breaks a rule on every platform
    /// is refused with the rules it breaks.
    public static func checkChange(_ entries: [LoginEntry]?, by staff: StaffMember, readOnly: Bool) throws {
        guard !readOnly else { throw StoreError.invalidArgument("the store is open read-only: the login entries were not changed") }
        if let refusal = staff.configurationRefusal { throw StoreError.invalidArgument(refusal) }
        let broken = LoginEntryRules.violationsOnEveryPlatform(entries)
        guard broken.isEmpty else {
            throw StoreError.invalidArgument("not saved: " + broken.map { "\($0.code) (\($0.detail))" }.joined(separator: "; "))
        }
    }
}
