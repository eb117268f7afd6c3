import Foundation
import StoreDeskCore
import Testing
@testable import StoreDeskSQLite
@testable import StoreDeskUI

/// The Login and One-tap screens over a fresh demo store: editing validated as you type, saving with
/// history, roles and read-only, the simulator driven by keys, and their golden frames.
@Suite struct LoginScreensTests {
    func login(_ console: ConsoleHarness) -> LoginScreen { console.state.screenState(LoginScreen.self) }
    func oneTap(_ console: ConsoleHarness) -> OneTapScreen { console.state.screenState(OneTapScreen.self) }

    @Test(arguments: [Size(width: 80, height: 24), Size(width: 120, height: 40)])
    func loginScreenShowsThePreviewAndTheChecklist(size: Size) throws {
        let console = try ConsoleHarness(size: size)
        console.show("login")
        #expect(console.text.contains("[ Sign in with Apple"))
        #expect(console.text.contains("XD-1001"))
        try Golden.check(console.frame, named: "login-\(size)")
    }

    /// The violating demo app at 120x40: both violations with their codes.
    @Test func aViolatingAppShowsEachRuleWithItsCode() throws {
        let console = try ConsoleHarness(size: Size(width: 120, height: 40))
        console.show("login")
        console.show("select 1003")
        #expect(console.text.contains("✗ taptap_with_xd"))
        #expect(console.text.contains("✗ apple_required"))
        #expect(console.text.contains("(missing)"))
        try Golden.check(console.frame, named: "login-violations-120x40")
    }

    @Test func typingAListChecksItAtEveryKeystroke() throws {
        let console = try ConsoleHarness(size: Size(width: 120, height: 40), role: .developer)
        console.show("login")
        console.show("select 1002")
        #expect(console.text.contains("sdk_default"))
        console.press(.character("e"))
        #expect(login(console).editing == "wechat,qq,guest,apple,taptap")
        console.press(.ctrl("u"))
        console.type("wechat,q")
        #expect(console.text.contains("'q' is not a login entry"))
        // Mid-word the preview does not go blank: it shows the entries up to the last whole one.
        #expect(console.text.contains("while typing: the entries up to the last whole one"))
        #expect(console.text.contains("[ WeChat 微信登录"))
        #expect(!console.text.contains("[ QQ 登录"))
        console.type("q")
        #expect(console.text.contains("✗ apple_required"))
        console.type(",apple")
        #expect(!console.text.contains("✗ apple_required"))
        #expect(console.text.contains("! apple_near_top"))
        console.press(.enter)
        #expect(login(console).draft == [.weChat, .qq, .apple])
        #expect(console.text.contains("unsaved"))
        // Move Apple to the top, then save.
        console.press(.character("K"), .character("K"))
        #expect(login(console).draft == [.apple, .weChat, .qq])
        console.press(.character("w"))
        #expect(try console.database.loginEntrySetup(appId: "1002").entries == [.apple, .weChat, .qq])
        #expect(console.text.contains("tester (developer, console)"))
        #expect(console.text.contains("(SDK default) → APPLE_LOGIN,WX_LOGIN,QQ_LOGIN"))
    }

    @Test func addRemoveAndAViolatingListIsNotSaved() throws {
        let console = try ConsoleHarness(size: Size(width: 120, height: 40), role: .developer)
        console.show("login")
        console.press(.character("+"))
        console.type("taptap,xd")
        console.press(.enter)
        #expect(login(console).draft == [.apple, .weChat, .qq, .guest, .tapTap, .platform])
        #expect(console.text.contains("✗ too_many_entries"))
        console.press(.character("w"))
        #expect(console.state.status?.text.contains("not saved") == true)
        #expect(try console.database.loginEntrySetup(appId: "1001").entries == [.apple, .weChat, .qq, .guest])
        console.press(.character("x"))
        console.press(.character("x"))
        #expect(login(console).draft == [.apple, .weChat, .qq, .guest])
        console.press(.character("D"))
        #expect(login(console).draft == nil)
        console.press(.character("u"))
        #expect(login(console).draft == [.apple, .weChat, .qq, .guest])
    }

    @Test func legacySwitchesBecomeADraftWithTheirWebMarks() throws {
        let console = try ConsoleHarness(size: Size(width: 120, height: 40), role: .developer)
        console.show("login")
        console.show("legacy hide-guest,hide-taptap,qq-web,show-verycd")
        #expect(login(console).draft == [.weChat, .qq, .apple])
        #expect(console.text.contains("[ QQ 登录"))
        #expect(console.text.contains("web"))
        #expect(console.text.contains("VeryCD"))
        console.press(.character("J"))
        #expect(login(console).draft == [.qq, .weChat, .apple])
        #expect(login(console).legacy == nil)
    }

    @Test func thePlatformChangesTheVerdictsAndTheWebMarks() throws {
        let console = try ConsoleHarness(size: Size(width: 120, height: 40))
        console.show("login")
        console.press(.character("o"))
        #expect(console.text.contains("Preview · iOS 12"))
        #expect(console.text.contains("! apple_web_flow"))
        #expect(console.text.contains(" web "))
        console.press(.character("o"))
        #expect(console.text.contains("Preview · Android"))
    }

    @Test(arguments: [StaffRole.operator, .support])
    func onlyADeveloperEdits(role: StaffRole) throws {
        let console = try ConsoleHarness(size: Size(width: 120, height: 40), role: role)
        console.show("login")
        console.press(.character("x"))
        #expect(console.state.status?.text == "remove: only a developer may edit the login configuration")
        #expect(login(console).draft == [.apple, .weChat, .qq, .guest])
        console.press(.character("?"))
        #expect(console.text.contains("only a developer may edit the login configuration"))
    }

    @Test func readOnlyHasNoEditKeys() throws {
        let console = try ConsoleHarness(size: Size(width: 120, height: 40), role: .developer, readOnly: true)
        console.show("login")
        console.press(.character("x"), .character("w"))
        #expect(login(console).draft == [.apple, .weChat, .qq, .guest])
        #expect(!console.text.contains("x remove"))
    }

    @Test func oneTapStepsWithKeysShowEveryCodeAndItsMeaning() throws {
        let console = try ConsoleHarness(size: Size(width: 120, height: 40), role: .developer)
        console.show("onetap")
        console.press(.character("f"))
        #expect(oneTap(console).log.first?.result.code == "200026")
        console.press(.character("r"), .enter)
        console.type("8F3A9C2E7B1D4F6A0C5E9B3D7F2A8C41")
        console.press(.enter, .character("f"))
        #expect(oneTap(console).log.first?.maskedNumber == "138****0000")
        console.press(.character("l"), .enter)
        let token = try #require(oneTap(console).log.first?.token)
        #expect(console.text.contains("《中国移动认证服务条款》"))
        console.show("advance 121")
        console.press(.character("e"), .enter)
        #expect(oneTap(console).log.first?.result.code == "104201")
        #expect(console.text.contains("The token is expired"))
        #expect(try console.database.oneTapLogin().tokens.map(\.value) == [token])
        console.press(.character("n"))
        console.press(.character("f"))
        #expect(oneTap(console).log.first?.result.code == "102103")
        #expect(!console.text.contains("8F3A9C2E7B1D4F6A0C5E9B3D7F2A8C41"))
        #expect(console.text.contains("8F3A****41"))
        try Golden.check(console.frame, named: "onetap-120x40")
    }

    @Test func theNumberAndClosingThePageAreKeysToo() throws {
        let console = try ConsoleHarness(size: Size(width: 120, height: 40), role: .developer)
        console.show("onetap")
        console.press(.character("r"), .enter)
        console.type("8F3A9C2E7B1D4F6A0C5E9B3D7F2A8C41")
        console.press(.enter, .character("x"))
        #expect(oneTap(console).log.first?.result.code == "200020")
        console.press(.character("p"))
        console.type("18600001234")
        console.press(.enter)
        #expect(console.state.status?.text == "number: 186****1234")
        console.press(.character("c"), .character("c"), .character("c"))
        console.press(.character("l"), .enter)
        #expect(oneTap(console).log.first?.terms == "《联通统一认证服务条款》")
        #expect(!console.text.contains("18600001234"))
    }

    @Test func oneTapAt80x24() throws {
        let console = try ConsoleHarness(size: Size(width: 80, height: 24), role: .developer)
        console.show("onetap")
        console.press(.character("r"), .enter)
        console.type("8F3A9C2E7B1D4F6A0C5E9B3D7F2A8C41")
        console.press(.enter, .character("f"))
        try Golden.check(console.frame, named: "onetap-80x24")
    }

    @Test func oneTapIsForDevelopers() throws {
        let console = try ConsoleHarness(size: Size(width: 120, height: 40))
        console.show("onetap")
        console.press(.character("f"))
        #expect(console.state.status?.text == "prefetch: only a developer may drive the one-tap login simulator")
        #expect(oneTap(console).log.isEmpty)
    }

    @Test func theCodesScreenListsTheCarriersCodesFromTheSameTable() {
        let rows = CodesScreen.all.filter { $0.source == "one-click login" }
        #expect(rows.map(\.code) == OneTapResultCode.table.map(\.code))
    }
}
