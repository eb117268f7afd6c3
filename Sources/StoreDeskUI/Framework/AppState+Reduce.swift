import Foundation
import StoreDeskCore

extension AppState {
    /// The console's update function: applies one action, returns the effects it asks for.
    public mutating func reduce(_ message: Message) -> [Effect] {
        switch message {
        case .key(let key):
            return handle(key)
        case .filterEdits(let keys):
            return handleFilterEdits(keys)
        case .mouse(let event):
            return handle(event)
        case .resize(let newSize):
            let oldRows = layout.listRows
            size = newSize
            guard !layout.isTooSmall else { return [] }
            let resized = withCurrent { $0.resized(&$1) }
            if layout.listRows != oldRows { return resized + withCurrent { $0.refresh(&$1) } }
            return resized
        case .tick(let now):
            clock = now
            return shareClock() + withCurrent { $0.tick(&$1) }
        case .storeWaiting(let waiting):
            storeWaiting = waiting
            return []
        case .storeReachable(let reachable):
            // Found again: the error the outage left on the status line is over.
            if reachable && storeUnreachable && status?.kind == .error { status = StatusMessage("the store's server answers again", .success) }
            storeUnreachable = !reachable
            return []
        case .storeChanged:
            // The store's clock, or the other open consoles' when it is ahead (`SharedClock`).
            let clock: Effect = .read { store in
                .storeClock(try store.clock().map { SharedClock.instant(store: $0, shared: try? store.sharedClock(), wall: Instant(Date())) })
            }
            return [clock] + withCurrent { $0.refresh(&$1) }
        case .storeClock(let storeClock):
            // Another process moved the store's clock on (an import): every view follows it, never back.
            guard clockSource == .store, let storeClock, storeClock > clock else { return [] }
            clock = storeClock
            return withCurrent { $0.tick(&$1) }
        case .appsLoaded(let apps):
            self.apps = apps
            return []
        case .screen(let message):
            return message.deliver(&self)
        case .themeApplied(let name, let warnings):
            themeName = name
            status = warnings.isEmpty
                ? StatusMessage("theme \(name)", .success)
                : StatusMessage("theme \(name): \(warnings[0])" + (warnings.count > 1 ? " (+\(warnings.count - 1) more)" : ""), .warning)
            return []
        case .failed(let message):
            status = StatusMessage(message, .error)
            return []
        case .done(let message):
            status = StatusMessage(message, .success)
            return []
        case .progress(let message):
            // Over no message or an earlier report only: never over what a later action said.
            if status == nil || status?.progress == true { status = StatusMessage(message, .info, progress: true) }
            return []
        case .open(let id, let item):
            let shown = show(id)
            return shown + with(id) { $0.select(id: item, &$1) }
        }
    }

    /// Every `SharedClock.interval` of real time, writes where the console's clock stands, so a console
    /// opened on the same store starts there and commands answer there (a store keeping its own clock,
    /// open for writing; the runtime's ticks carry the wall clock). A store too busy to take it is passed
    /// over: the next interval writes again.
    mutating func shareClock() -> [Effect] {
        guard clockSource == .store, !session.readOnly, let wall else { return [] }
        if let last = clockSharedAt, wall >= last, wall.millis - last.millis < SharedClock.interval.millis { return [] }
        clockSharedAt = wall
        let instant = clock
        return [.write { store in
            try? store.share(clock: instant, wall: wall)
            return .storeClock(nil)
        }]
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
        case .prompt(let prompt): return handlePrompt(key, prompt)
        case .messages(let scroll): return handleMessages(key, scroll: scroll)
        case .normal: break
        }
        if let effects = withCurrent({ $0.intercept(key, &$1) }) { return effects }
        guard let binding = Keymap.binding(for: key, in: self) else {
            // A write key on a read-only store is not registered; it still says why nothing happened.
            if let write = Keymap.writeBinding(for: key, in: self) {
                status = StatusMessage("\(write.help): the store is open read-only, nothing was changed", .warning)
            }
            return []
        }
        // A message belongs to the action that made it: the next one starts without it.
        status = nil
        if let reason = binding.unavailableReason(in: self) {
            status = StatusMessage("\(binding.help): \(reason)", .warning)
            return []
        }
        return binding.run(&self, key)
    }

    mutating func quit() -> [Effect] {
        quitting = true
        return [.quit]
    }

    mutating func perform(_ command: Command) -> [Effect] {
        switch command {
        case .quit: return quit()
        case .help:
            mode = .help(scroll: 0)
            return []
        case .commandLine:
            mode = .command(text: "")
            return []
        case .filter:
            guard let filter = current.filterText else {
                status = StatusMessage("\(screen.title) has no filter", .info)
                return []
            }
            mode = .filter(previous: filter)
            focus = .list
            return []
        case .back:
            if focus == .detail { focus = .list }
            status = nil
            return withCurrent { $0.perform(.back, &$1) }
        case .nextPane, .previousPane:
            focus = focus == .list ? .detail : .list
            return []
        case .nextTab, .previousTab, .goToTab:
            let screens = ScreenID.allCases
            guard let index = screens.firstIndex(of: screen) else { return [] }
            switch command {
            case .nextTab: return show(screens[(index + 1) % screens.count])
            case .previousTab: return show(screens[(index + screens.count - 1) % screens.count])
            case .goToTab(let n):
                guard screens.indices.contains(n - 1) else {
                    status = StatusMessage("no screen \(n): there \(screens.count == 1 ? "is 1 screen" : "are \(screens.count) screens")", .warning)
                    return []
                }
                return show(screens[n - 1])
            default: return []
            }
        case .copy:
            guard let id = current.selectedId else {
                status = StatusMessage("nothing selected to copy", .info)
                return []
            }
            status = StatusMessage("copied \(id)", .success)
            return [.copy(id)]
        case .refresh:
            status = StatusMessage("refreshed")
            return withCurrent { $0.refresh(&$1) }
        case .up, .down, .top, .bottom, .pageUp, .pageDown, .open:
            return withCurrent { $0.perform(command, &$1) }
        }
    }

    /// The shown screen's filter, set by one keystroke.
    mutating func setFilter(_ text: String) -> [Effect] {
        withCurrent { $0.setFilter(text, &$1) }
    }

    mutating func handleFilter(_ key: Key, previous: String) -> [Effect] {
        let filter = current.filterText ?? ""
        switch key {
        case .enter:
            mode = .normal
            // No player matches on Users: the text may be any other id a ticket gives, so `:find` it.
            if screen == .users, !filter.trimmingCharacters(in: .whitespaces).isEmpty {
                let users = screenState(UsersScreen.self)
                if users.rows.isEmpty && users.scanProgress == nil { return reduce(.open(.find, id: filter)) }
            }
            return []
        case .escape:
            mode = .normal
            return setFilter(previous == filter ? "" : previous)
        case .backspace, .ctrl("u"), .character:
            return setFilter(Self.filterEdit(key, of: filter) ?? filter)
        case .down, .up:
            mode = .normal
            return withCurrent { $0.perform(key == .down ? .down : .up, &$1) }
        default:
            return []
        }
    }

    /// The filter's text after `key` edits it (a character added, backspace, Ctrl-U), or nil when `key`
    /// is not an edit of the text.
    static func filterEdit(_ key: Key, of text: String) -> String? {
        switch key {
        case .backspace: String(text.dropLast())
        case .ctrl("u"): ""
        case .character(let c): text + String(c)
        default: nil
        }
    }

    /// Whether `key` would only edit the open `/` filter's text: the runtime hands a run of such keys
    /// waiting together to `handleFilterEdits`.
    func editsFilter(_ key: Key) -> Bool {
        guard case .filter = mode, !layout.isTooSmall else { return false }
        return Self.filterEdit(key, of: "") != nil
    }

    /// A run of keys waiting together in the input (a paste) while the filter is open: each edits the text
    /// in turn, and the list is read once for the text they leave, so N pasted characters cost one read,
    /// not N. Keys that are not edits (or a filter that closed) go through `handle` one by one.
    mutating func handleFilterEdits(_ keys: [Key]) -> [Effect] {
        guard keys.allSatisfy(editsFilter) else { return keys.flatMap { handle($0) } }
        var text = current.filterText ?? ""
        for key in keys { text = Self.filterEdit(key, of: text) ?? text }
        return setFilter(text)
    }
}
