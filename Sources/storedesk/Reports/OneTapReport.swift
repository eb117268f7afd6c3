import Foundation
import StoreDeskCore

/// One step's outcome as JSON (and as lines): the code with its meaning, and what it handed out. The
/// number is always masked.
struct OneTapOutcomeJSON: Encodable, CommandReport {
    var step: String
    var code: String
    var carrierText: String
    var meaning: String
    var detail: String
    var at: String
    @NullWhenAbsent var maskedNumber: String?
    @NullWhenAbsent var token: String?
    @NullWhenAbsent var openId: String?
    @NullWhenAbsent var expiresAt: String?
    @NullWhenAbsent var terms: String?

    enum CodingKeys: String, CodingKey {
        case step, code, meaning, detail, at, token, terms
        case carrierText = "carrier_text"
        case maskedNumber = "masked_number"
        case openId = "open_id"
        case expiresAt = "expires_at"
    }

    init(_ outcome: OneTapOutcome) {
        step = outcome.step
        code = outcome.result.code
        carrierText = outcome.result.carrierText
        meaning = outcome.result.meaning
        detail = outcome.detail
        at = outcome.at.iso8601
        maskedNumber = outcome.maskedNumber
        token = outcome.token
        openId = outcome.openId
        expiresAt = outcome.expiresAt?.iso8601
        terms = outcome.terms
    }

    var json: Self { self }
    var text: String { reportText(lines) }

    var lines: [String] {
        var lines = ["\(step) \(code) \(carrierText): \(meaning)", "  \(detail)", "  clock    \(at)"]
        if let maskedNumber { lines.append("  number   \(maskedNumber)") }
        if let token { lines.append("  token    \(token)") }
        if let expiresAt { lines.append("  expires  \(expiresAt)") }
        if token != nil { lines.append("  openId   \(openId ?? "none (implicit login)")") }
        if let terms { lines.append("  terms    \(terms)") }
        return lines
    }
}

/// The simulator's settings: registration (key masked), timeout, network, carrier, number (masked).
struct OneTapSettingsJSON: Encodable, CommandReport {
    @NullWhenAbsent var appId: String?
    @NullWhenAbsent var appKey: String?
    var timeoutMs: Int
    var effectiveTimeoutMs: Int
    var network: String
    var carrier: String
    var phone: String
    var latencyMs: Int
    var cachedCredential: Bool
    var clockOffsetSeconds: Int64
    var unusedTokens: Int

    enum CodingKeys: String, CodingKey {
        case network, carrier, phone
        case appId = "app_id"
        case appKey = "app_key"
        case timeoutMs = "timeout_ms"
        case effectiveTimeoutMs = "effective_timeout_ms"
        case latencyMs = "latency_ms"
        case cachedCredential = "cached_credential"
        case clockOffsetSeconds = "clock_offset_seconds"
        case unusedTokens = "tokens_unused"
    }

    init(_ login: OneTapLogin) {
        appId = login.registration?.appId
        appKey = login.registration.map { Masking.secret($0.appKey) }
        timeoutMs = login.timeoutMillis
        effectiveTimeoutMs = login.effectiveTimeoutMillis
        network = login.network.rawValue
        carrier = login.carrier.rawValue
        phone = Masking.phone(login.phoneNumber)
        latencyMs = login.gatewayLatencyMillis
        cachedCredential = login.cachedNumber != nil
        clockOffsetSeconds = login.clockOffsetMillis / 1000
        unusedTokens = login.tokens.filter { $0.usedAt == nil }.count
    }

    var json: Self { self }
    var text: String { reportText(lines) }

    var lines: [String] {
        [
            "registration  " + (appId.map { "appId \($0), appKey \(appKey ?? "")" } ?? "none (register --app-id --app-key)"),
            "timeout       \(effectiveTimeoutMs) ms" + (timeoutMs > 0 ? "" : " (unset: the default)"),
            "network       \(network)",
            "carrier       \(carrier)",
            "number        \(phone)",
            "gateway       answers in \(latencyMs) ms",
            "cached        " + (cachedCredential ? "a pre-fetched number" : "nothing"),
            "clock         +\(clockOffsetSeconds) s over the store's",
            "tokens        \(unusedTokens) unused",
        ]
    }
}

/// `login onetap codes`: the carrier's result codes that match.
struct OneTapCodesReport: CommandReport {
    struct Row: Encodable {
        var code: String
        var carrierText: String
        var meaning: String
        enum CodingKeys: String, CodingKey { case code, meaning, carrierText = "carrier_text" }
    }

    var rows: [OneTapResultCode]
    var json: [Row] { rows.map { Row(code: $0.code, carrierText: $0.carrierText, meaning: $0.meaning) } }
    var text: String { rows.map { "\($0.code)  \($0.carrierText)  \($0.meaning)" }.joined(separator: "\n") }
}
