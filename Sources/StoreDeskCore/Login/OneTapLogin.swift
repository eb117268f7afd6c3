/// The carrier's one-click phone login, simulated as a value: the app registers its appId and appKey,
/// the phone's network and SIM are settings, and each step (pre-fetch the number, the authorization
/// page, the server's exchange, deleting the cached credential) returns a result code from
/// `OneTapResultCode.table`. Time is passed in (the simulator's own clock), so lifetimes and the rate
/// limit are testable: a token lives 120 s, is usable once, and at most 30 unused tokens per number may
/// be taken in 10 minutes (103911 beyond).
///
///     var login = OneTapLogin()
///     login.register(appId: "300011862498", appKey: "8F3A9C2E7B1D4F6A0C5E9B3D7F2A8C41")
///     login.prefetch(at: now).maskedNumber                          // "138****0000"
///     let page = login.authorize(buttonText: "本机号码一键登录", at: now)
///     login.exchange(token: page.token ?? "", at: now).result.code  // "103000"
public struct OneTapLogin: Hashable, Sendable {
    /// Which networks the phone has on.
    public enum Network: String, Hashable, Sendable, CaseIterable {
        case none, cellular, wifi, both
    }

    /// The phone's SIM: one of the three carriers, two SIMs (the data SIM answers), none, or an operator
    /// the carriers' gateways do not serve.
    public enum Carrier: String, Hashable, Sendable, CaseIterable {
        case chinaMobile = "mobile"
        case chinaUnicom = "unicom"
        case chinaTelecom = "telecom"
        case dualSIM = "dual"
        case noSIM = "none"
        case other

        public var title: String {
            switch self {
            case .chinaMobile: "China Mobile"
            case .chinaUnicom: "China Unicom"
            case .chinaTelecom: "China Telecom"
            case .dualSIM: "dual SIM"
            case .noSIM: "no SIM"
            case .other: "other operator"
            }
        }
    }

    /// What the SDK is initialised with.
    public struct Registration: Hashable, Sendable {
        public var appId: String
        public var appKey: String
        public init(appId: String, appKey: String) {
            self.appId = appId
            self.appKey = appKey
        }
    }

    /// A login token the authorization page handed out.
    public struct Token: Hashable, Sendable {
        public var value: String
        public var phoneNumber: String
        public var issuedAt: Instant
        public var usedAt: Instant?
        /// Taken without the authorization page: no openId.
        public var implicit: Bool
        public var openId: String?

        public var expiresAt: Instant { issuedAt.adding(Instant.Duration(millis: OneTapLogin.tokenLifetimeMillis)) }

        public init(value: String, phoneNumber: String, issuedAt: Instant, usedAt: Instant?, implicit: Bool, openId: String?) {
            self.value = value
            self.phoneNumber = phoneNumber
            self.issuedAt = issuedAt
            self.usedAt = usedAt
            self.implicit = implicit
            self.openId = openId
        }
    }

    public static let defaultTimeoutMillis = 8000
    public static let tokenLifetimeMillis: Int64 = 120_000
    public static let unusedTokenLimit = 30
    public static let rateWindowMillis: Int64 = 600_000

    public var registration: Registration?
    /// As set: 0 or less means unset, and the SDK waits `defaultTimeoutMillis`.
    public var timeoutMillis = 0
    public var network = Network.cellular
    public var carrier = Carrier.chinaMobile
    /// The SIM's number (the data SIM's with two).
    public var phoneNumber = "13800000000"
    /// How long the carrier's gateway takes to answer: above the timeout, a step times out.
    public var gatewayLatencyMillis = 300
    /// The pre-fetched number the SDK keeps until it is deleted (its cached credential).
    public var cachedNumber: String?
    public var tokens: [Token] = []
    /// How far the simulator's clock runs ahead of the store's (`advance`).
    public var clockOffsetMillis: Int64 = 0
    /// Tokens handed out so far: makes each token different without randomness.
    public var tokenSerial = 0

    public init() {}

    /// The timeout the SDK uses: 8000 ms when unset or not above 0.
    public var effectiveTimeoutMillis: Int { timeoutMillis > 0 ? timeoutMillis : Self.defaultTimeoutMillis }

    /// The simulator's instant over a base clock (the store's).
    public func now(base: Instant) -> Instant { base.adding(Instant.Duration(millis: clockOffsetMillis)) }

    public mutating func register(appId: String, appKey: String) {
        registration = Registration(appId: appId, appKey: appKey)
        cachedNumber = nil
    }

    /// The most one `advance` moves the simulator's clock: a year (tokens live two minutes and the rate
    /// limit counts ten), so a typo cannot push it past any date the store can show.
    public static let largestAdvanceSeconds: Int64 = 365 * 86_400

    /// Moves the simulator's clock on: expiry and the rate limit's window follow it.
    public mutating func advance(seconds: Int64) { clockOffsetMillis = clockOffsetMillis.clampedAdding(seconds.clampedMultiplied(by: 1000)) }

    /// The carrier whose gateway answers, and whose terms the authorization page shows.
    public var answeringCarrier: Carrier? {
        switch carrier {
        case .chinaMobile, .chinaUnicom, .chinaTelecom: carrier
        case .dualSIM: Self.carrier(ofNumber: phoneNumber)
        case .noSIM, .other: nil
        }
    }

    /// The carrier's terms the authorization page must show beside its login button.
    public var terms: String? {
        switch answeringCarrier {
        case .chinaMobile?: "《中国移动认证服务条款》"
        case .chinaUnicom?: "《联通统一认证服务条款》"
        case .chinaTelecom?: "《天翼账号服务与隐私协议》"
        default: nil
        }
    }

    /// Pre-fetches the number (the SDK's getPhoneInfo): the masked number, or why not.
    public mutating func prefetch(at now: Instant) -> OneTapOutcome {
        if let refusal = refusal(timeoutCode: .timeout) { return outcome("prefetch", refusal.0, refusal.1, at: now) }
        cachedNumber = phoneNumber
        var result = outcome("prefetch", .success, "number pre-fetched from \(answeringCarrier?.title ?? carrier.title)", at: now)
        result.maskedNumber = Masking.phone(phoneNumber)
        return result
    }

    /// The authorization page (loginAuth), or implicit login without it: a token, or why not.
    ///
    /// - Parameters:
    ///   - buttonText: the page's login button; it must say 登录 or 注册.
    ///   - implicit: no page; the token comes without an openId.
    ///   - cancel: the player closes the page.
    public mutating func authorize(buttonText: String, implicit: Bool = false, cancel: Bool = false, at now: Instant) -> OneTapOutcome {
        let step = implicit ? "implicit" : "authorize"
        if let refusal = refusal(timeoutCode: implicit ? .timeout : .loginTimeout) { return outcome(step, refusal.0, refusal.1, at: now) }
        let prefetched = cachedNumber != nil
        cachedNumber = phoneNumber
        if !implicit {
            guard buttonText.contains("登录") || buttonText.contains("注册") else {
                return outcome(step, .pageSetupFailed, "the login button says “\(buttonText)”: it must say 登录 or 注册", at: now)
            }
            if cancel { return outcome(step, .cancelled, "the player closed the page", at: now) }
        }
        prune(at: now)
        if unusedTokens(at: now) >= Self.unusedTokenLimit {
            return outcome(
                step, .tooManyTokens,
                "\(Self.unusedTokenLimit) tokens of \(Masking.phone(phoneNumber)) taken in the last 10 minutes are unused", at: now)
        }
        tokenSerial += 1
        let value = "STsid" + Self.digest("\(registration?.appId ?? "")|\(phoneNumber)|\(tokenSerial)")
        let openId = implicit ? nil : Self.digest("openid|\(registration?.appId ?? "")|\(phoneNumber)")
        let token = Token(value: value, phoneNumber: phoneNumber, issuedAt: now, usedAt: nil, implicit: implicit, openId: openId)
        tokens.append(token)
        var detail = implicit ? "implicit login: a token without the page, so no openId" : "the player pressed “\(buttonText)”"
        if !prefetched { detail += " (the number was pre-fetched first)" }
        var result = outcome(step, .success, detail, at: now)
        result.maskedNumber = Masking.phone(phoneNumber)
        result.token = value
        result.openId = openId
        result.expiresAt = token.expiresAt
        result.terms = implicit ? nil : terms
        return result
    }

    /// The game server swaps a token for the number (the carrier's getMobile): once, within 2 minutes.
    /// The number is in the clear here; whoever shows it masks it.
    public mutating func exchange(token value: String, at now: Instant) -> OneTapOutcome {
        guard let index = tokens.firstIndex(where: { $0.value == value }) else {
            return outcome("exchange", .tokenInvalid, "no such token", at: now)
        }
        let token = tokens[index]
        if let used = token.usedAt {
            return outcome("exchange", .tokenInvalid, "the token was already used at \(used.iso8601)", at: now)
        }
        guard now < token.expiresAt else {
            return outcome("exchange", .tokenInvalid, "the token expired at \(token.expiresAt.iso8601)", at: now)
        }
        tokens[index].usedAt = now
        var result = outcome("exchange", .success, "the server got the number; the token is used up", at: now)
        result.number = token.phoneNumber
        result.maskedNumber = Masking.phone(token.phoneNumber)
        result.openId = token.openId
        return result
    }

    /// Deletes the cached credential (the SDK's delScrip): the next login pre-fetches again.
    public mutating func deleteCachedCredential(at now: Instant) -> OneTapOutcome {
        let had = cachedNumber != nil
        cachedNumber = nil
        return outcome("delete", .success, had ? "the cached credential is deleted" : "there was no cached credential", at: now)
    }

    /// Unused tokens of the current number taken in the rate limit's window.
    public func unusedTokens(at now: Instant) -> Int {
        tokens.filter { $0.phoneNumber == phoneNumber && $0.usedAt == nil && now.duration(since: $0.issuedAt).millis < Self.rateWindowMillis }.count
    }

    /// Forgets tokens that can matter no more: outside the window and used or expired.
    mutating func prune(at now: Instant) {
        tokens.removeAll { now.duration(since: $0.issuedAt).millis >= Self.rateWindowMillis && ($0.usedAt != nil || now >= $0.expiresAt) }
    }

    /// Why the phone cannot reach the carrier right now, checked in the SDK's order.
    private func refusal(timeoutCode: OneTapResultCode) -> (OneTapResultCode, String)? {
        guard let registration else { return (.badInput, "register an appId and appKey first") }
        guard registration.appId.count == 12, registration.appId.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            return (.appIdInvalid, "appId \(registration.appId) is not a carrier appId (12 digits)")
        }
        guard registration.appKey.count == 32, registration.appKey.allSatisfy(\.isHexDigit) else {
            return (.badSignature, "appKey \(Masking.secret(registration.appKey)) is not a carrier appKey (32 hex digits)")
        }
        switch (network, carrier) {
        case (.none, _): return (.noNetwork, "network: none")
        case (_, .noSIM): return (.noSIM, "carrier: no SIM card")
        case (.wifi, _): return (.dataNetworkOff, "network: Wi-Fi only, cellular data off")
        case (_, .other): return (.unsupportedCarrier, "carrier: an operator without one-click login")
        default: break
        }
        if answeringCarrier == nil { return (.unsupportedCarrier, "the data SIM's number \(Masking.phone(phoneNumber)) belongs to no carrier") }
        if gatewayLatencyMillis > effectiveTimeoutMillis {
            return (timeoutCode, "the gateway answers in \(gatewayLatencyMillis) ms, the timeout is \(effectiveTimeoutMillis) ms")
        }
        return nil
    }

    private func outcome(_ step: String, _ result: OneTapResultCode, _ detail: String, at now: Instant) -> OneTapOutcome {
        OneTapOutcome(step: step, result: result, detail: detail, at: now)
    }

    /// Which carrier a mainland mobile number belongs to, by its first three digits.
    public static func carrier(ofNumber number: String) -> Carrier? {
        let prefix = String(number.prefix(3))
        let mobile = ["134", "135", "136", "137", "138", "139", "147", "150", "151", "152", "157", "158", "159", "178", "182", "183", "184", "187", "188", "198"]
        let unicom = ["130", "131", "132", "145", "155", "156", "166", "175", "176", "185", "186"]
        let telecom = ["133", "149", "153", "173", "177", "180", "181", "189", "191", "199"]
        if mobile.contains(prefix) { return .chinaMobile }
        if unicom.contains(prefix) { return .chinaUnicom }
        if telecom.contains(prefix) { return .chinaTelecom }
        return nil
    }

    /// 32 hex digits from two FNV-1a passes: stable ids without randomness.
    static func digest(_ text: String) -> String {
        func fnv(_ seed: UInt64) -> UInt64 {
            var hash = seed
            for byte in text.utf8 {
                hash ^= UInt64(byte)
                hash = hash &* 0x100_0000_01b3
            }
            return hash
        }
        func hex(_ value: UInt64) -> String {
            let digits = String(value, radix: 16, uppercase: true)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }
        return hex(fnv(0xcbf2_9ce4_8422_2325)) + hex(fnv(0x8422_2325_cbf2_9ce4))
    }
}

/// What one step of the one-click login returned: its result code, and what it handed out.
public struct OneTapOutcome: Hashable, Sendable {
    /// `prefetch`, `authorize`, `implicit`, `exchange`, `delete`.
    public var step: String
    public var result: OneTapResultCode
    public var detail: String
    public var at: Instant
    public var maskedNumber: String?
    public var token: String?
    public var openId: String?
    public var expiresAt: Instant?
    /// The carrier's terms the page showed.
    public var terms: String?
    /// The number in the clear, server side only (exchange); shown masked unless revealed.
    public var number: String?

    public init(step: String, result: OneTapResultCode, detail: String, at: Instant) {
        self.step = step
        self.result = result
        self.detail = detail
        self.at = at
    }
}
