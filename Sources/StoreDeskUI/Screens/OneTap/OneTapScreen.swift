import Foundation
import StoreDeskCore
import StoreDeskStoreAPI

extension ScreenID {
    public static let oneTap = OneTapScreen.id
}

/// The One-tap screen: the carrier's one-click phone login driven step by step with keys (register,
/// network and carrier, pre-fetch, the authorization page, implicit login, the server's exchange,
/// deleting the cached credential, moving the simulator's clock), every step's result code with its
/// meaning, and the carrier's whole table of codes. It works on the simulator kept in the store, so it
/// continues what `storedesk login onetap` started, and the reverse.
public struct OneTapScreen: Sendable {
    public var login: OneTapLogin?
    /// The simulator's clock (the store's clock plus its offset).
    public var clock: Instant?
    /// The steps taken in this console, newest first.
    public var log: [OneTapOutcome] = []
    public var selected = 0
    public var detailScroll = 0

    public init() {}

    public enum Event: Sendable {
        case loaded(OneTapLogin, Instant)
        case stepped(OneTapOutcome?, OneTapLogin, Instant, note: String?)
    }

    /// What `r` offers when nothing is registered: a carrier-shaped demo appId. The appKey is never
    /// prefilled, so no key is drawn in the clear; the README gives the demo's.
    static let demoAppId = "300011862498"
    static let defaultButton = "本机号码一键登录"

    public var selectedOutcome: OneTapOutcome? { log.indices.contains(selected) ? log[selected] : nil }

    /// The newest token not yet used: what `e` offers to exchange.
    var newestToken: String? { login?.tokens.last { $0.usedAt == nil }?.value }

    mutating func load(_ context: ScreenContext) -> [Effect] {
        let wall = context.clock
        return [Self.read { store in .loaded(try store.oneTapLogin(), try store.oneTapClock(wall: wall)) }]
    }

    /// One step against the kept simulator, in one write; the result comes back as `.stepped`.
    func step(
        _ context: ScreenContext, note: String? = nil, _ body: @escaping @Sendable (inout OneTapLogin, Instant) -> OneTapOutcome?
    ) -> [Effect] {
        let staff = context.session.staff, wall = context.clock
        return [
            Self.write { store in
                let (outcome, login) = try store.oneTap(by: staff, wall: wall) { login, now in (body(&login, now), login) }
                return .stepped(outcome, login, try store.oneTapClock(wall: wall), note: note)
            }
        ]
    }

    public mutating func apply(_ event: Event, _ context: inout ScreenContext) -> [Effect] {
        switch event {
        case .loaded(let login, let clock):
            self.login = login
            self.clock = clock
        case .stepped(let outcome, let login, let clock, let note):
            self.login = login
            self.clock = clock
            if let outcome {
                log.insert(outcome, at: 0)
                selected = 0
                detailScroll = 0
                context.status = StatusMessage(
                    "\(outcome.step): \(outcome.result.code) \(outcome.result.carrierText)", outcome.result.isSuccess ? .success : .warning)
            } else if let note {
                context.status = StatusMessage(note, .info)
            }
        }
        return []
    }

    /// The next value of a setting, in its list's order.
    static func next<T: CaseIterable & Equatable>(_ value: T) -> T {
        let all = Array(T.allCases)
        let index = all.firstIndex(of: value) ?? 0
        return all[(index + 1) % all.count]
    }

    mutating func perform(step action: Action, _ context: inout ScreenContext) -> [Effect] {
        switch action {
        case .register:
            let appId = login?.registration?.appId ?? Self.demoAppId
            Self.prompt("register: appId", text: appId, history: "appId", &context, refuse: Self.wordRefusal("the appId")) {
                .registerAppId($0)
            }
        case .registerAppId(let text):
            // The key is a secret: masked as typed, never kept in a history.
            let appId = text.trimmingCharacters(in: .whitespaces)
            Self.prompt("register: appKey for \(appId)", kind: .secret, &context, refuse: Self.wordRefusal("the appKey")) {
                .registerWith(appId + " " + $0.trimmingCharacters(in: .whitespaces))
            }
        case .registerWith(let text):
            let words = text.split(separator: " ").map(String.init)
            guard words.count == 2 else {
                context.status = StatusMessage("register takes an appId and an appKey, separated by a space", .error)
                return []
            }
            return step(context) { login, now in
                login.register(appId: words[0], appKey: words[1])
                return OneTapOutcome(
                    step: "register", result: .success, detail: "appId \(words[0]), appKey \(Masking.secret(words[1]))", at: now)
            }
        case .prefetch:
            return step(context) { $0.prefetch(at: $1) }
        case .authorize:
            Self.prompt("authorization page: login button text", text: Self.defaultButton, &context) { .authorizeWith(buttonText: $0) }
        case .authorizeWith(let text):
            return step(context) { $0.authorize(buttonText: text, at: $1) }
        case .cancel:
            return step(context) { $0.authorize(buttonText: Self.defaultButton, cancel: true, at: $1) }
        case .phone:
            Self.prompt("the SIM's number (11 digits)", &context, refuse: { text in
                let number = text.trimmingCharacters(in: .whitespaces)
                return Self.isPhoneNumber(number) ? nil : "the number must be 11 digits, got '\(Masking.phone(number))'"
            }) { .phoneNumber($0) }
        case .phoneNumber(let text):
            let number = text.trimmingCharacters(in: .whitespaces)
            guard Self.isPhoneNumber(number) else {
                context.status = StatusMessage("the number must be 11 digits, got '\(Masking.phone(number))'", .error)
                return []
            }
            return step(context, note: "number: \(Masking.phone(number))") { login, _ in
                login.phoneNumber = number
                return nil
            }
        case .implicit:
            return step(context) { $0.authorize(buttonText: "", implicit: true, at: $1) }
        case .exchange:
            Self.prompt("server: exchange token", text: newestToken ?? "", &context) { .exchangeToken($0) }
        case .exchangeToken(let text):
            let token = text.trimmingCharacters(in: .whitespaces)
            return step(context) { $0.exchange(token: token, at: $1) }
        case .advance:
            return advance(30, context)
        case .advanceBy(let seconds):
            return advance(seconds, context)
        case .delete:
            return step(context) { $0.deleteCachedCredential(at: $1) }
        case .network:
            let network = Self.next(login?.network ?? .cellular)
            return step(context, note: "network: \(network.rawValue)") { login, _ in
                login.network = network
                return nil
            }
        case .carrier:
            let carrier = Self.next(login?.carrier ?? .chinaMobile)
            return step(context, note: "carrier: \(carrier.title)") { login, _ in
                login.carrier = carrier
                return nil
            }
        case .timeout:
            Self.prompt("timeout in ms (8000 when 0 or less)", text: String(login?.timeoutMillis ?? 0), &context, refuse: { text in
                Int(text.trimmingCharacters(in: .whitespaces)) == nil ? "the timeout is a number of milliseconds, got '\(text)'" : nil
            }) { .timeoutMillis($0) }
        case .timeoutMillis(let text):
            guard let value = Int(text.trimmingCharacters(in: .whitespaces)) else {
                context.status = StatusMessage("the timeout is a number of milliseconds, got '\(text)'", .error)
                return []
            }
            return step(context, note: "timeout: \(value > 0 ? value : OneTapLogin.defaultTimeoutMillis) ms") { login, _ in
                login.timeoutMillis = value
                return nil
            }
        }
        return []
    }

    static func isPhoneNumber(_ number: String) -> Bool { number.count == 11 && number.allSatisfy { $0.isASCII && $0.isNumber } }

    /// A prompt's rule for one word (an appId, an appKey): not empty, no spaces.
    static func wordRefusal(_ what: String) -> @Sendable (String) -> String? {
        { text in
            let word = text.trimmingCharacters(in: .whitespaces)
            if word.isEmpty { return "\(what) is needed" }
            return word.contains(" ") ? "\(what) is one word, without spaces" : nil
        }
    }

    func advance(_ seconds: Int64, _ context: ScreenContext) -> [Effect] {
        step(context) { login, now in
            login.advance(seconds: seconds)
            return OneTapOutcome(
                step: "advance", result: .success, detail: "the simulator's clock moved on \(seconds) s",
                at: now.adding(.seconds(seconds)))
        }
    }
}
