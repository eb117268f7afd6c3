/// What the iOS project needs for a login list: URL types, `LSApplicationQueriesSchemes` and
/// capabilities. The Login screen and `login entries show` list it so a developer can tick it off
/// before release.
///
/// Choices: `XD-{AppID}` is always needed (the platform's own callback); Sign in with Apple is needed
/// whenever Apple is shown on iOS (even when older devices use the web flow, newer ones sign in
/// natively); Associated Domains whenever WeChat is shown (the WeChat SDK calls back on a universal
/// link). An AppID the configuration lacks is written as a placeholder and marked missing.
///
///     let list = IntegrationChecklist(appId: "1001", entries: [.apple, .weChat], configuration: config)
///     list.items(.urlTypes).map(\.value)   // ["XD-1001", "wx5f3…"]
public struct IntegrationChecklist: Hashable, Sendable {
    public enum Section: String, Hashable, Sendable, CaseIterable {
        case urlTypes = "URL types"
        case queriesSchemes = "LSApplicationQueriesSchemes"
        case capabilities = "Capabilities"
    }

    public struct Item: Hashable, Sendable {
        public var section: Section
        public var value: String
        /// Which entry needs it.
        public var reason: String
        /// The value is a placeholder: the configuration lacks the AppID it needs.
        public var missing: Bool
    }

    public var items: [Item]

    public static let weChatSchemes = ["weixin", "weixinULAPI", "weixinURLParamsAPI"]
    public static let qqSchemes = [
        "mqqapi", "mqq", "mqqopensdkapiV2", "mqqopensdkapiV3", "mqqopensdkapiV4", "mqqwpa", "mqzone", "tim",
        "tencentapi",
    ]
    public static let tapTapSchemes = ["tapsdk", "tapiosdk", "taptap"]

    /// - Parameter entries: the list the game shows (configured or the SDK's default).
    public init(appId: String, entries: [LoginEntry], configuration: LoginEntryConfiguration?) {
        var items: [Item] = []
        func add(_ section: Section, _ value: String, _ reason: String, missing: Bool = false) {
            items.append(Item(section: section, value: value, reason: reason, missing: missing))
        }
        func id(_ value: String?) -> String? { value.flatMap { $0.isEmpty ? nil : $0 } }
        add(.urlTypes, "XD-\(appId)", "the platform's own login callback")
        if entries.contains(.weChat) {
            let value = id(configuration?.weChatAppId)
            add(.urlTypes, value ?? "<WeChat AppID>", "WeChat login", missing: value == nil)
        }
        if entries.contains(.qq) {
            let value = id(configuration?.qqAppId)
            add(.urlTypes, "tencent" + (value ?? "<QQ AppID>"), "QQ login", missing: value == nil)
        }
        if entries.contains(.tapTap) {
            let value = id(configuration?.tapTapClientId)
            add(.urlTypes, "tt" + (value ?? "<TapTap AppID>"), "TapTap login", missing: value == nil)
        }
        if entries.contains(.weChat) { Self.weChatSchemes.forEach { add(.queriesSchemes, $0, "WeChat login") } }
        if entries.contains(.qq) { Self.qqSchemes.forEach { add(.queriesSchemes, $0, "QQ login") } }
        if entries.contains(.tapTap) { Self.tapTapSchemes.forEach { add(.queriesSchemes, $0, "TapTap login") } }
        if entries.contains(.apple) { add(.capabilities, "Sign in with Apple", "Apple login on iOS 13 and later") }
        if entries.contains(.weChat) {
            let domain = id(configuration?.universalLinkDomain)
            add(
                .capabilities, "Associated Domains (applinks:\(domain ?? "<universal-link domain>"))",
                "WeChat calls back on a universal link", missing: domain == nil)
        }
        self.items = items
    }

    /// The items of one section, in order.
    public func items(_ section: Section) -> [Item] { items.filter { $0.section == section } }
}
