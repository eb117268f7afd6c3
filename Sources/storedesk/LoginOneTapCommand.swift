import ArgumentParser
import Foundation
import StoreDeskCore
import StoreDeskStore

extension LoginCommand {
    /// `storedesk login onetap ...`: the carrier's one-click phone login, one step per command, against
    /// the simulator's state kept in the store, so a script can test expiry and the rate limit.
    struct OneTap: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "onetap",
            abstract: "The carrier one-click phone login simulator, step by step (its state and clock are kept in the store).",
            subcommands: [Register.self, Settings.self, Prefetch.self, Authorize.self, Exchange.self, Advance.self, Delete.self, Codes.self])

        /// Runs one step as `--role developer`, prints its outcome, and exits 1 unless the carrier said 103000.
        static func step(
            _ store: StoreOptions, _ staff: StaffOptions, json: Bool, _ command: String,
            _ body: @escaping (inout OneTapLogin, Instant) throws -> OneTapOutcome
        ) throws {
            let outcome = try reporting {
                let editor = try staff.editor("login onetap \(command)")
                return try store.open(.readWrite).oneTap(by: editor, wall: Instant(Date()), body)
            }
            if json {
                try printJSON(OneTapOutcomeJSON(outcome))
            } else {
                for line in OneTapOutcomeJSON(outcome).lines { print(line) }
            }
            if !outcome.result.isSuccess { throw ExitCode(1) }
        }

        struct Register: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "register", abstract: "Initialise the SDK with the carrier's appId and appKey (the key is shown masked).")
            @OptionGroup var store: StoreOptions
            @OptionGroup var staff: StaffOptions
            @Option(name: .customLong("app-id"), help: "The carrier appId (12 digits).") var appId: String
            @Option(name: .customLong("app-key"), help: "The carrier appKey (32 hex digits).") var appKey: String
            @Flag(help: "Print JSON.") var json = false

            func run() throws {
                let (id, key) = (appId.trimmingCharacters(in: .whitespaces), appKey.trimmingCharacters(in: .whitespaces))
                guard !id.isEmpty, !key.isEmpty else { throw fail("--app-id and --app-key must not be empty") }
                try OneTap.step(store, staff, json: json, "register") { login, now in
                    login.register(appId: id, appKey: key)
                    return OneTapOutcome(
                        step: "register", result: .success, detail: "appId \(id), appKey \(Masking.secret(key))", at: now)
                }
            }
        }

        struct Settings: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "settings",
                abstract: "The phone's network and SIM and the SDK's timeout; with no option, prints them.")
            @OptionGroup var store: StoreOptions
            @OptionGroup var staff: StaffOptions
            @Option(help: "The SDK's timeout in ms (8000 when unset or not above 0).") var timeout: Int?
            @Option(help: "none, cellular, wifi or both.") var network: String?
            @Option(help: "mobile, unicom, telecom, dual (two SIMs), none (no SIM) or other.") var carrier: String?
            @Option(help: "The SIM's number (the data SIM's with two).") var phone: String?
            @Option(help: "How long the carrier's gateway takes to answer, in ms.") var latency: Int?
            @Flag(help: "Print JSON.") var json = false

            func run() throws {
                let network = try self.network.map { value in
                    guard let parsed = OneTapLogin.Network(rawValue: value.lowercased()) else {
                        throw fail("--network must be none, cellular, wifi or both, got '\(value)'")
                    }
                    return parsed
                }
                let carrier = try self.carrier.map { value in
                    guard let parsed = OneTapLogin.Carrier(rawValue: value.lowercased()) else {
                        throw fail("--carrier must be mobile, unicom, telecom, dual, none or other, got '\(value)'")
                    }
                    return parsed
                }
                if let phone, phone.count != 11 || !phone.allSatisfy({ $0.isASCII && $0.isNumber }) {
                    throw fail("--phone must be an 11-digit mainland mobile number, got '\(Masking.phone(phone))'")
                }
                if let latency, latency < 0 { throw fail("--latency must be 0 or more milliseconds, got \(latency)") }
                let changes = timeout != nil || network != nil || carrier != nil || phone != nil || latency != nil
                let (timeout, phone, latency) = (self.timeout, self.phone, self.latency)
                let login: OneTapLogin = try reporting {
                    if !changes { return try store.open(.readOnly).oneTapLogin() }
                    let editor = try staff.editor("login onetap settings")
                    return try store.open(.readWrite).oneTap(by: editor, wall: Instant(Date())) { login, _ in
                        if let timeout { login.timeoutMillis = timeout }
                        if let network { login.network = network }
                        if let carrier { login.carrier = carrier }
                        if let phone { login.phoneNumber = phone }
                        if let latency { login.gatewayLatencyMillis = latency }
                        return login
                    }
                }
                let settings = OneTapSettingsJSON(login)
                if json { return try printJSON(settings) }
                for line in settings.lines { print(line) }
            }
        }

        struct Prefetch: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "prefetch", abstract: "Pre-fetch the number: 138****0000, or a result code.")
            @OptionGroup var store: StoreOptions
            @OptionGroup var staff: StaffOptions
            @Flag(help: "Print JSON.") var json = false
            func run() throws { try OneTap.step(store, staff, json: json, "prefetch") { $0.prefetch(at: $1) } }
        }

        struct Authorize: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "authorize",
                abstract: "The authorization page: a token valid 2 minutes, usable once (at most 30 unused per number in 10 minutes).")
            @OptionGroup var store: StoreOptions
            @OptionGroup var staff: StaffOptions
            @Option(help: "The page's login button; it must say 登录 or 注册.") var button = "本机号码一键登录"
            @Flag(help: "Implicit login without the page: no openId.") var implicit = false
            @Flag(help: "The player closes the page (200020).") var cancel = false
            @Flag(help: "Print JSON.") var json = false
            func run() throws {
                let (button, implicit, cancel) = (button, implicit, cancel)
                try OneTap.step(store, staff, json: json, "authorize") {
                    $0.authorize(buttonText: button, implicit: implicit, cancel: cancel, at: $1)
                }
            }
        }

        struct Exchange: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "exchange", abstract: "The game server swaps a token for the number (shown masked).")
            @OptionGroup var store: StoreOptions
            @OptionGroup var staff: StaffOptions
            @Argument(help: "The token authorize printed.") var token: String
            @Flag(help: "Print JSON.") var json = false
            func run() throws {
                let token = token
                try OneTap.step(store, staff, json: json, "exchange") { $0.exchange(token: token, at: $1) }
            }
        }

        struct Advance: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "advance", abstract: "Move the simulator's clock on by SECONDS (expiry, the rate limit's window).")
            @OptionGroup var store: StoreOptions
            @OptionGroup var staff: StaffOptions
            @Argument(help: "Seconds, 1 or more.") var seconds: Int64
            @Flag(help: "Print JSON.") var json = false
            func run() throws {
                guard seconds > 0, seconds <= OneTapLogin.largestAdvanceSeconds else {
                    throw fail("advance takes 1 to \(OneTapLogin.largestAdvanceSeconds) seconds (a year), got \(seconds)")
                }
                let seconds = seconds
                try OneTap.step(store, staff, json: json, "advance") { login, now in
                    login.advance(seconds: seconds)
                    return OneTapOutcome(
                        step: "advance", result: .success, detail: "the simulator's clock moved on \(seconds) s",
                        at: now.adding(.seconds(seconds)))
                }
            }
        }

        struct Delete: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "delete", abstract: "Delete the cached credential: the next login pre-fetches again.")
            @OptionGroup var store: StoreOptions
            @OptionGroup var staff: StaffOptions
            @Flag(help: "Print JSON.") var json = false
            func run() throws { try OneTap.step(store, staff, json: json, "delete") { $0.deleteCachedCredential(at: $1) } }
        }

        struct Codes: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "codes", abstract: "Every result code of the carrier's table with its meaning.")
            @Argument(help: "A code or words to search for.") var query: String = ""
            @Flag(help: "Print JSON.") var json = false
            func run() throws {
                let rows = OneTapResultCode.search(query)
                if json {
                    struct Row: Encodable {
                        var code: String
                        var carrierText: String
                        var meaning: String
                        enum CodingKeys: String, CodingKey { case code, meaning, carrierText = "carrier_text" }
                    }
                    return try printJSON(rows.map { Row(code: $0.code, carrierText: $0.carrierText, meaning: $0.meaning) })
                }
                guard !rows.isEmpty else { throw fail("no result code matches '\(query)'") }
                for row in rows { print("\(row.code)  \(row.carrierText)  \(row.meaning)") }
            }
        }
    }
}

/// One step's outcome as JSON (and as lines): the code with its meaning, and what it handed out. The
/// number is always masked.
struct OneTapOutcomeJSON: Encodable {
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
struct OneTapSettingsJSON: Encodable {
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
