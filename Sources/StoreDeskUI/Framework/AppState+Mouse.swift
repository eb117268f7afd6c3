import StoreDeskCore

/// The mouse: a click on a tab shows its screen, on a list row selects it, on a pane focuses it; the wheel
/// moves the selection as `j`/`k` do, three rows a notch. Ignored while a prompt, the command line, a filter
/// or an overlay has the keys.
extension AppState {
    static let wheelRows = 3

    mutating func handle(_ event: MouseEvent) -> [Effect] {
        guard mode == .normal, !layout.isTooSmall else { return [] }
        let point = event.point
        switch event {
        case .click:
            if layout[.tabs].contains(point) {
                guard let target = tab(at: point.x) else { return [] }
                return target == screen ? [] : show(target)
            }
            if layout[.list].contains(point) {
                focus = .list
                let list = layout[.list]
                return withCurrent { $0.click(at: point, in: list, &$1) }
            }
            if layout[.detail].contains(point) { focus = .detail }
            return []
        case .wheelUp, .wheelDown:
            let command: Command = if case .wheelUp = event { .up } else { .down }
            if layout[.list].contains(point) { focus = .list } else if layout[.detail].contains(point) { focus = .detail } else { return [] }
            return (0..<Self.wheelRows).flatMap { _ in withCurrent { $0.perform(command, &$1) } }
        }
    }

    /// The tab drawn at column `x` of the tab bar, as `renderTabs` lays them out.
    func tab(at x: Int) -> ScreenID? {
        let rect = layout[.tabs]
        let labels = Self.tabLabels(current: ScreenID.allCases.firstIndex(of: screen) ?? 0, width: rect.width - 1)
        var start = rect.x + 1
        for (id, label) in zip(ScreenID.allCases, labels) {
            let end = start + label.columns
            if x >= start && x < end { return id }
            start = end + 1
        }
        return nil
    }
}

extension ListWindow {
    /// A click on the list drawn in `list` (a frame, then `header` lines, then the rows): the row's index,
    /// or nil off the rows.
    public static func row(at point: Point, in list: Rect, header: Int = 1) -> Int? {
        let inner = list.inset
        let index = point.y - inner.y - header
        guard index >= 0, point.y < inner.y + inner.height else { return nil }
        return index
    }

    /// Selects the clicked row; true when the selection changed.
    public mutating func click(at point: Point, in list: Rect, header: Int = 1) -> Bool {
        guard let index = Self.row(at: point, in: list, header: header), rows.indices.contains(index), index != selected else { return false }
        select(index)
        return true
    }
}
