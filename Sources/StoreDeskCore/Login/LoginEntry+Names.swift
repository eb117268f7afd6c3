/// How people name the login entries: the SDK's constants, short aliases for the command line, and the
/// words a login button shows.
extension LoginEntry {
    /// `apple`, `wechat`, ...: what `--entries apple,wechat` accepts besides the SDK names.
    public var alias: String {
        switch self {
        case .apple: "apple"
        case .weChat: "wechat"
        case .tapTap: "taptap"
        case .qq: "qq"
        case .guest: "guest"
        case .platform: "xd"
        }
    }

    /// The button's caption on the login panel.
    public var buttonTitle: String {
        switch self {
        case .apple: "Sign in with Apple"
        case .weChat: "WeChat 微信登录"
        case .tapTap: "TapTap 登录"
        case .qq: "QQ 登录"
        case .guest: "Guest 游客登录"
        case .platform: "XD account 账号登录"
        }
    }

    /// A third-party login in Apple's sense (App Review 4.8): one that makes Sign in with Apple
    /// mandatory. Guest play and the platform's own account do not count.
    public var isThirdParty: Bool { [.weChat, .qq, .tapTap].contains(self) }

    /// One entry by SDK name (`APPLE_LOGIN`) or alias (`apple`, `wx` too), case-insensitively.
    public init?(name: String) {
        let key = name.trimmingCharacters(in: .whitespaces).lowercased()
        let extra: [String: LoginEntry] = ["wx": .weChat, "weixin": .weChat, "tap": .tapTap, "platform": .platform]
        guard let entry = LoginEntry.allCases.first(where: { $0.rawValue.lowercased() == key || $0.alias == key }) ?? extra[key]
        else { return nil }
        self = entry
    }

    /// A comma-separated list (`apple,wechat,QQ_LOGIN`); an empty string is the empty list.
    ///
    /// - Throws: `LoginEntryListError` naming the first word that is no entry.
    public static func list(_ text: String) throws(LoginEntryListError) -> [LoginEntry] {
        let words = text.split(separator: ",", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        if words.allSatisfy(\.isEmpty) { return [] }
        return try words.map { word throws(LoginEntryListError) in
            guard let entry = LoginEntry(name: word) else { throw LoginEntryListError(word: word) }
            return entry
        }
    }
}

/// A word in an entry list that names no login entry.
public struct LoginEntryListError: Error, Hashable, Sendable, CustomStringConvertible {
    public var word: String
    public var description: String {
        let known = LoginEntry.allCases.map { "\($0.rawValue) (\($0.alias))" }.joined(separator: ", ")
        return "'\(word)' is not a login entry: use \(known)"
    }
}
