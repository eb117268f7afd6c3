/// The SDK's rules for a login-entry list, each with a stable code and a sentence, evaluated for a
/// platform: what `storedesk login entries check` and the Login screen report.
///
/// Errors make `check` fail (the SDK or App Review would refuse the build); warnings are advice that
/// still ships; notes explain what the list does.
///
///     let verdicts = LoginEntryRules.evaluate([.weChat, .qq], on: .iPhone)
///     verdicts.map(\.code)   // ["apple_required"]
public enum LoginEntryRules {
    /// At most this many buttons are shown.
    public static let maximumShown = 5
    /// Apple "near the top": within the first two buttons.
    public static let appleTopPlaces = 2

    /// Every rule, in the order a report lists them.
    public static let all: [LoginRule] = [
        LoginRule(
            code: "too_many_entries", severity: .error,
            sentence: "At most 5 login entries are shown."),
        LoginRule(
            code: "duplicate_entry", severity: .error,
            sentence: "Each login entry appears once."),
        LoginRule(
            code: "taptap_with_xd", severity: .error,
            sentence: "TAPTAP_LOGIN and XD_LOGIN are never shown together."),
        LoginRule(
            code: "apple_required", severity: .error,
            sentence: "On iOS 13 and later, showing any third-party login (WeChat, QQ, TapTap) requires APPLE_LOGIN."),
        LoginRule(
            code: "apple_near_top", severity: .warning,
            sentence: "On iOS 13 and later, APPLE_LOGIN should stand near the top (first or second)."),
        LoginRule(
            code: "apple_web_flow", severity: .warning,
            sentence: "On iOS 12 and earlier and on Android, Apple login is a web flow that works only once the iOS app is live on the App Store."),
        LoginRule(
            code: "empty_list", severity: .note,
            sentence: "An empty list hides every button and shows the platform login directly."),
        LoginRule(
            code: "sdk_default", severity: .note,
            sentence: "With no configuration the SDK shows its default: WeChat, QQ, guest, Apple, TapTap."),
    ]

    public static func rule(_ code: String) -> LoginRule? { all.first { $0.code == code } }

    /// What the rules say about a list on a platform; nil entries means never configured (the SDK's
    /// default is checked, with a note saying so).
    public static func evaluate(_ entries: [LoginEntry]?, on platform: LoginPlatform) -> [LoginVerdict] {
        var verdicts: [LoginVerdict] = []
        func add(_ code: String, _ detail: String) {
            guard let rule = rule(code) else { return }
            verdicts.append(LoginVerdict(rule: rule, detail: detail))
        }
        if entries == nil { add("sdk_default", "never configured, so the SDK's default list applies") }
        let list = entries ?? LoginEntry.sdkDefault
        if list.isEmpty { add("empty_list", "no buttons: the platform login opens directly") }
        if list.count > maximumShown { add("too_many_entries", "\(list.count) entries are configured") }
        let repeated = LoginEntry.allCases.filter { entry in list.filter { $0 == entry }.count > 1 }
        if !repeated.isEmpty { add("duplicate_entry", repeated.map(\.rawValue).joined(separator: ", ") + " appears more than once") }
        if list.contains(.tapTap) && list.contains(.platform) { add("taptap_with_xd", "both are in the list") }
        let thirdParty = list.filter(\.isThirdParty)
        if platform.hasNativeAppleLogin {
            if !thirdParty.isEmpty && !list.contains(.apple) {
                add("apple_required", "\(uniqued(thirdParty).map(\.rawValue).joined(separator: ", ")) shown on \(platform) without APPLE_LOGIN")
            }
            if let place = list.firstIndex(of: .apple), place >= appleTopPlaces {
                add("apple_near_top", "APPLE_LOGIN is button \(place + 1) of \(list.count)")
            }
        } else if list.contains(.apple) {
            add("apple_web_flow", "APPLE_LOGIN on \(platform) opens Apple's web sign-in")
        }
        return verdicts
    }

    /// The errors a list has on every platform (more than 5, a repeat, TapTap with XD): such a list is
    /// never saved. `apple_required` is not among them: it binds iOS builds only, and `check` reports it.
    public static func violationsOnEveryPlatform(_ entries: [LoginEntry]?) -> [LoginVerdict] {
        evaluate(entries, on: LoginPlatform(system: .android)).filter { $0.rule.severity == .error }
    }

    /// Whether `check` passes: no error among the verdicts.
    public static func isValid(_ verdicts: [LoginVerdict]) -> Bool { !verdicts.contains { $0.rule.severity == .error } }

    private static func uniqued(_ entries: [LoginEntry]) -> [LoginEntry] {
        entries.reduce(into: []) { if !$0.contains($1) { $0.append($1) } }
    }
}

/// One rule of `LoginEntryRules`: a stable code for scripts, a severity, the rule in a sentence.
public struct LoginRule: Hashable, Sendable {
    public enum Severity: String, Hashable, Sendable, Comparable {
        /// `check` fails.
        case error
        /// Reported; `check` still passes.
        case warning
        /// Says what the list does.
        case note

        private var rank: Int { self == .error ? 0 : self == .warning ? 1 : 2 }
        public static func < (a: Severity, b: Severity) -> Bool { a.rank < b.rank }
    }

    public var code: String
    public var severity: Severity
    public var sentence: String
}

/// A rule that applies to one list: the rule, and what in the list triggered it.
public struct LoginVerdict: Hashable, Sendable {
    public var rule: LoginRule
    public var detail: String

    public var code: String { rule.code }
    /// The rule's sentence and the detail: what `check` prints and its JSON's `message`.
    public var message: String { "\(rule.sentence) (\(detail))" }
}
