/// What each list screen offers tab completion: the ids of the rows it shows (`:select`, `:user`).
extension UsersScreen {
    public var completionIds: [String] { rows.map(\.user.id) }
}

extension QueueScreen {
    public var completionIds: [String] { rows.map(\.id) }
}

extension RestoresScreen {
    public var completionIds: [String] { list.rows.map(\.request.transactionId) }
}

extension SubscriptionsScreen {
    public var completionIds: [String] { list.rows.map(\.id) }
}

extension LoginScreen {
    /// The app the Login screen shows: the header's app follows it.
    public var appInView: String? { appId }
}
