/// The login panel a game would show for a list on a platform: the buttons in order, which of them
/// open a web page, and the custom-entry flow around it. What the Login screen's preview draws.
///
///     let panel = LoginPanel(entries: [.apple, .weChat], platform: .iPhone)
///     panel.buttons.map(\.entry)   // [.apple, .weChat]
public struct LoginPanel: Hashable, Sendable {
    public struct Button: Hashable, Sendable {
        public var entry: LoginEntry
        public var title: String
        /// The login opens a web page instead of an app or the system sheet.
        public var webFlow: Bool
    }

    /// The buttons shown, top to bottom (at most `LoginEntryRules.maximumShown`, each once).
    public var buttons: [Button]
    /// Configured entries the panel cannot show: beyond the fifth, or repeated.
    public var notShown: [LoginEntry]
    /// No buttons: the platform login opens directly.
    public var opensPlatformLoginDirectly: Bool
    /// The custom-entry flow, step by step: the last session first, then the panel.
    public var flow: [String]

    /// - Parameter webLogins: entries a legacy switch sends to the web (QQ or WeChat as web login).
    public init(entries: [LoginEntry]?, platform: LoginPlatform, webLogins: Set<LoginEntry> = []) {
        let list = entries ?? LoginEntry.sdkDefault
        var shown: [LoginEntry] = []
        var notShown: [LoginEntry] = []
        for entry in list {
            if shown.contains(entry) || shown.count == LoginEntryRules.maximumShown {
                notShown.append(entry)
            } else {
                shown.append(entry)
            }
        }
        buttons = shown.map { entry in
            let web = webLogins.contains(entry) || (entry == .apple && !platform.hasNativeAppleLogin)
            return Button(entry: entry, title: entry.buttonTitle, webFlow: web)
        }
        self.notShown = notShown
        opensPlatformLoginDirectly = list.isEmpty
        flow = [
            "auto-login with the last session",
            list.isEmpty ? "when it fails: the platform login, directly" : "when it fails: the login panel",
        ]
    }
}
