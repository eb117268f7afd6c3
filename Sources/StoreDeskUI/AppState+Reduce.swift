import Foundation
import StoreDeskCore
import StoreDeskStore

extension AppState {
    /// The console's update function: applies one action, returns the effects it asks for.
    public mutating func reduce(_ action: Action) -> [Effect] {
        switch action {
        case .key(let key):
            return handle(key)
        case .resize(let newSize):
            let oldRows = layout.listRows
            size = newSize
            if layout.listRows != oldRows && !layout.isTooSmall { return users.refresh(pageSize: layout.listRows) }
            return []
        case .tick(let now):
            clock = now
            return []
        case .storeChanged:
            return users.refresh(pageSize: layout.listRows)
        case .appsLoaded(let apps):
            self.apps = apps
            return []
        case .users(let event):
            return users.apply(event, pageSize: layout.listRows)
        case .themeApplied(let name, let warnings):
            themeName = name
            status = warnings.isEmpty
                ? StatusMessage("theme \(name)", .success)
                : StatusMessage("theme \(name): \(warnings[0])" + (warnings.count > 1 ? " (+\(warnings.count - 1) more)" : ""), .warning)
            return []
        case .failed(let message):
            status = StatusMessage(message, .error)
            return []
        }
    }

    mutating func handle(_ key: Key) -> [Effect] {
        // Ctrl-C always quits, whatever is being typed.
        if key == .ctrl("c") { return quit() }
        if layout.isTooSmall {
            return key == .character("q") ? quit() : []
        }
        switch mode {
        case .filter(let previous): return handleFilter(key, previous: previous)
        case .command(let text): return handleCommandLine(key, text: text)
        case .help(let scroll): return handleHelp(key, scroll: scroll)
        case .normal: break
        }
        guard let binding = Keymap.binding(for: key, in: self) else { return [] }
        if let reason = binding.unavailableReason(in: self) {
            status = StatusMessage("\(binding.help): \(reason)", .warning)
            return []
        }
        var command = binding.command
        if case .goToTab = command, case .character(let c) = key, let n = c.wholeNumberValue { command = .goToTab(n) }
        return perform(command)
    }

    mutating func quit() -> [Effect] {
        quitting = true
        return [.quit]
    }

    mutating func perform(_ command: Command) -> [Effect] {
        let pageSize = layout.listRows
        switch command {
        case .quit: return quit()
        case .help:
            mode = .help(scroll: 0)
            return []
        case .commandLine:
            mode = .command(text: "")
            return []
        case .filter:
            mode = .filter(previous: users.filter)
            focus = .list
            return []
        case .back:
            if focus == .detail { focus = .list }
            status = nil
            return []
        case .nextPane, .previousPane:
            focus = focus == .list ? .detail : .list
            return []
        case .nextTab, .previousTab, .goToTab:
            let screens = ScreenID.allCases
            guard let index = screens.firstIndex(of: screen) else { return [] }
            switch command {
            case .nextTab: screen = screens[(index + 1) % screens.count]
            case .previousTab: screen = screens[(index + screens.count - 1) % screens.count]
            case .goToTab(let n):
                guard screens.indices.contains(n - 1) else {
                    status = StatusMessage("no screen \(n): there \(screens.count == 1 ? "is 1 screen" : "are \(screens.count) screens")", .warning)
                    return []
                }
                screen = screens[n - 1]
            default: break
            }
            return []
        case .up, .down, .top, .bottom, .pageUp, .pageDown:
            if focus == .detail {
                switch command {
                case .up: users.detailScroll = max(0, users.detailScroll - 1)
                case .down: users.detailScroll += 1
                case .pageUp: users.detailScroll = max(0, users.detailScroll - pageSize)
                case .pageDown: users.detailScroll += pageSize
                case .top: users.detailScroll = 0
                default: break
                }
                return []
            }
            return users.move(command, pageSize: pageSize)
        case .open:
            focus = .detail
            return users.profileEffect()
        case .refresh:
            status = StatusMessage("refreshed")
            return users.refresh(pageSize: pageSize)
        case .revealPhone:
            guard let user = users.selectedRow?.user else { return [] }
            guard !user.phone.isEmpty else {
                status = StatusMessage("\(user.id) has no phone number", .info)
                return []
            }
            let entry = AuditEntry(
                at: clock, actor: session.actor, role: session.role.rawValue, action: "reveal.phone", subject: user.id,
                detail: "phone revealed on the Users screen")
            return [.write { db in
                try db.recordAudit(entry)
                return .users(.revealed(userId: user.id))
            }]
        }
    }

    mutating func handleFilter(_ key: Key, previous: String) -> [Effect] {
        let pageSize = layout.listRows
        switch key {
        case .enter:
            mode = .normal
            return []
        case .escape:
            mode = .normal
            return users.setFilter(previous == users.filter ? "" : previous, pageSize: pageSize)
        case .backspace:
            return users.setFilter(String(users.filter.dropLast()), pageSize: pageSize)
        case .ctrl("u"):
            return users.setFilter("", pageSize: pageSize)
        case .character(let c):
            return users.setFilter(users.filter + String(c), pageSize: pageSize)
        case .down, .up:
            mode = .normal
            return users.move(key == .down ? .down : .up, pageSize: pageSize)
        default:
            return []
        }
    }

    mutating func handleHelp(_ key: Key, scroll: Int) -> [Effect] {
        switch key {
        case .escape, .character("?"), .character("q"): mode = .normal
        case .character("j"), .down: mode = .help(scroll: scroll + 1)
        case .character("k"), .up: mode = .help(scroll: max(0, scroll - 1))
        case .pageDown, .character(" "): mode = .help(scroll: scroll + 10)
        case .pageUp: mode = .help(scroll: max(0, scroll - 10))
        case .character("g"), .home: mode = .help(scroll: 0)
        default: break
        }
        return []
    }
}
