/// What each list screen offers tab completion (the ids of the rows it shows: `:select`, `:user`; the
/// columns `:sort` takes), and the selected row's id that `y` copies.
extension UsersScreen {
    public var completionIds: [String] { rows.map(\.user.id) }
    public var sortColumns: [String] { Self.sortable }
    public var selectedId: String? { selectedRow?.user.id }
}

extension QueueScreen {
    public var completionIds: [String] { rows.map(\.id) }
    public var selectedId: String? { selectedRow?.id }
}

extension RestoresScreen {
    public var completionIds: [String] { list.rows.map(\.request.transactionId) }
    public var selectedId: String? { list.selectedRow?.request.transactionId }
}

extension SubscriptionsScreen {
    public var completionIds: [String] { list.rows.map(\.id) }
    public var selectedId: String? { list.selectedRow?.id }
}

extension AuditScreen {
    public var selectedId: String? { list.selectedRow?.id.map(String.init) }
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
