/// Everything one list implies on one platform: the rule verdicts, the login panel and the integration
/// checklist. `login entries show|check` print it and the Login screen draws it, so both say the same.
///
///     let report = LoginEntryReport(appId: "1003", configuration: saved, platform: .iPhone)
///     report.isValid          // false: TapTap beside XD
public struct LoginEntryReport: Hashable, Sendable {
    public var appId: String
    /// The list checked; nil means never configured (the SDK's default is shown).
    public var entries: [LoginEntry]?
    public var platform: LoginPlatform
    public var verdicts: [LoginVerdict]
    public var panel: LoginPanel
    public var checklist: IntegrationChecklist
    /// What legacy switches could not carry over, when the list came from them.
    public var legacyNotes: [String]

    /// - Parameters:
    ///   - configuration: the saved row (its list, and the AppIDs the checklist writes).
    ///   - entries: a list to check instead of the saved one (`check --entries`).
    ///   - legacy: old switches to turn into a list instead (`check --legacy`).
    public init(
        appId: String, configuration: LoginEntryConfiguration?, entries: [LoginEntry]?? = nil, legacy: LegacyLoginSwitches? = nil,
        platform: LoginPlatform
    ) {
        var list: [LoginEntry]? = configuration?.entries
        var web: Set<LoginEntry> = []
        var notes: [String] = []
        if let legacy {
            let effect = legacy.effect
            list = effect.entries
            web = effect.webLogins
            notes = effect.notes
        }
        if let entries { list = entries }
        self.appId = appId
        self.entries = list
        self.platform = platform
        verdicts = LoginEntryRules.evaluate(list, on: platform)
        panel = LoginPanel(entries: list, platform: platform, webLogins: web)
        checklist = IntegrationChecklist(appId: appId, entries: panel.buttons.map(\.entry), configuration: configuration)
        legacyNotes = notes
    }

    public var isValid: Bool { LoginEntryRules.isValid(verdicts) }

    public func verdicts(_ severity: LoginRule.Severity) -> [LoginVerdict] { verdicts.filter { $0.rule.severity == severity } }
}
