import Testing

@testable import StoreDeskCore

/// The carrier's one-click login under a controlled clock: results, the token's lifetime, single use and
/// the rate limit.
@Suite struct OneTapLoginTests {
    static let start = Instant(millis: 1_800_000_000_000)

    static func registered() -> OneTapLogin {
        var login = OneTapLogin()
        login.register(appId: "300011862498", appKey: "8F3A9C2E7B1D4F6A0C5E9B3D7F2A8C41")
        return login
    }

    func at(_ seconds: Int64) -> Instant { Instant(millis: Self.start.millis + seconds * 1000) }

    @Test func prefetchGivesTheMaskedNumber() {
        var login = Self.registered()
        let outcome = login.prefetch(at: at(0))
        #expect(outcome.result.code == "103000")
        #expect(outcome.maskedNumber == "138****0000")
        #expect(outcome.number == nil)
    }

    @Test(arguments: [
        (OneTapLogin.Network.none, OneTapLogin.Carrier.chinaMobile, "102101"),
        (.cellular, .noSIM, "200048"),
        (.wifi, .chinaUnicom, "102103"),
        (.both, .chinaTelecom, "103000"),
        (.cellular, .other, "200039"),
        (.cellular, .dualSIM, "103000"),
    ])
    func networkAndCarrierDecideThePrefetch(network: OneTapLogin.Network, carrier: OneTapLogin.Carrier, code: String) {
        var login = Self.registered()
        login.network = network
        login.carrier = carrier
        #expect(login.prefetch(at: at(0)).result.code == code)
    }

    @Test func registrationIsCheckedFirst() {
        var login = OneTapLogin()
        #expect(login.prefetch(at: at(0)).result.code == "200026")
        login.register(appId: "demo", appKey: "8F3A9C2E7B1D4F6A0C5E9B3D7F2A8C41")
        #expect(login.prefetch(at: at(0)).result.code == "103119")
        login.register(appId: "300011862498", appKey: "short")
        let outcome = login.prefetch(at: at(0))
        #expect(outcome.result.code == "103101")
        #expect(!outcome.detail.contains("short") || outcome.detail.contains("****"))
    }

    @Test func theTimeoutIs8000WhenUnsetOrNotAboveZero() {
        var login = Self.registered()
        login.gatewayLatencyMillis = 7999
        #expect(login.effectiveTimeoutMillis == 8000)
        #expect(login.prefetch(at: at(0)).result.code == "103000")
        login.timeoutMillis = -5
        login.gatewayLatencyMillis = 8001
        #expect(login.prefetch(at: at(0)).result.code == "200023")
        #expect(login.authorize(buttonText: "登录", at: at(0)).result.code == "102507")
        login.timeoutMillis = 9000
        #expect(login.prefetch(at: at(0)).result.code == "103000")
    }

    @Test func theLoginButtonMustSayLoginOrRegister() {
        var login = Self.registered()
        #expect(login.authorize(buttonText: "继续", at: at(0)).result.code == "200040")
        #expect(login.authorize(buttonText: "本机号码一键注册", at: at(0)).result.code == "103000")
        #expect(login.authorize(buttonText: "一键登录", cancel: true, at: at(0)).result.code == "200020")
    }

    @Test func thePageShowsTheCarriersTerms() {
        var login = Self.registered()
        login.carrier = .chinaTelecom
        #expect(login.authorize(buttonText: "登录", at: at(0)).terms == "《天翼账号服务与隐私协议》")
        login.carrier = .dualSIM
        login.phoneNumber = "18600001234"
        #expect(login.authorize(buttonText: "登录", at: at(0)).terms == "《联通统一认证服务条款》")
    }

    @Test func aTokenLivesTwoMinutes() {
        var login = Self.registered()
        let early = login.authorize(buttonText: "登录", at: at(0))
        #expect(early.expiresAt == at(120))
        #expect(login.exchange(token: early.token ?? "", at: at(119)).result.code == "103000")
        let late = login.authorize(buttonText: "登录", at: at(200))
        let outcome = login.exchange(token: late.token ?? "", at: at(320))
        #expect(outcome.result.code == "104201")
        #expect(outcome.detail.contains("expired"))
    }

    @Test func aTokenIsUsableOnce() {
        var login = Self.registered()
        let token = login.authorize(buttonText: "登录", at: at(0)).token ?? ""
        let first = login.exchange(token: token, at: at(5))
        #expect(first.number == "13800000000")
        #expect(first.maskedNumber == "138****0000")
        let second = login.exchange(token: token, at: at(6))
        #expect(second.result.code == "104201")
        #expect(second.detail.contains("already used"))
        #expect(login.exchange(token: "STsidNOPE", at: at(6)).result.code == "104201")
    }

    @Test func thirtyUnusedTokensPerNumberInTenMinutesThen103911() {
        var login = Self.registered()
        for i in 0..<30 { #expect(login.authorize(buttonText: "登录", at: at(Int64(i * 10))).result.code == "103000") }
        #expect(login.authorize(buttonText: "登录", at: at(300)).result.code == "103911")
        // Another number has its own allowance.
        login.phoneNumber = "13900001111"
        #expect(login.authorize(buttonText: "登录", at: at(300)).result.code == "103000")
        login.phoneNumber = "13800000000"
        // Using a token frees a place.
        let tokens = login.tokens.filter { $0.phoneNumber == "13800000000" }
        #expect(login.exchange(token: tokens.last?.value ?? "", at: at(301)).result.code == "103000")
        #expect(login.authorize(buttonText: "登录", at: at(302)).result.code == "103000")
        #expect(login.authorize(buttonText: "登录", at: at(303)).result.code == "103911")
        // Ten minutes after the first token it leaves the window.
        #expect(login.authorize(buttonText: "登录", at: at(600)).result.code == "103000")
    }

    @Test func implicitLoginReturnsNoOpenId() {
        var login = Self.registered()
        let page = login.authorize(buttonText: "登录", at: at(0))
        #expect(page.openId != nil)
        let implicit = login.authorize(buttonText: "", implicit: true, at: at(1))
        #expect(implicit.result.code == "103000")
        #expect(implicit.openId == nil)
        #expect(implicit.terms == nil)
    }

    @Test func deletingTheCachedCredentialMakesTheNextLoginPrefetch() {
        var login = Self.registered()
        _ = login.prefetch(at: at(0))
        #expect(login.cachedNumber != nil)
        _ = login.deleteCachedCredential(at: at(1))
        #expect(login.cachedNumber == nil)
        #expect(login.authorize(buttonText: "登录", at: at(2)).detail.contains("pre-fetched first"))
    }

    @Test func advancingTheClockMovesTheSimulatorsNow() {
        var login = Self.registered()
        login.advance(seconds: 121)
        #expect(login.now(base: at(0)) == at(121))
    }

    @Test func everyResultCodeIsInTheOneTable() {
        let codes = OneTapResultCode.table.map(\.code)
        #expect(Set(codes).count == codes.count)
        #expect(codes.allSatisfy { $0.count == 6 && $0.allSatisfy(\.isNumber) })
        for code in ["103000", "102101", "102102", "102103", "103911", "200020", "200023", "200027", "102507", "103119", "103111", "200028", "200039", "200048", "104201"] {
            #expect(OneTapResultCode.named(code) != nil, "\(code)")
        }
        #expect(OneTapResultCode.search("rate").isEmpty == false || OneTapResultCode.search("30").isEmpty == false)
    }
}
