/// The device a login panel is shown on: what decides whether Apple login is native or a web flow and
/// whether Sign in with Apple is mandatory.
///
///     let phone = try LoginPlatform(system: "ios", version: "16.4")
///     phone.hasNativeAppleLogin   // true
public struct LoginPlatform: Hashable, Sendable, CustomStringConvertible {
    public enum System: String, Hashable, Sendable, CaseIterable {
        case ios, android
    }

    public var system: System
    /// The OS's major version (iOS 13 is where native Sign in with Apple starts); nil on Android,
    /// where it does not matter.
    public var majorVersion: Int?

    public init(system: System, majorVersion: Int? = nil) {
        self.system = system
        self.majorVersion = system == .ios ? (majorVersion ?? Self.currentIOS) : majorVersion
    }

    /// Parses `ios` / `android` and a version like `17`, `12.4`.
    ///
    /// - Throws: `LoginPlatformError` naming the value that is neither.
    public init(system: String, version: String?) throws(LoginPlatformError) {
        guard let parsed = System(rawValue: system.lowercased()) else { throw .system(system) }
        var major: Int?
        if let version, !version.isEmpty {
            guard let first = version.split(separator: ".").first, let value = Int(first), value > 0 else {
                throw .version(version)
            }
            major = value
        }
        self.init(system: parsed, majorVersion: major)
    }

    /// The iOS version a preview assumes when none is given.
    public static let currentIOS = 17
    public static let iPhone = LoginPlatform(system: .ios)

    /// iOS 13 and later sign in with Apple natively (and App Review then requires it beside any
    /// third-party login); earlier iOS and Android go through Apple's web flow.
    public var hasNativeAppleLogin: Bool { system == .ios && (majorVersion ?? Self.currentIOS) >= 13 }

    /// `iOS 17`, `Android`.
    public var description: String {
        switch system {
        case .ios: "iOS \(majorVersion ?? Self.currentIOS)"
        case .android: majorVersion.map { "Android \($0)" } ?? "Android"
        }
    }
}

/// A platform or OS version that cannot be read, said in one line.
public enum LoginPlatformError: Error, Hashable, Sendable, CustomStringConvertible {
    case system(String)
    case version(String)

    public var description: String {
        switch self {
        case .system(let value): "--platform must be ios or android, got '\(value)'"
        case .version(let value): "--os-version must be a version like 17 or 12.4, got '\(value)'"
        }
    }
}
