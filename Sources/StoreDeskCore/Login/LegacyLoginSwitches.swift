/// The SDK's older login switches, before setLoginEntries: each hid or changed one button of the default
/// panel. The console shows them as their effect on the list, so a game that still sets them can be
/// moved to an explicit list.
///
///     let old = LegacyLoginSwitches([.hideGuest, .qqWeb])
///     old.effect.entries      // [.weChat, .qq, .apple, .tapTap]
///     old.effect.webLogins    // [.qq]
public struct LegacyLoginSwitches: Hashable, Sendable {
    public enum Switch: String, Hashable, Sendable, CaseIterable {
        case hideGuest = "hide-guest"
        case hideWeChat = "hide-wechat"
        case hideQQ = "hide-qq"
        case hideTapTap = "hide-taptap"
        case showVeryCD = "show-verycd"
        case qqWeb = "qq-web"
        case weChatWeb = "wechat-web"

        /// The entry the switch hides, if it hides one.
        var hides: LoginEntry? {
            switch self {
            case .hideGuest: .guest
            case .hideWeChat: .weChat
            case .hideQQ: .qq
            case .hideTapTap: .tapTap
            case .showVeryCD, .qqWeb, .weChatWeb: nil
            }
        }
    }

    /// What the switches amount to: the list setLoginEntries would need, the buttons that log in through
    /// a web page, and what cannot be carried over.
    public struct Effect: Hashable, Sendable {
        public var entries: [LoginEntry]
        public var webLogins: Set<LoginEntry>
        public var notes: [String]
    }

    public var on: Set<Switch>

    public init(_ on: Set<Switch>) { self.on = on }

    /// Parses `hide-guest,qq-web`; an empty string is no switch.
    public init(list text: String) throws(LegacySwitchError) {
        var on: Set<Switch> = []
        for word in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces).lowercased() }) where !word.isEmpty {
            guard let value = Switch(rawValue: word) else { throw LegacySwitchError(word: word) }
            on.insert(value)
        }
        self.on = on
    }

    public var effect: Effect {
        let hidden = Set(on.compactMap(\.hides))
        let entries = LoginEntry.sdkDefault.filter { !hidden.contains($0) }
        var web: Set<LoginEntry> = []
        var notes: [String] = []
        if on.contains(.qqWeb) {
            if entries.contains(.qq) { web.insert(.qq) } else { notes.append("qq-web has no effect: QQ is hidden") }
        }
        if on.contains(.weChatWeb) {
            if entries.contains(.weChat) { web.insert(.weChat) } else { notes.append("wechat-web has no effect: WeChat is hidden") }
        }
        if on.contains(.showVeryCD) {
            notes.append("show-verycd: setLoginEntries has no VeryCD entry, so VeryCD login is no longer shown")
        }
        return Effect(entries: entries, webLogins: web, notes: notes)
    }
}

/// A word that names no legacy switch.
public struct LegacySwitchError: Error, Hashable, Sendable, CustomStringConvertible {
    public var word: String
    public var description: String {
        "'\(word)' is not a legacy login switch: use " + LegacyLoginSwitches.Switch.allCases.map(\.rawValue).joined(separator: ", ")
    }
}
