import Foundation
import StoreDeskCore
import StoreDeskStoreAPI

/// The Login screen in the console: its keys and its reducer's entry points.
extension LoginScreen: ConsoleScreen {
    public static let id = ScreenID("login")
    public static let title = "Login"

    /// Only a developer edits the login configuration (the store checks again when it writes).
    static func developerOnly(_ state: AppState) -> String? {
        state.session.role == .developer ? nil : "only a developer may edit the login configuration"
    }

    public static let bindings: [Binding] = [
        Binding(
            [.character("+")], .screen("add"), help: "add",
            summary: "Add login entries by name (apple, wechat, qq, taptap, guest, xd), checked against the SDK's rules as you type.",
            writes: true, disabledReason: developerOnly),
        Binding(
            [.character("e")], .screen("edit"), help: "edit",
            summary: "Edit the whole list as text (APPLE_LOGIN or apple, ...), checked as you type; an empty list hides every button.",
            writes: true, disabledReason: developerOnly),
        Binding(
            [.character("x"), .delete], .screen("remove"), help: "remove", summary: "Remove the selected login entry.", writes: true,
            disabledReason: developerOnly),
        Binding(
            [.character("K")], .screen("moveup"), help: "move up", summary: "Move the selected login entry up (earlier on the panel).",
            writes: true, disabledReason: developerOnly),
        Binding(
            [.character("J")], .screen("movedown"), help: "move down", summary: "Move the selected login entry down.", writes: true,
            disabledReason: developerOnly),
        Binding(
            [.character("D")], .screen("default"), help: "default",
            summary: "Clear the list back to unconfigured: the SDK's default (WeChat, QQ, guest, Apple, TapTap).", writes: true,
            disabledReason: developerOnly),
        Binding(
            [.character("u")], .screen("revert"), help: "revert", summary: "Drop unsaved edits: back to the saved list.", writes: true,
            disabledReason: developerOnly),
        Binding(
            [.character("w")], .screen("save"), help: "save",
            summary: "Save the list with its history line and an audit line (refused with more than 5, a repeat, or TapTap with XD).", writes: true,
            disabledReason: developerOnly),
        Binding(
            [.character("o")], .screen("platform"), help: "platform",
            summary: "Check and preview on the next platform: iOS 17, iOS 12, Android."),
        Binding([.character("a")], .screen("app"), help: "app", summary: "Show the next app's login entries."),
    ]

    public static let footer: [Command] = [.screen("add"), .screen("remove"), .screen("moveup"), .screen("save"), .screen("platform"), .screen("app")]

    public static let verbs: [ConsoleCommandLine.Verb] = [
        .init(name: "entries", argument: "A,B,...", summary: "set the draft list (SDK names or aliases; empty for none)"),
        .init(name: "platform", argument: "ios|android [VERSION]", summary: "the platform to check and preview"),
        .init(name: "legacy", argument: "hide-guest,qq-web,...", summary: "the draft as the old login switches amount to"),
    ]

    public mutating func start(_ context: inout ScreenContext) -> [Effect] { load(context) }

    public mutating func refresh(_ context: inout ScreenContext) -> [Effect] { load(context) }

    public mutating func apply(_ event: any Sendable, _ context: inout ScreenContext) -> [Effect] {
        guard let event = event as? Event else { return [] }
        return apply(event, &context)
    }

    /// `:select 1003` (and `snapshot --select`): that app's login entries.
    public mutating func select(id: String, _ context: inout ScreenContext) -> [Effect] {
        appId = id
        setup = nil
        editing = nil
        return load(context)
    }

    public mutating func intercept(_ key: Key, _ context: inout ScreenContext) -> [Effect]? { type(key, &context) }

    public mutating func run(verb: String, argument: String, _ context: inout ScreenContext) -> [Effect] {
        switch verb {
        case "entries":
            if let refusal = context.session.developerRefusal("edit the login configuration") {
                context.status = StatusMessage(refusal, .warning)
                return []
            }
            editing = argument
            return type(.enter, &context) ?? []
        case "legacy":
            if let refusal = context.session.developerRefusal("edit the login configuration") {
                context.status = StatusMessage(refusal, .warning)
                return []
            }
            applyLegacy(argument, &context)
            return []
        case "platform":
            let words = argument.split(separator: " ").map(String.init)
            do {
                platform = try LoginPlatform(system: words.first ?? "", version: words.count > 1 ? words[1] : nil)
            } catch {
                context.status = StatusMessage(error.description.replacingOccurrences(of: "--platform", with: ":platform"), .error)
            }
            return []
        default:
            context.status = StatusMessage("unknown command ':\(verb)' on \(Self.title)", .error)
            return []
        }
    }

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
        case .screen("save"):
            return save(&context)
        case .screen("platform"):
            let index = Self.platforms.firstIndex(of: platform) ?? -1
            platform = Self.platforms[(index + 1) % Self.platforms.count]
            context.status = StatusMessage("checking and previewing on \(platform)")
            return []
        case .screen("app"):
            return nextApp(&context)
        case .screen:
            return edit(command, &context)
        default:
            return []
        }
    }
}
