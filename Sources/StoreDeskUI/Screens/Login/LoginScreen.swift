import Foundation
import StoreDeskCore
import StoreDeskStoreAPI

extension ScreenID {
    public static let login = LoginScreen.id
}

/// The Login screen: one game's login entries (the SDK's setLoginEntries) as a draft a developer edits
/// (add, remove, move, or type the list with every keystroke checked), the rule verdicts with their
/// codes, a preview of the login panel the game would show, the integration checklist the list implies,
/// and who changed it when. Saving writes the list, its history line and an audit line together.
public struct LoginScreen: Sendable {
    /// The game shown; nil until the apps are known (then the console's app).
    public var appId: String?
    public var apps: [App] = []
    public var setup: LoginEntrySetup?
    /// The list being edited; nil is unconfigured (the SDK's default). Any change drops `legacy`.
    public var draft: [LoginEntry]? {
        didSet { legacy = nil }
    }
    /// The old switches the draft was made from (`:legacy`), for their web marks and notes.
    public var legacy: LegacyLoginSwitches?
    /// The selected entry of the draft.
    public var selected = 0
    /// The device the verdicts and the preview are for.
    public var platform = LoginPlatform.iPhone
    /// The list typed as text, while the inline editor is open; every keystroke re-checks it.
    public var editing: String?
    public var detailScroll = 0

    public init() {}

    public enum Event: Sendable {
        case loaded(apps: [App], setup: LoginEntrySetup)
        case saved(LoginEntryHistory?, LoginEntrySetup)
    }

    /// iOS 17, iOS 12, Android: the platforms `o` steps through.
    static let platforms = [LoginPlatform.iPhone, LoginPlatform(system: .ios, majorVersion: 12), LoginPlatform(system: .android)]

    /// The saved list.
    public var saved: [LoginEntry]? { setup?.entries }
    /// The draft differs from what is saved.
    public var isDirty: Bool { setup != nil && draft != saved }

    /// The draft, or what the editor's text reads as while typing (nil when a word is no entry).
    var checkedList: Result<[LoginEntry]?, LoginEntryListError> {
        guard let editing else { return .success(draft) }
        do {
            return .success(try LoginEntry.list(editing))
        } catch {
            return .failure(error)
        }
    }

    /// Everything the list implies, for the verdicts, the preview and the checklist.
    var report: LoginEntryReport? {
        guard let setup, case .success(let list) = checkedList else { return nil }
        if let legacy, editing == nil {
            return LoginEntryReport(appId: setup.app.id, configuration: setup.configuration, legacy: legacy, platform: platform)
        }
        return LoginEntryReport(appId: setup.app.id, configuration: setup.configuration, entries: .some(list), platform: platform)
    }

    /// What the preview shows: the report, or while the editor's text is not a list yet (a word half
    /// typed, `wx,tap,xd_lo`), the report of its entries up to the last whole one, so the preview
    /// never goes blank mid-word; `partial` says it is that.
    var previewReport: (report: LoginEntryReport, partial: Bool)? {
        if let report { return (report, false) }
        guard let setup, let editing else { return nil }
        var parts = editing.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        while !parts.isEmpty {
            parts.removeLast()
            if let list = try? LoginEntry.list(parts.joined(separator: ",")) {
                return (LoginEntryReport(appId: setup.app.id, configuration: setup.configuration, entries: .some(list), platform: platform), true)
            }
        }
        return nil
    }

    /// The draft as the editor starts it: aliases, comma-separated.
    static func text(_ entries: [LoginEntry]) -> String { entries.map(\.alias).joined(separator: ",") }

    mutating func load(_ context: ScreenContext) -> [Effect] {
        let wanted = appId ?? context.app?.id
        return [
            Self.read { store in
                let apps = try store.apps()
                guard let id = wanted ?? apps.first?.id else { throw StoreError.invalidArgument("the store has no app") }
                return .loaded(apps: apps, setup: try store.loginEntrySetup(appId: id, historyLimit: 10))
            }
        ]
    }

    public mutating func apply(_ event: Event, _ context: inout ScreenContext) -> [Effect] {
        switch event {
        case .loaded(let apps, let setup):
            let changedApp = self.setup?.app.id != setup.app.id
            let keepDraft = !changedApp && isDirty
            self.apps = apps
            self.appId = setup.app.id
            self.setup = setup
            if !keepDraft {
                draft = setup.entries
                selected = 0
            }
            if changedApp { detailScroll = 0 }
        case .saved(let change, let setup):
            self.setup = setup
            draft = setup.entries
            selected = min(selected, max(0, (draft?.count ?? 1) - 1))
            context.status = change.map { StatusMessage("saved \(setup.app.id): \($0.change)", .success) }
                ?? StatusMessage("\(setup.app.id): unchanged", .info)
        }
        return []
    }

    /// The draft's entries as the list pane shows them (the SDK's default while unconfigured).
    var shownEntries: [LoginEntry] { draft ?? LoginEntry.sdkDefault }

    mutating func edit(_ action: Action, _ context: inout ScreenContext) -> [Effect] {
        var list = shownEntries
        switch action {
        case .remove:
            guard list.indices.contains(selected) else { return [] }
            let removed = list.remove(at: selected)
            context.status = StatusMessage("removed \(removed.rawValue) (w saves)")
            selected = max(0, min(selected, list.count - 1))
        case .moveUp, .moveDown:
            let target = action == .moveUp ? selected - 1 : selected + 1
            guard list.indices.contains(selected), list.indices.contains(target) else { return [] }
            list.swapAt(selected, target)
            selected = target
        case .add:
            editing = Self.text(shownEntries) + (shownEntries.isEmpty ? "" : ",")
            context.status = StatusMessage("type entries (apple, wechat, qq, taptap, guest, xd), checked as you type; enter keeps, esc cancels")
            return []
        case .edit:
            editing = Self.text(shownEntries)
            context.status = StatusMessage("edit the list, checked as you type; enter keeps, esc cancels")
            return []
        case .sdkDefault:
            draft = nil
            selected = 0
            context.status = StatusMessage("back to the SDK's default (w saves)")
            return []
        case .revert:
            draft = saved
            selected = 0
            context.status = StatusMessage("edits dropped")
            return []
        default:
            return []
        }
        draft = list
        return []
    }

    /// Keys while the inline editor is open: text in, the verdicts follow each keystroke.
    mutating func type(_ key: Key, _ context: inout ScreenContext) -> [Effect]? {
        guard let text = editing else { return nil }
        switch key {
        case .escape:
            editing = nil
            context.status = StatusMessage("edit cancelled")
        case .enter:
            switch checkedList {
            case .success(let list):
                draft = list
                editing = nil
                selected = max(0, (list?.count ?? 1) - 1)
                context.status = StatusMessage("draft \(LoginEntryHistory.text(list)) (w saves)")
            case .failure(let error):
                context.status = StatusMessage(error.description, .error)
            }
        case .backspace:
            editing = String(text.dropLast())
        case .ctrl("u"):
            editing = ""
        case .character(let c):
            editing = text + String(c)
        default:
            break
        }
        return []
    }

    mutating func save(_ context: inout ScreenContext) -> [Effect] {
        guard let setup else { return [] }
        let broken = LoginEntryRules.violationsOnEveryPlatform(draft)
        guard broken.isEmpty else {
            context.status = StatusMessage("not saved: " + broken.map(\.code).joined(separator: ", ") + " (fix the list first)", .error)
            return []
        }
        let (staff, list, appId, now) = (context.session.staff, draft, setup.app.id, context.clock)
        return [
            Self.write { store in
                let change = try store.setLoginEntries(list, appId: appId, by: staff, surface: "console", at: now)
                return .saved(change, try store.loginEntrySetup(appId: appId, historyLimit: 10))
            }
        ]
    }

    mutating func nextApp(_ context: inout ScreenContext) -> [Effect] {
        guard !apps.isEmpty else { return [] }
        let index = apps.firstIndex { $0.id == appId } ?? -1
        appId = apps[(index + 1) % apps.count].id
        editing = nil
        if isDirty { context.status = StatusMessage("unsaved edits of \(setup?.app.id ?? "") dropped", .warning) }
        setup = nil
        return load(context)
    }

    /// `:legacy hide-guest,qq-web`: the draft becomes the list the old switches amount to.
    mutating func applyLegacy(_ text: String, _ context: inout ScreenContext) {
        do {
            let switches = try LegacyLoginSwitches(list: text)
            draft = switches.effect.entries
            legacy = switches
            selected = 0
            let notes = switches.effect.notes
            context.status = StatusMessage(
                "legacy switches as a list: \(LoginEntryHistory.text(draft))" + (notes.isEmpty ? "" : "; " + notes.joined(separator: "; ")))
        } catch {
            context.status = StatusMessage(error.description, .error)
        }
    }
}
