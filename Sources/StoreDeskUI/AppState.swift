import Foundation
import StoreDeskCore

/// The screens the tab bar shows, in order; their number is their place.
public enum ScreenID: String, Sendable, Hashable, CaseIterable {
    case users

    public var title: String {
        switch self {
        case .users: "Users"
        }
    }
}

/// Which pane has the keyboard.
public enum Focus: Sendable, Hashable {
    case list, detail
}

/// What the bottom line is doing: showing a message, or taking typed input.
public enum InputMode: Sendable, Hashable {
    case normal
    /// Typing after `/`; the list follows every keystroke.
    case filter(previous: String)
    /// Typing after `:`.
    case command(text: String)
    /// The `?` overlay, scrolled by this many lines.
    case help(scroll: Int)
}

public struct StatusMessage: Sendable, Hashable {
    public enum Kind: Sendable, Hashable { case info, success, warning, error }
    public var text: String
    public var kind: Kind
    public init(_ text: String, _ kind: Kind = .info) {
        self.text = text
        self.kind = kind
    }
}

/// The whole console as a value: what is on screen is a function of this and the theme.
public struct AppState: Sendable {
    public var size: Size
    public var session: Session
    public var storePath: String
    public var apps: [App] = []
    public var appIndex = 0
    public var environment: StoreEnvironment = .production
    public var clock: Instant
    public var timeZone: TimeZone
    public var screen: ScreenID = .users
    public var focus: Focus = .list
    public var mode: InputMode = .normal
    public var status: StatusMessage?
    public var themeName: String
    public var themeNames: [String]
    public var users = UsersScreen()
    public var quitting = false

    public init(
        size: Size, session: Session, storePath: String, clock: Instant, timeZone: TimeZone, themeName: String,
        themeNames: [String]
    ) {
        self.size = size
        self.session = session
        self.storePath = storePath
        self.clock = clock
        self.timeZone = timeZone
        self.themeName = themeName
        self.themeNames = themeNames
    }

    /// The app in context, for the header.
    public var app: App? { apps.indices.contains(appIndex) ? apps[appIndex] : nil }

    /// The first effects: what every screen needs on screen at start.
    public mutating func start() -> [Effect] {
        let load: Effect = .read { db in .appsLoaded(try db.apps()) }
        return [load] + users.reload(pageSize: layout.listRows)
    }

    public var layout: Layout { Layout(size: size) }
}
