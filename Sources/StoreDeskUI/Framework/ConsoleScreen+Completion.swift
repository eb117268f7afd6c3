/// What each list screen offers tab completion (the ids of the rows it shows: `:select`, `:user`; the
/// columns `:sort` takes), the selected row's id that `y` copies, and what a click on a row does: select it,
/// as `j`/`k` would, with the detail that follows the selection.
extension UsersScreen {
    public var completionIds: [String] { rows.map(\.user.id) }
    public var sortColumns: [String] { Self.sortable }
    public var selectedId: String? { selectedRow?.user.id }

    public mutating func click(at point: Point, in list: Rect, _ context: inout ScreenContext) -> [Effect] {
        guard self.list.click(at: point, in: list) else { return [] }
        detailScroll = 0
        return selectionEffects()
    }
}

extension QueueScreen {
    public var completionIds: [String] { rows.map(\.id) }
    public var selectedId: String? { selectedRow?.id }

    /// The list is drawn below the queue's counters (two lines, three with deliveries).
    public mutating func click(at point: Point, in list: Rect, _ context: inout ScreenContext) -> [Effect] {
        let height = showsDeliveries ? 3 : 2
        let below = Rect(x: list.x, y: list.y + height, width: list.width, height: list.height - height)
        guard self.list.click(at: point, in: below) else { return [] }
        detailScroll = 0
        return detailEffect()
    }
}

extension RestoresScreen {
    public var completionIds: [String] { list.rows.map(\.request.transactionId) }
    public var selectedId: String? { list.selectedRow?.request.transactionId }

    public mutating func click(at point: Point, in rect: Rect, _ context: inout ScreenContext) -> [Effect] {
        guard picking == nil, list.click(at: point, in: rect) else { return [] }
        detailScroll = 0
        pinned = nil
        return detailEffect()
    }
}

extension SubscriptionsScreen {
    public var completionIds: [String] { list.rows.map(\.id) }
    public var selectedId: String? { list.selectedRow?.id }

    /// The rows are drawn below the state bar and the column titles.
    public mutating func click(at point: Point, in rect: Rect, _ context: inout ScreenContext) -> [Effect] {
        guard list.click(at: point, in: rect, header: 2) else { return [] }
        detailScroll = 0
        return detailEffect()
    }
}

extension AuditScreen {
    public var selectedId: String? { list.selectedRow?.id.map(String.init) }

    public mutating func click(at point: Point, in rect: Rect, _ context: inout ScreenContext) -> [Effect] {
        if list.click(at: point, in: rect) { detailScroll = 0 }
        return []
    }
}

extension FindScreen {
    /// The id found (what the ticket gave), as the list shows it.
    public var selectedId: String? { selectedResult?.matched }
}

extension CodesScreen {
    public var selectedId: String? { selectedRow?.code }
}

extension LoginScreen {
    /// The app the Login screen shows: the header's app follows it.
    public var appInView: String? { appId }
}
