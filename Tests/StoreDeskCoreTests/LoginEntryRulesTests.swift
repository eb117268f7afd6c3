import Testing

@testable import StoreDeskCore

/// The rule table: every rule alone, then combined, on the platforms where it differs.
@Suite struct LoginEntryRulesTests {
    static let iOS17 = LoginPlatform(system: .ios, majorVersion: 17)
    static let iOS12 = LoginPlatform(system: .ios, majorVersion: 12)
    static let android = LoginPlatform(system: .android)

    struct Row: Sendable, CustomTestStringConvertible {
        var entries: [LoginEntry]?
        var platform: LoginPlatform
        var codes: [String]
        var valid: Bool
        var testDescription: String { "\(entries.map { $0.map(\.alias).joined(separator: ",") } ?? "unconfigured") on \(platform)" }
    }

    static let table: [Row] = [
        // Each rule alone.
        Row(entries: [.apple, .weChat, .qq, .guest], platform: iOS17, codes: [], valid: true),
        Row(entries: [.apple, .weChat, .qq, .guest, .platform, .tapTap], platform: iOS17, codes: ["too_many_entries", "taptap_with_xd"], valid: false),
        Row(entries: [.apple, .weChat, .qq, .guest, .guest, .platform], platform: iOS17, codes: ["too_many_entries", "duplicate_entry"], valid: false),
        Row(entries: [.apple, .tapTap, .platform], platform: iOS17, codes: ["taptap_with_xd"], valid: false),
        Row(entries: [.weChat, .qq, .guest], platform: iOS17, codes: ["apple_required"], valid: false),
        Row(entries: [.guest, .platform], platform: iOS17, codes: [], valid: true),
        Row(entries: [.weChat, .qq, .apple], platform: iOS17, codes: ["apple_near_top"], valid: true),
        Row(entries: [.weChat, .apple, .qq], platform: iOS17, codes: [], valid: true),
        Row(entries: [.apple, .weChat], platform: iOS12, codes: ["apple_web_flow"], valid: true),
        Row(entries: [.apple, .weChat], platform: android, codes: ["apple_web_flow"], valid: true),
        Row(entries: [.weChat, .qq], platform: iOS12, codes: [], valid: true),
        Row(entries: [.weChat, .qq], platform: android, codes: [], valid: true),
        Row(entries: [], platform: iOS17, codes: ["empty_list"], valid: true),
        Row(entries: nil, platform: iOS17, codes: ["sdk_default", "apple_near_top"], valid: true),
        Row(entries: nil, platform: android, codes: ["sdk_default", "apple_web_flow"], valid: true),
        // Combined.
        Row(entries: [.weChat, .tapTap, .platform], platform: iOS17, codes: ["taptap_with_xd", "apple_required"], valid: false),
        Row(entries: [.weChat, .tapTap, .platform], platform: android, codes: ["taptap_with_xd"], valid: false),
        Row(
            entries: [.weChat, .qq, .tapTap, .guest, .platform, .weChat], platform: iOS17,
            codes: ["too_many_entries", "duplicate_entry", "taptap_with_xd", "apple_required"], valid: false),
        Row(entries: [.qq, .weChat, .guest, .tapTap, .apple, .apple], platform: iOS12, codes: ["too_many_entries", "duplicate_entry", "apple_web_flow"], valid: false),
    ]

    @Test(arguments: table)
    func rule(_ row: Row) {
        let verdicts = LoginEntryRules.evaluate(row.entries, on: row.platform)
        #expect(verdicts.map(\.code) == row.codes)
        #expect(LoginEntryRules.isValid(verdicts) == row.valid)
    }

    @Test func everyRuleHasAStableCodeAndASentenceAndIsReachedByTheTable() {
        let codes = LoginEntryRules.all.map(\.code)
        #expect(Set(codes).count == codes.count)
        let reached = Set(Self.table.flatMap(\.codes))
        #expect(Set(codes) == reached)
        #expect(LoginEntryRules.all.allSatisfy { $0.sentence.hasSuffix(".") })
    }

    @Test func hardRulesAreErrorsAndAdviceIsAWarning() {
        let errors = LoginEntryRules.all.filter { $0.severity == .error }.map(\.code)
        #expect(errors == ["too_many_entries", "duplicate_entry", "taptap_with_xd", "apple_required"])
        #expect(LoginEntryRules.rule("apple_near_top")?.severity == .warning)
        #expect(LoginEntryRules.rule("apple_web_flow")?.severity == .warning)
    }

    @Test func aMessageNamesWhatTriggeredTheRule() {
        let verdicts = LoginEntryRules.evaluate([.weChat, .qq], on: Self.iOS17)
        #expect(verdicts.first?.message.contains("WX_LOGIN, QQ_LOGIN shown on iOS 17 without APPLE_LOGIN") == true)
    }

    @Test func entryListsAcceptSDKNamesAndAliases() throws {
        #expect(try LoginEntry.list("APPLE_LOGIN, wechat,qq,TapTap,guest,xd") == [.apple, .weChat, .qq, .tapTap, .guest, .platform])
        #expect(try LoginEntry.list("") == [])
        #expect(throws: LoginEntryListError(word: "facebook")) { try LoginEntry.list("apple,facebook") }
    }

    @Test func platformsParseAndRefuseBadValues() throws {
        #expect(try LoginPlatform(system: "iOS", version: "12.4") == Self.iOS12)
        #expect(try LoginPlatform(system: "android", version: nil).hasNativeAppleLogin == false)
        #expect(throws: LoginPlatformError.system("windows")) { try LoginPlatform(system: "windows", version: nil) }
        #expect(throws: LoginPlatformError.version("x")) { try LoginPlatform(system: "ios", version: "x") }
    }
}

@Suite struct LoginPanelTests {
    @Test func thePanelShowsTheListInOrderAndMarksWebFlows() {
        let panel = LoginPanel(entries: [.apple, .weChat, .guest], platform: LoginPlatform(system: .android))
        #expect(panel.buttons.map(\.entry) == [.apple, .weChat, .guest])
        #expect(panel.buttons.map(\.webFlow) == [true, false, false])
        #expect(panel.flow == ["auto-login with the last session", "when it fails: the login panel"])
    }

    @Test func atMostFiveButtonsAreShownEachOnce() {
        let panel = LoginPanel(entries: [.apple, .weChat, .weChat, .qq, .guest, .tapTap, .platform], platform: .iPhone)
        #expect(panel.buttons.map(\.entry) == [.apple, .weChat, .qq, .guest, .tapTap])
        #expect(panel.notShown == [.weChat, .platform])
    }

    @Test func anEmptyListShowsThePlatformLoginDirectly() {
        let panel = LoginPanel(entries: [], platform: .iPhone)
        #expect(panel.buttons.isEmpty)
        #expect(panel.opensPlatformLoginDirectly)
        #expect(panel.flow.last == "when it fails: the platform login, directly")
    }

    @Test func unconfiguredMeansTheSDKDefault() {
        #expect(LoginPanel(entries: nil, platform: .iPhone).buttons.map(\.entry) == [.weChat, .qq, .guest, .apple, .tapTap])
    }

    @Test func legacySwitchesBecomeTheirEffectOnTheList() throws {
        let effect = try LegacyLoginSwitches(list: "hide-guest,hide-taptap,qq-web,show-verycd").effect
        #expect(effect.entries == [.weChat, .qq, .apple])
        #expect(effect.webLogins == [.qq])
        #expect(effect.notes.contains { $0.contains("VeryCD") })
        let hidden = LegacyLoginSwitches([.hideWeChat, .weChatWeb]).effect
        #expect(!hidden.entries.contains(.weChat))
        #expect(hidden.webLogins.isEmpty)
        #expect(throws: LegacySwitchError(word: "hide-apple")) { try LegacyLoginSwitches(list: "hide-apple") }
        let panel = LoginPanel(entries: effect.entries, platform: .iPhone, webLogins: effect.webLogins)
        #expect(panel.buttons.filter(\.webFlow).map(\.entry) == [.qq])
    }
}

@Suite struct IntegrationChecklistTests {
    static let configuration = LoginEntryConfiguration(
        appId: "1001", entries: [.apple, .weChat, .qq, .tapTap], updatedAt: Instant(millis: 0), updatedBy: "t",
        weChatAppId: "wx5f3a", qqAppId: "1105", tapTapClientId: "ab12", universalLinkDomain: "game.example.com")

    @Test func urlTypesFollowTheEntries() {
        let list = IntegrationChecklist(appId: "1001", entries: [.apple, .weChat, .qq, .tapTap], configuration: Self.configuration)
        #expect(list.items(.urlTypes).map(\.value) == ["XD-1001", "wx5f3a", "tencent1105", "ttab12"])
        #expect(list.items(.queriesSchemes).map(\.value).contains("weixinULAPI"))
        #expect(list.items(.queriesSchemes).map(\.value).contains("mqqopensdkapiV2"))
        #expect(list.items(.queriesSchemes).map(\.value).contains("tapsdk"))
        #expect(list.items(.capabilities).map(\.value) == ["Sign in with Apple", "Associated Domains (applinks:game.example.com)"])
        #expect(list.items.allSatisfy { !$0.missing })
    }

    @Test func guestAndPlatformNeedOnlyTheirOwnURLType() {
        let list = IntegrationChecklist(appId: "1003", entries: [.guest, .platform], configuration: nil)
        #expect(list.items.map(\.value) == ["XD-1003"])
    }

    @Test func aMissingAppIdIsAPlaceholderMarkedMissing() {
        let list = IntegrationChecklist(appId: "1002", entries: [.qq], configuration: nil)
        #expect(list.items(.urlTypes).last?.value == "tencent<QQ AppID>")
        #expect(list.items(.urlTypes).last?.missing == true)
        #expect(list.items(.capabilities).isEmpty)
    }
}
