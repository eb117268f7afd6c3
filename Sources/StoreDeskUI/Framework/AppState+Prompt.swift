import StoreDeskCore

/// Where a browse through a history stands: the entry shown (0 is the newest) and the line typed before.
struct HistoryPlace: Sendable, Equatable {
    var index: Int
    var typed: String
}

extension AppState {
    /// The `:` line's key in `history`.
    static let commandHistory = ":"
    /// How many answers a history keeps.
    static let historyLimit = 100

    /// Typing a line a screen asked for. Every key goes to the line (never to the screen behind);
    /// `enter` hands the answer to the screen when `refuse` finds nothing wrong with it, otherwise the
    /// prompt stays open with the reason beside it until the answer is edited; `esc` drops it. A yes/no prompt answers on `y`/`n`.
    mutating func handlePrompt(_ key: Key, _ prompt: Prompt) -> [Effect] {
        var prompt = prompt
        if key == .escape {
            mode = .normal
            // A question is named by its first word (`decline`, `restore`), a line by its label.
            let name = prompt.kind == .yesNo ? String(prompt.label.prefix { $0 != " " }) : prompt.label
            status = StatusMessage("\(name): cancelled, nothing was sent")
            return []
        }
        if prompt.kind == .yesNo {
            switch key {
            case .character(let c) where "yYnN".contains(c):
                return answer(prompt, with: c == "y" || c == "Y" ? "y" : "n")
            case .enter:
                return refuse(prompt, "press y or n (esc cancels)")
            default:
                mode = .prompt(prompt)
                return []
            }
        }
        let typed = prompt.text
        switch key {
        case .enter:
            if let reason = prompt.refuse(prompt.text) { return refuse(prompt, reason) }
            if let historyKey = prompt.historyKey { remember(prompt.text, in: historyKey) }
            return answer(prompt, with: prompt.text)
        case .up, .down:
            guard let historyKey = prompt.historyKey,
                let recalled = browse(historyKey, older: key == .up, from: prompt.browsing, typed: prompt.text)
            else { break }
            prompt.text = recalled.text
            prompt.browsing = recalled.place
        default:
            if prompt.line.edit(key) { prompt.browsing = nil }
        }
        // The reason belonged to the answer it refused: once the answer is edited it no longer applies.
        if prompt.text != typed { prompt.refusal = nil }
        mode = .prompt(prompt)
        return []
    }

    /// The answer goes to the screen as its action; the message it makes is that action's own.
    private mutating func answer(_ prompt: Prompt, with text: String) -> [Effect] {
        mode = .normal
        status = nil
        return reduce(prompt.answer(text))
    }

    /// The prompt stays open, the reason beside it and in the message log.
    private mutating func refuse(_ prompt: Prompt, _ reason: String) -> [Effect] {
        var prompt = prompt
        prompt.refusal = reason
        mode = .prompt(prompt)
        log(StatusMessage(reason, .warning))
        return []
    }

    /// Keeps an answer at the end of its history (once: an earlier equal answer moves to the end).
    mutating func remember(_ text: String, in key: String) {
        guard !text.trimmingCharacters(in: .whitespaces).isEmpty else { return }
        var list = history[key, default: []]
        list.removeAll { $0 == text }
        list.append(text)
        if list.count > Self.historyLimit { list.removeFirst(list.count - Self.historyLimit) }
        history[key] = list
    }

    /// ↑ (`older`) or ↓ through a history: the text to show and where the browse stands then (nil: back
    /// at the line typed before browsing), or nil when there is nothing further that way.
    func browse(_ key: String, older: Bool, from place: HistoryPlace?, typed: String) -> (text: String, place: HistoryPlace?)? {
        let list = history[key] ?? []
        let typedBefore = place?.typed ?? typed
        if older {
            let next = place.map { $0.index + 1 } ?? 0
            guard next < list.count else { return nil }
            return (list[list.count - 1 - next], HistoryPlace(index: next, typed: typedBefore))
        }
        guard let place else { return nil }
        if place.index == 0 { return (typedBefore, nil) }
        return (list[list.count - place.index], HistoryPlace(index: place.index - 1, typed: typedBefore))
    }
}
