import StoreDeskCore

/// `finishTransaction` by hand, decided once for every backend: refused for a transaction that is not in
/// the queue, that another process's live run has in flight, or that is paid but not yet granted; else
/// what the state machine makes of it, with the event that says who finished it.
public enum FinishTransaction {
    /// - Parameters:
    ///   - transaction: the stored row (nil: no such transaction).
    ///   - liveOwner: the run that has it in flight, when that run's process is alive.
    ///   - order: its order, when it has one.
    public static func decide(
        _ transaction: StoreTransaction?, id: String, liveOwner: Int64?, order: PaymentOrder?
    ) -> Result<StoreTransaction, TransactionRefusal> {
        guard let transaction, !transaction.finished else { return .failure(.notInQueue(transactionId: id)) }
        if let liveOwner { return .failure(.inFlightElsewhere(transactionId: id, run: liveOwner)) }
        if transaction.state == .purchased, order?.status != .granted { return .failure(.notDelivered(orderId: order?.id)) }
        return TransactionStateMachine.apply(.finish, to: transaction)
    }

    /// The event a finish writes, stamped `at` on the store's time line.
    public static func event(_ finished: StoreTransaction, by staff: StaffMember, at: Instant) -> PaymentEvent {
        PaymentEvent(
            at: at, transactionId: finished.id, kind: .finished,
            detail: "finishTransaction by \(staff.name): removed from the queue (\(finished.state.rawValue))")
    }
}
