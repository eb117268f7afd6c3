import Foundation
import StoreDeskCore
import StoreDeskStoreAPI

/// The One-tap screen in the console: its keys and its reducer's entry points.
extension OneTapScreen: ConsoleScreen {
    public static let id = ScreenID("onetap")
    public static let title = "One-tap"
    /// The result codes and their meanings are read beside the steps: the detail pane keeps half.
    public static let widensList = false
    public static let shortTitle = "1-tap"

    /// What this screen's keys, verbs and prompts ask for: each a step of the simulator.
    public enum Action: Sendable, Equatable {
        case register, network, carrier, phone, timeout, prefetch, authorize, cancel, implicit, exchange, advance, delete
        /// `:advance SECONDS`.
        case advanceBy(Int64)
        /// The answers to the steps' prompts.
        case registerAppId(String), registerWith(String), authorizeWith(buttonText: String), phoneNumber(String), exchangeToken(String), timeoutMillis(String)
    }

    /// Only a developer drives the simulator (the store checks again when it writes).
    static func developerStep(
        _ key: Character, _ action: Action, _ help: String, _ summary: String, verb: ScreenVerb<OneTapScreen>? = nil
    ) -> ScreenCommand<OneTapScreen> {
        .key(.character(key), action: action, help: help, summary: summary, permission: .driveOneTap, writes: true, verb: verb)
    }

    public static let commands: [ScreenCommand<OneTapScreen>] = [
        developerStep("r", .register, "register", "One-tap: initialise the SDK with the carrier's appId and appKey (the key shown masked)."),
        developerStep("n", .network, "network", "One-tap: the phone's next network: none, cellular, Wi-Fi, both."),
        developerStep("c", .carrier, "carrier", "One-tap: the next SIM: China Mobile, China Unicom, China Telecom, dual SIM, none, other."),
        developerStep("p", .phone, "number", "One-tap: the SIM's number (the data SIM's with two; its prefix names the carrier)."),
        developerStep("t", .timeout, "timeout", "One-tap: the SDK's timeout in ms (8000 when unset or not above 0)."),
        developerStep("f", .prefetch, "prefetch", "One-tap: pre-fetch the number: a masked number like 138****0000, or a result code."),
        developerStep("l", .authorize, "login page", "One-tap: the authorization page (its button must say 登录 or 注册): a token for 2 minutes, usable once."),
        developerStep("x", .cancel, "close page", "One-tap: the authorization page opens and the player closes it (200020)."),
        developerStep("i", .implicit, "implicit", "One-tap: implicit login without the page: a token with no openId."),
        developerStep("e", .exchange, "exchange", "One-tap: the game server swaps a token for the number (shown masked)."),
        developerStep(
            "+", .advance, "advance", "One-tap: move the simulator's clock on 30 seconds (:advance N for more).",
            verb: ScreenVerb("advance", argument: "SECONDS", summary: "move the one-tap simulator's clock on") { text in
                guard let seconds = Int64(text.trimmingCharacters(in: .whitespaces)), seconds > 0,
                    seconds <= OneTapLogin.largestAdvanceSeconds
                else {
                    return .failure(
                        VerbProblem(":advance takes 1 to \(OneTapLogin.largestAdvanceSeconds) seconds (a year), got '\(text)'"))
                }
                return .success(.advanceBy(seconds))
            }),
        developerStep("d", .delete, "delete", "One-tap: delete the cached credential; the next login pre-fetches again."),
    ]

    public static let footer: [Action] = [.prefetch, .authorize, .exchange, .advance, .network]

    public mutating func start(_ context: inout ScreenContext) -> [Effect] { load(context) }

    public mutating func refresh(_ context: inout ScreenContext) -> [Effect] { load(context) }

    public mutating func perform(_ command: Command, _ context: inout ScreenContext) -> [Effect] {
        switch command {
        case .up, .down, .top, .bottom, .pageUp, .pageDown:
            if context.scrollsDetail(command, &detailScroll) { return [] }
            selected = ListSelection.moved(selected, by: command, count: log.count, page: context.pageSize)
            detailScroll = 0
            return []
        case .open:
            context.focus = .detail
            return []
        default:
            return []
        }
    }

    public mutating func perform(_ action: Action, _ context: inout ScreenContext) -> [Effect] { perform(step: action, &context) }
}
