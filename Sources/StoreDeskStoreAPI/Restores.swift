import StoreDeskCore

/// A line of the desk's list: the prompt and the app of its transaction (whose ownership rule applies).
public struct RestoreRow: Hashable, Sendable, Identifiable {
    public var request: RestoreRequest
    public var appId: String

    public var cursor: KeysetCursor { KeysetCursor(time: request.createdAt, id: request.id ?? 0) }

    public init(request: RestoreRequest, appId: String) {
        self.request = request
        self.appId = appId
    }

    /// The prompt's id.
    public var id: Int64? { request.id }
}
