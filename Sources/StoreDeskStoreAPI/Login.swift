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
