/// A selection moved through a list held in memory (no paging from the store).
public enum ListSelection {
    /// The row selected after a move, kept within `count` rows.
    public static func moved(_ selected: Int, by command: Command, count: Int, page: Int) -> Int {
        let last = max(0, count - 1)
        switch command {
        case .up: return max(0, selected - 1)
        case .down: return min(last, selected + 1)
        case .pageUp: return max(0, selected - page)
        case .pageDown: return min(last, selected + page)
        case .top: return 0
        case .bottom: return last
        default: return selected
        }
    }
}

/// Scrolling a detail pane by the list's move commands: the same on every screen.
public enum DetailScroll {
    public static func moved(_ scroll: Int, by command: Command, page: Int) -> Int {
        switch command {
        case .up: max(0, scroll - 1)
        case .down: scroll + 1
        case .pageUp: max(0, scroll - page)
        case .pageDown: scroll + page
        case .top: 0
        default: scroll
        }
    }
}
