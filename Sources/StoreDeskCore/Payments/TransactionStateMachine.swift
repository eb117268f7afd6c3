/// What can happen to an `SKPaymentTransaction` on the payment queue.
public enum TransactionEvent: Hashable, Sendable, CustomStringConvertible {
    /// The App Store charged the player.
    case purchase
    /// The payment failed (cancelled, network, …).
    case fail(FailureReason)
    /// Ask to Buy: waiting for a parent.
    case askToBuy
    /// The parent approved a deferred purchase.
    case approve
    /// The parent declined a deferred purchase.
    case decline
    /// The app called `finishTransaction` after delivering (or giving up).
    case finish

    public var description: String {
        switch self {
        case .purchase: "purchase"
        case .fail(let reason): "fail (\(reason.rawValue))"
        case .askToBuy: "ask to buy"
        case .approve: "approve"
        case .decline: "decline"
        case .finish: "finish"
        }
    }
}

/// Why the queue refused something. Never a crash: a refusal is a value the console shows.
public enum TransactionRefusal: Error, Hashable, Sendable {
    /// The player already has an open purchase of this product (purchasing, deferred, or paid but not
    /// finished): StoreKit would not start a second one.
    case alreadyPurchasing(transactionId: String)
    /// Only purchased, failed and restored transactions may be finished.
    case cannotFinish(TransactionState)
    case alreadyFinished
    /// The event does not apply to a transaction in this state (e.g. approving one that is not deferred).
    case notAllowed(event: TransactionEvent, state: TransactionState)
    /// Consumables (and non-renewing subscriptions) are not brought back by Restore Purchases.
    case notRestorable(ProductType)
    /// Only a paid purchase can be restored.
    case nothingToRestore(TransactionState)
    /// Finishing a paid transaction before the game server granted it would lose the purchase.
    case notDelivered(orderId: String?)
    /// The transaction is not in this queue.
    case notInQueue(transactionId: String)
    /// Another process's payment run has it in flight, and that process is still running: it alone
    /// moves the transaction on (finishing it here too would race its own next step).
    case inFlightElsewhere(transactionId: String, run: Int64)

    /// A stable code for logs and JSON.
    public var code: String {
        switch self {
        case .alreadyPurchasing: "already_purchasing"
        case .cannotFinish: "cannot_finish"
        case .alreadyFinished: "already_finished"
        case .notAllowed: "not_allowed"
        case .notRestorable: "not_restorable"
        case .nothingToRestore: "nothing_to_restore"
        case .notDelivered: "not_delivered"
        case .notInQueue: "not_in_queue"
        case .inFlightElsewhere: "in_flight_elsewhere"
        }
    }

    public var message: String {
        switch self {
        case .alreadyPurchasing:
            TransactionStateMachine.alreadyPurchasedMessage
        case .cannotFinish(let state):
            "cannot finish a \(state.rawValue) transaction: only purchased, failed or restored ones may be finished"
        case .alreadyFinished:
            "this transaction is already finished"
        case .notAllowed(let event, let state):
            "\(event) does not apply to a \(state.rawValue) transaction"
        case .notRestorable(let type):
            "\(type.name) products are not restored: only non-consumables and auto-renewable subscriptions are"
        case .nothingToRestore(let state):
            "only a purchased transaction can be restored, this one is \(state.rawValue)"
        case .notDelivered(let orderId?):
            "order \(orderId) is not granted yet: finishing now would lose the purchase"
        case .notDelivered(nil):
            "no order yet (the receipt has not reached the server): finishing now would lose the purchase"
        case .notInQueue(let id):
            "\(id) is not in the queue"
        case .inFlightElsewhere(let id, let run):
            "\(id) is in flight in payment run \(run), which is still running: that run finishes it"
        }
    }
}

/// StoreKit's payment-queue rules as pure functions: each takes a transaction and returns the next one
/// or a typed refusal, so the simulator, the console and the tests share one definition.
///
///     purchasing ─purchase─▶ purchased ─finish─▶ (finished)
///         │ ─fail(r)──────▶ failed(r) ─finish─▶ (finished)
///         └ ─askToBuy─────▶ deferred ─approve─▶ purchased
///                                    └decline─▶ failed(declined)
///     purchased (non-consumable, auto-renewable) ─restore─▶ new transaction, restored
///
///     let started = TransactionStateMachine.begin(request, userId: "u1", appId: "a1",
///                                                 transactionId: "t1", at: now, existing: queue)
public enum TransactionStateMachine {
    /// The exact text shown when a player starts a second purchase of a product whose first is open.
    public static let alreadyPurchasedMessage = "already purchased: finish or restore the first"

    /// The transition table: the next state, or `nil` when the event does not apply. Finishing keeps
    /// the state (it only sets `finished`), so `.finish` is handled by `apply`.
    public static func next(_ state: TransactionState, on event: TransactionEvent) -> TransactionState? {
        switch (state, event) {
        case (.purchasing, .purchase): .purchased
        case (.purchasing, .fail): .failed
        case (.purchasing, .askToBuy): .deferred
        case (.deferred, .approve): .purchased
        case (.deferred, .decline): .failed
        default: nil
        }
    }

    /// The open transaction that blocks a new purchase of the same product by the same player:
    /// one purchasing, deferred, or purchased but not yet finished.
    public static func blockingTransaction(
        userId: String, appId: String, productId: String, in existing: [StoreTransaction]
    ) -> StoreTransaction? {
        existing.first { transaction in
            transaction.userId == userId && transaction.appId == appId && transaction.productId == productId
                && (transaction.state == .purchasing || transaction.state == .deferred
                    || (transaction.state == .purchased && !transaction.finished))
        }
    }

    /// Puts a validated request on the queue as a new purchasing transaction, unless the same player
    /// already has an open purchase of the same product.
    public static func begin(
        _ request: PurchaseRequest, userId: String, appId: String, transactionId: String,
        environment: StoreEnvironment = .production, at instant: Instant, existing: [StoreTransaction]
    ) -> Result<StoreTransaction, TransactionRefusal> {
        if let open = blockingTransaction(userId: userId, appId: appId, productId: request.productId, in: existing) {
            return .failure(.alreadyPurchasing(transactionId: open.id))
        }
        return .success(
            StoreTransaction(
                id: transactionId, originalTransactionId: transactionId, userId: userId, appId: appId,
                productId: request.productId, state: .purchasing, environment: environment, sid: request.sid,
                roleId: request.roleId, appOrderId: request.orderId, ext: request.ext, purchaseDate: instant,
                finished: false))
    }

    /// Applies one event. Declining Ask to Buy fails the transaction with `FailureReason.declined`.
    public static func apply(
        _ event: TransactionEvent, to transaction: StoreTransaction
    ) -> Result<StoreTransaction, TransactionRefusal> {
        var updated = transaction
        if event == .finish {
            guard transaction.state.mayFinish else { return .failure(.cannotFinish(transaction.state)) }
            guard !transaction.finished else { return .failure(.alreadyFinished) }
            updated.finished = true
            return .success(updated)
        }
        guard let state = next(transaction.state, on: event) else {
            return .failure(.notAllowed(event: event, state: transaction.state))
        }
        updated.state = state
        switch event {
        case .fail(let reason): updated.failureReason = reason
        case .decline: updated.failureReason = .declined
        default: updated.failureReason = nil
        }
        return .success(updated)
    }

    /// Restore Purchases: a new `restored` transaction pointing at the original purchase.
    ///
    /// Only non-consumables and auto-renewable subscriptions come back (`ProductType.isRestorable`),
    /// and only from a transaction that was actually paid.
    public static func restore(
        _ original: StoreTransaction, productType: ProductType, transactionId: String, at instant: Instant
    ) -> Result<StoreTransaction, TransactionRefusal> {
        guard productType.isRestorable else { return .failure(.notRestorable(productType)) }
        guard original.state == .purchased || original.state == .restored else {
            return .failure(.nothingToRestore(original.state))
        }
        var restored = original
        restored.id = transactionId
        restored.state = .restored
        restored.failureReason = nil
        restored.purchaseDate = instant
        restored.finished = false
        return .success(restored)
    }
}
