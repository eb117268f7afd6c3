/// What a confirmed restore delivered: the platform order, the signed callback the game server
/// accepted, and the grant. The detail pane and `restore list` show it.
public struct RestoreDelivery: Hashable, Sendable {
    public var order: PaymentOrder
    public var callback: CallbackAttempt?
    public var grant: Grant?

    public init(order: PaymentOrder, callback: CallbackAttempt?, grant: Grant?) {
        self.order = order
        self.callback = callback
        self.grant = grant
    }
}

/// A restore decision ready to commit in one SQLite transaction: the prompt as it becomes, the
/// rows and events it writes (for a confirm: the finished transaction, the order, the accepted
/// callback and the grant), and the audit line.
public struct RestoreDecision: Hashable, Sendable {
    public var request: RestoreRequest
    public var change: PaymentChange
    public var audit: AuditEntry

    public init(request: RestoreRequest, change: PaymentChange, audit: AuditEntry) {
        self.request = request
        self.change = change
        self.audit = audit
    }

    /// The order, callback and grant a confirm writes (nil for a decline).
    public var delivery: RestoreDelivery? {
        change.order.map { RestoreDelivery(order: $0, callback: change.callback, grant: change.grant) }
    }
}
