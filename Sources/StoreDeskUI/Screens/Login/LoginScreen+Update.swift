import Foundation
import StoreDeskCore
import StoreDeskStoreAPI

/// The Login screen in the console: its keys and its reducer's entry points.
extension LoginScreen: ConsoleScreen {
    public static let id = ScreenID("login")
    public static let title = "Login"
    /// The preview of the login panel and the checklist are the point: the detail pane keeps half.
    public static let widensList = false

    /// What this screen's keys and verbs ask for.
    public enum Action: Sendable, Equatable {
        case add, edit, remove, moveUp, moveDown, sdkDefault, revert, save
        /// `:entries A,B,...`: the draft typed as a list.
        case entries(String)
        /// `:legacy hide-guest,...`: the draft the old switches amount to.
        case legacy(String)
        case nextPlatform
        case platform(LoginPlatform)
        case nextApp
    }

    /// Only a developer edits the login configuration (the store checks again when it writes).
    static func edits(
        _ keys: Key..., action: Action, help: String, summary: String, verb: ScreenVerb<LoginScreen>? = nil
    ) -> ScreenCommand<LoginScreen> {
        ScreenCommand(
            keys: keys, action: action, help: help, summary: summary, permission: .editLoginConfiguration, writes: true,
            unavailable: nil, verb: verb)
    }

    public static let commands: [ScreenCommand<LoginScreen>] = [
        edits(
            .character("+"), action: .add, help: "add",
            summary: "Add login entries by name (apple, wechat, qq, taptap, guest, xd), checked against the SDK's rules as you type."),
        edits(
            .character("e"), action: .edit, help: "edit",
            summary: "Edit the whole list as text (APPLE_LOGIN or apple, ...), checked as you type; an empty list hides every button.",
            verb: ScreenVerb("entries", argument: "A,B,...", summary: "set the draft list (SDK names or aliases; empty for none)") {
                .success(.entries($0))
            }),
        edits(.character("x"), .delete, action: .remove, help: "remove", summary: "Remove the selected login entry."),
        edits(.character("K"), action: .moveUp, help: "move up", summary: "Move the selected login entry up (earlier on the panel)."),
        edits(.character("J"), action: .moveDown, help: "move down", summary: "Move the selected login entry down."),
        edits(
            .character("D"), action: .sdkDefault, help: "default",
            summary: "Clear the list back to unconfigured: the SDK's default (WeChat, QQ, guest, Apple, TapTap)."),
        edits(.character("u"), action: .revert, help: "revert", summary: "Drop unsaved edits: back to the saved list."),
        edits(
            .character("w"), action: .save, help: "save",
            summary: "Save the list with its history line and an audit line (refused with more than 5, a repeat, or TapTap with XD)."),
        .key(
            .character("o"), action: .nextPlatform, help: "platform", summary: "Check and preview on the next platform: iOS 17, iOS 12, Android.",
            verb: ScreenVerb("platform", argument: "ios|android [VERSION]", summary: "the platform to check and preview") { text in
                let words = text.split(separator: " ").map(String.init)
                do throws(LoginPlatformError) {
                    return .success(.platform(try LoginPlatform(system: words.first ?? "", version: words.count > 1 ? words[1] : nil)))
                } catch {
                    return .failure(VerbProblem(error.description.replacingOccurrences(of: "--platform", with: ":platform")))
                }
            }),
        .key(.character("a"), action: .nextApp, help: "app", summary: "Show the next app's login entries."),
        .verb(
            "legacy", argument: "hide-guest,qq-web,...", summary: "the draft as the old login switches amount to",
            permission: .editLoginConfiguration, writes: true
        ) { .success(.legacy($0)) },
    ]

    public static let footer: [Action] = [.add, .remove, .moveUp, .save, .nextPlatform, .nextApp]

    public mutating func start(_ context: inout ScreenContext) -> [Effect] { load(context) }

    public mutating func refresh(_ context: inout ScreenContext) -> [Effect] { load(context) }

    /// `:select 1003` (and `snapshot --select`): that app's login entries.
    public mutating func select(id: String, _ context: inout ScreenContext) -> [Effect] {
        appId = id
        setup = nil
        editing = nil
        return load(context)
    }

    public mutating func intercept(_ key: Key, _ context: inout ScreenContext) -> [Effect]? { type(key, &context) }

    public mutating func perform(_ command: Command, _ context: inout ScreenContext) -> [Effect] {
        switch command {
        case .up, .down, .top, .bottom, .pageUp, .pageDown:
            if context.scrollsDetail(command, &detailScroll) { return [] }
            selected = ListSelection.moved(selected, by: command, count: shownEntries.count, page: context.pageSize)
            return []
        case .open:
            context.focus = .detail
            return []
        case .back:
            editing = nil
            return []
        default:
            return []
        }
    }

    public mutating func perform(_ action: Action, _ context: inout ScreenContext) -> [Effect] {
        switch action {
        case .save:
            return save(&context)
        case .nextPlatform:
            let index = Self.platforms.firstIndex(of: platform) ?? -1
            platform = Self.platforms[(index + 1) % Self.platforms.count]
            context.status = StatusMessage("checking and previewing on \(platform)")
            return []
        case .platform(let chosen):
            platform = chosen
            return []
        case .nextApp:
            return nextApp(&context)
        case .entries(let text):
            editing = text
            return type(.enter, &context) ?? []
        case .legacy(let text):
            applyLegacy(text, &context)
            return []
        case .add, .edit, .remove, .moveUp, .moveDown, .sdkDefault, .revert:
            return edit(action, &context)
        }
    }
}
