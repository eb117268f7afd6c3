import Foundation
import StoreDeskCore
import StoreDeskStoreAPI

extension AppState {
    /// The console's view: draws the whole frame into a canvas. Reads only the state.
    public func render() -> Canvas {
        var canvas = Canvas(size: size)
        let layout = self.layout
        guard !layout.isTooSmall else {
            renderTooSmall(into: &canvas)
            return canvas
        }
        renderHeader(into: &canvas, rect: layout[.header])
        renderTabs(into: &canvas, rect: layout[.tabs])
        current.render(into: &canvas, layout: layout, context: context)
        renderFooter(into: &canvas, rect: layout[.footer])
        switch mode {
        case .help(let scroll): renderHelp(into: &canvas, scroll: scroll)
        case .messages(let scroll): renderMessages(into: &canvas, scroll: scroll)
        default: break
        }
        renderStatus(into: &canvas, footer: layout[.footer], status: layout[.status])
        if glyphs == .ascii { canvas.useASCIISymbols() }
        return canvas
    }

    func renderTooSmall(into canvas: inout Canvas) {
        let need = Layout.minimum
        let message = "terminal too small: need \(need.width)x\(need.height), have \(size.width)x\(size.height)"
        var lines = wrap(message, width: size.width)
        let firstHint = lines.count
        lines += wrap("enlarge the window, or press q to quit", width: size.width)
        for (i, line) in lines.enumerated() where i < size.height {
            canvas.write(line, at: Point(x: 0, y: i), role: i < firstHint ? .statusWarning : .muted, maxWidth: size.width)
        }
    }

    /// Breaks text at spaces so that no line is wider than `width` columns.
    func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            let candidate = line.isEmpty ? String(word) : line + " " + word
            if candidate.columns <= width || line.isEmpty {
                line = candidate
            } else {
                lines.append(line)
                line = String(word)
            }
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }

    func renderHeader(into canvas: inout Canvas, rect: Rect) {
        canvas.fill(rect, role: .header)
        var x = rect.x
        x += canvas.write(" StoreDesk ", at: Point(x: x, y: rect.y), role: .headerBadge)
        let badge = session.readOnly ? " RO " : ""
        // A store slower than a frame (a server far away, a lock held), or a server gone: said, never a
        // frozen screen.
        let waiting = storeUnreachable ? " reconnecting… " : storeWaiting ? " loading… " : ""
        let available = max(0, rect.width - (x - rect.x) - badge.columns - waiting.columns - 1)
        canvas.write(headerText(width: available), at: Point(x: x, y: rect.y), role: .header, maxWidth: available)
        if !waiting.isEmpty {
            canvas.write(waiting, at: Point(x: rect.x + rect.width - badge.columns - waiting.columns, y: rect.y), role: .headerBadge)
        }
        if session.readOnly {
            canvas.write(badge, at: Point(x: rect.x + rect.width - badge.columns, y: rect.y), role: .readOnlyBadge)
        }
    }

    /// The store as the header names it: a file by its name, a store at an address (a team store's
    /// `postgres://user@host:port/db`) as `db@host:port`, the port left out when it is the scheme's usual one.
    static func storeLabel(_ location: String) -> String {
        guard location.contains("://"), let address = URLComponents(string: location), let host = address.host, !host.isEmpty else {
            return (location as NSString).lastPathComponent
        }
        let database = address.path.hasPrefix("/") ? String(address.path.dropFirst()) : address.path
        let port = address.port.map { $0 == 5432 ? "" : ":\($0)" } ?? ""
        return (database.isEmpty ? "" : database + "@") + (host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host) + port
    }

    /// The header's facts, dropping the least useful ones first when the terminal is narrow.
    func headerText(width: Int) -> String {
        let file = Self.storeLabel(storePath)
        let role = session.role.rawValue
        let actor = session.actor.isEmpty ? "" : " · " + session.actor
        let appText = app.map { "\($0.name) (\($0.id))" }
        let appShort = app.map(\.name)
        // The clock always says whose it is: `store clock …` or `wall clock …`, `store …` when narrow.
        let seconds = clock.secondsText(in: timeZone)
        let time = clockSource.label + " " + seconds
        let shortTime = clockSource.rawValue + " " + String(seconds.suffix(8))
        let candidates: [[String?]] = [
            [appText, environment.rawValue, file, time, role + actor],
            [appText, environment.rawValue, file, time, role],
            [appShort, environment.rawValue, file, time, role],
            [appShort, environment.rawValue, time, role],
            [appShort, environment.rawValue, shortTime, role],
            [appShort, shortTime, role],
        ]
        for candidate in candidates {
            let text = " " + candidate.compactMap { $0 }.joined(separator: " │ ")
            if text.columns <= width { return text }
        }
        return " " + [appShort, shortTime, role].compactMap { $0 }.joined(separator: " │ ")
    }

    /// The tabs, each ` N Title `; when they do not all fit, `N Title` with one space between; then the
    /// other tabs by their short titles (`5 Subs`), then the current one too (its pane's frame still
    /// says its whole title), so at 80 columns every tab has a name; narrower, the tabs farthest from
    /// the current one shrink to their number, so the current tab is always named and every other one
    /// can still be reached by its number.
    func renderTabs(into canvas: inout Canvas, rect: Rect) {
        let labels = Self.tabLabels(current: ScreenID.allCases.firstIndex(of: screen) ?? 0, width: rect.width - 1)
        var x = rect.x + 1
        for (id, label) in zip(ScreenID.allCases, labels) where x < rect.x + rect.width {
            x += canvas.write(label, at: Point(x: x, y: rect.y), role: id == screen ? .tabActive : .tab, maxWidth: rect.x + rect.width - x)
            x += 1
        }
    }

    /// The tab bar's labels for `width` columns, the tab at `current` named (whole but at about 80).
    static func tabLabels(current: Int, width: Int) -> [String] {
        let titles = ScreenID.allCases.enumerated().map { "\($0.offset + 1) \($0.element.title)" }
        func fits(_ labels: [String]) -> Bool { labels.reduce(0) { $0 + $1.columns + 1 } <= width + 1 }
        let roomy = titles.map { " \($0) " }
        if fits(roomy) { return roomy }
        if fits(titles) { return titles }
        let short = ScreenID.allCases.enumerated().map { "\($0.offset + 1) \($0.element.shortTitle)" }
        var labels = short.indices.map { $0 == current ? titles[$0] : short[$0] }
        if fits(labels) { return labels }
        if fits(short) { return short }
        // Narrower: the current tab whole again, the others shrinking to their number.
        // Farthest from the current tab first; of two as far, the one on the right.
        let order = labels.indices.filter { $0 != current }.sorted { (abs($0 - current), $0) > (abs($1 - current), $1) }
        for i in order where !fits(labels) { labels[i] = "\(i + 1)" }
        return labels
    }

    /// The footer's hints, as many as fit, and always `? help` at the end: the way to every other key.
    func renderFooter(into canvas: inout Canvas, rect: Rect) {
        let bindings = Keymap.footer(for: screen).filter { !($0.writes && session.readOnly) }
        let help = bindings.first { $0.command == .help }
        // `? help` ends the line: it needs its own columns, not the two spaces after a hint.
        let helpWidth = help.map { $0.keys[0].label.columns + 1 + $0.help.columns } ?? 0
        var x = rect.x + 1
        for binding in bindings where binding.command != .help {
            let disabled = binding.unavailableReason(in: self) != nil
            let key = binding.command == .down ? "j/k" : binding.keys[0].label
            let width = key.columns + 1 + binding.help.columns
            guard x + width + 2 + helpWidth <= rect.x + rect.width else { break }
            x += canvas.write(key, at: Point(x: x, y: rect.y), role: disabled ? .helpDisabled : .footerKey)
            x += 1
            x += canvas.write(binding.help, at: Point(x: x, y: rect.y), role: disabled ? .helpDisabled : .footerText)
            x += 2
        }
        if let help {
            x += canvas.write(help.keys[0].label, at: Point(x: x, y: rect.y), role: .footerKey)
            canvas.write(help.help, at: Point(x: x + 1, y: rect.y), role: .footerText)
        }
    }
}
