/// What a developer asks to set on an app (`storedesk apps add|set`): each field present only when it was
/// given, so `apps set` changes exactly those and `apps add` checks that the required ones are there.
///
/// Every value is checked by `AppSettings.parse...` before it gets here, so an `AppSettings` holds only
/// valid values. The AppKey is a secret: it is compared and stored, never described in the clear.
///
///     var settings = AppSettings()
///     settings.name = "星海征途"
///     settings.callbackURL = .some(nil)          // clears the callback URL
///     let app = settings.applied(to: existing)
public struct AppSettings: Hashable, Sendable {
    public var name: String?
    public var bundleId: String?
    public var appKey: String?
    /// `.some(nil)` clears it.
    public var appleAppId: Int64??
    public var currencyPerYuan: Int?
    public var restoreOwnership: RestoreOwnership?
    public var gracePeriodDays: Int?
    public var environments: AppEnvironments?
    /// `.some(nil)` clears it.
    public var callbackURL: String??
    /// `.some(nil)` clears it.
    public var notificationURL: String??

    public init() {}

    /// Whether nothing at all was asked.
    public var isEmpty: Bool { self == AppSettings() }

    /// The app these settings make from nothing, or why they cannot (a required one is missing).
    public func newApp(id: String) throws(AppSettingError) -> App {
        guard let name else { throw AppSettingError("apps add needs --name") }
        guard let bundleId else { throw AppSettingError("apps add needs --bundle-id") }
        guard let appKey else { throw AppSettingError("apps add needs --app-key-file FILE (or - for standard input)") }
        return applied(
            to: App(
                id: id, name: name, bundleId: bundleId, appKey: appKey, currencyPerYuan: 10, restoreOwnership: .transfer,
                gracePeriodDays: 0))
    }

    /// `app` with every given setting applied.
    public func applied(to app: App) -> App {
        var app = app
        if let name { app.name = name }
        if let bundleId { app.bundleId = bundleId }
        if let appKey { app.appKey = appKey }
        if let appleAppId { app.appleAppId = appleAppId }
        if let currencyPerYuan { app.currencyPerYuan = currencyPerYuan }
        if let restoreOwnership { app.restoreOwnership = restoreOwnership }
        if let gracePeriodDays { app.gracePeriodDays = gracePeriodDays }
        if let environments { app.environments = environments }
        if let callbackURL { app.callbackURL = callbackURL }
        if let notificationURL { app.notificationURL = notificationURL }
        return app
    }

    /// What differs between two versions of an app, one phrase each, the AppKey masked: for the audit
    /// log and the command's answer.
    ///
    ///     AppSettings.differences(old, new)   // ["name 'A' → 'B'", "app key a1b2****f6 → 9c8d****01"]
    public static func differences(_ old: App, _ new: App) -> [String] {
        var lines: [String] = []
        func note(_ label: String, _ a: String, _ b: String) { if a != b { lines.append("\(label) \(a) → \(b)") } }
        note("name", quoted(old.name), quoted(new.name))
        note("bundle id", old.bundleId, new.bundleId)
        if old.appKey != new.appKey { lines.append("app key \(old.maskedAppKey) → \(new.maskedAppKey)") }
        note("apple app id", old.appleAppId.map(String.init) ?? "none", new.appleAppId.map(String.init) ?? "none")
        note("currency per yuan", String(old.currencyPerYuan), String(new.currencyPerYuan))
        note("ownership", old.restoreOwnership.rawValue, new.restoreOwnership.rawValue)
        note("grace days", String(old.gracePeriodDays), String(new.gracePeriodDays))
        note("environment", old.environments.rawValue, new.environments.rawValue)
        note("callback url", old.callbackURL ?? "none", new.callbackURL ?? "none")
        note("notification url", old.notificationURL ?? "none", new.notificationURL ?? "none")
        return lines
    }

    /// How a new app is described in the audit log: every setting, the AppKey masked.
    public static func summary(_ app: App) -> String {
        ([
            "name \(quoted(app.name))", "bundle id \(app.bundleId)", "app key \(app.maskedAppKey)",
            "apple app id \(app.appleAppId.map(String.init) ?? "none")", "currency per yuan \(app.currencyPerYuan)",
            "ownership \(app.restoreOwnership.rawValue)", "grace days \(app.gracePeriodDays)",
            "environment \(app.environments.rawValue)", "callback url \(app.callbackURL ?? "none")",
        ] + (app.notificationURL.map { ["notification url \($0)"] } ?? [])).joined(separator: ", ")
    }

    private static func quoted(_ text: String) -> String { "'\(text)'" }
}

/// Why a value given for an app was refused: one line that names the option and the value.
public struct AppSettingError: Error, Hashable, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

// MARK: - Checking each value

extension AppSettings {
    /// The platform AppID: 1 to 64 letters, digits, `.`, `_` or `-` (the demo's are `1001`).
    public static func parseAppId(_ text: String) throws(AppSettingError) -> String {
        guard (1...64).contains(text.count), text.unicodeScalars.allSatisfy(isIdCharacter) else {
            throw AppSettingError(
                "app id '\(printable(text))' must be 1 to 64 letters, digits, '.', '_' or '-'")
        }
        return text
    }

    /// A display name: 1 to 100 characters, no control characters, not only spaces.
    public static func parseName(_ text: String) throws(AppSettingError) -> String {
        guard !text.allSatisfy(\.isWhitespace), text.count <= 100,
            !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw AppSettingError("--name '\(printable(text))' must be 1 to 100 characters with no control characters")
        }
        return text
    }

    /// Apple's rule for a bundle id: letters, digits, `-` and `.`, in at least two non-empty parts
    /// (`com.example.game`), at most 155 characters.
    public static func parseBundleId(_ text: String) throws(AppSettingError) -> String {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        let allowed = text.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == ".") }
        guard allowed, parts.count >= 2, parts.allSatisfy({ !$0.isEmpty }), text.count <= 155 else {
            throw AppSettingError(
                "--bundle-id '\(printable(text))' is not a bundle id: letters, digits and '-' in parts separated by '.', like com.example.game")
        }
        return text
    }

    /// An AppKey as a file holds it: one line (a final line break is dropped), 8 to 256 printable ASCII
    /// characters without spaces. `source` names where it came from; the key itself is never repeated.
    public static func parseAppKey(_ text: String, source: String) throws(AppSettingError) -> String {
        // By scalars: "\r\n" is one Character, so dropping characters would take a key's last one with it.
        var scalars = Substring(text).unicodeScalars
        if scalars.last == "\n" { scalars.removeLast() }
        if scalars.last == "\r" { scalars.removeLast() }
        let key = Substring(scalars)
        guard !key.isEmpty else { throw AppSettingError("\(source) holds no AppKey (it is empty)") }
        guard key.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
            throw AppSettingError("\(source): an AppKey is one line of printable ASCII without spaces")
        }
        guard (8...256).contains(key.count) else {
            throw AppSettingError("\(source): an AppKey has 8 to 256 characters, this one has \(key.count)")
        }
        return String(key)
    }

    /// The app's Apple ID (App Store Connect's numeric id); "" clears it.
    public static func parseAppleAppId(_ text: String) throws(AppSettingError) -> Int64? {
        if text.isEmpty { return nil }
        guard text.count <= 12, text.allSatisfy(\.isASCIIDigit), let value = Int64(text), value > 0 else {
            throw AppSettingError("--apple-app-id '\(printable(text))' must be App Store Connect's numeric app id (1 to 12 digits), or \"\" to clear it")
        }
        return value
    }

    /// Game currency per yuan: a whole number from 1 to 1,000,000.
    public static func parseCurrencyPerYuan(_ text: String) throws(AppSettingError) -> Int {
        guard text.count <= 7, text.allSatisfy(\.isASCIIDigit), let value = Int(text), (1...1_000_000).contains(value) else {
            throw AppSettingError("--currency-per-yuan '\(printable(text))' must be a whole number from 1 to 1000000")
        }
        return value
    }

    public static func parseOwnership(_ text: String) throws(AppSettingError) -> RestoreOwnership {
        guard let value = RestoreOwnership(rawValue: text) else {
            throw AppSettingError("--ownership '\(printable(text))' must be transfer, keep or share")
        }
        return value
    }

    /// Apple's billing grace period: 0 (off), 3, 16 or 28 days.
    public static func parseGraceDays(_ text: String) throws(AppSettingError) -> Int {
        guard let value = Int(text), [0, 3, 16, 28].contains(value), text.allSatisfy(\.isASCIIDigit) else {
            throw AppSettingError("--grace-days '\(printable(text))' must be 0, 3, 16 or 28")
        }
        return value
    }

    public static func parseEnvironments(_ text: String) throws(AppSettingError) -> AppEnvironments {
        guard let value = AppEnvironments(rawValue: text) else {
            throw AppSettingError("--environment '\(printable(text))' must be sandbox, production or both")
        }
        return value
    }

    /// The game server's callback URL: http or https, a host, no credentials, no fragment, at most 2048
    /// characters; "" clears it.
    public static func parseCallbackURL(_ text: String) throws(AppSettingError) -> String? {
        try parseURL(text, option: "--callback-url")
    }

    /// Where App Store Server Notifications go: the same rules as a callback URL; "" clears it.
    public static func parseNotificationURL(_ text: String) throws(AppSettingError) -> String? {
        try parseURL(text, option: "--notification-url")
    }

    private static func parseURL(_ text: String, option: String) throws(AppSettingError) -> String? {
        if text.isEmpty { return nil }
        let problem: String? = {
            guard text.count <= 2048 else { return "is longer than 2048 characters" }
            guard text.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
                return "has spaces or characters a URL must percent-encode"
            }
            let lower = text.lowercased()
            let scheme = lower.hasPrefix("https://") ? "https://" : lower.hasPrefix("http://") ? "http://" : nil
            guard let scheme else { return "must start with http:// or https://" }
            let rest = text.dropFirst(scheme.count)
            let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
            guard !authority.contains("@") else { return "must not carry a user name or password" }
            guard !text.contains("#") else { return "must not have a fragment (#...)" }
            guard isHostAndPort(authority) else { return "has no valid host[:port]" }
            return nil
        }()
        if let problem { throw AppSettingError("\(option) '\(printable(text))' \(problem)") }
        return text
    }

    /// Whether this is `host`, `host:port`, `[v6]` or `[v6]:port` with a port from 1 to 65535.
    private static func isHostAndPort(_ authority: Substring) -> Bool {
        var host = authority
        var port: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return false }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return false }
                port = after.dropFirst()
            }
            guard !host.isEmpty, host.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else { return false }
        } else {
            if let colon = authority.lastIndex(of: ":") {
                host = authority[..<colon]
                port = authority[authority.index(after: colon)...]
            }
            let labels = host.split(separator: ".", omittingEmptySubsequences: false)
            guard !host.isEmpty, labels.allSatisfy({ label in
                !label.isEmpty && label.count <= 63 && !label.hasPrefix("-") && !label.hasSuffix("-")
                    && label.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" }
            }) else { return false }
        }
        if let port {
            guard port.allSatisfy(\.isASCIIDigit), let number = Int(port), (1...65535).contains(number) else { return false }
        }
        return true
    }

    private static func isIdCharacter(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "._-".unicodeScalars.contains(scalar))
    }

    /// A value as an error line may repeat it: control characters escaped, at most 80 characters.
    static func printable(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            out += scalar.properties.generalCategory == .control ? scalar.escaped(asASCII: true) : String(scalar)
        }
        return out.count > 80 ? String(out.prefix(77)) + "..." : out
    }
}

extension Character {
    /// `0`-`9` only (not other scripts' digits, which `Int(_:)` would refuse anyway).
    var isASCIIDigit: Bool { isASCII && isNumber }
}
