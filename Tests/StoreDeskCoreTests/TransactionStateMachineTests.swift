import StoreDeskCore
import Testing

@Suite("TransactionStateMachine: SKPaymentTransaction states as pure functions")
struct TransactionStateMachineTests {
    private static let events: [TransactionEvent] = [
        .purchase, .fail(.cancelled), .askToBuy, .approve, .decline,
    ]

    private func transaction(
        _ state: TransactionState, productId: String = "com.example.gems.60", userId: String = "u1",
        finished: Bool = false, id: String = "t1"
    ) -> StoreTransaction {
        StoreTransaction(
            id: id, originalTransactionId: id, userId: userId, appId: "app_galaxy", productId: productId, state: state,
            sid: "s1", purchaseDate: PaymentFixtures.now, finished: finished)
    }

    private func request(_ productId: String = "com.example.gems.60") -> PurchaseRequest {
        PurchaseRequest(productName: "Gems", productId: productId, priceCents: 600, sid: "s1", roleId: "r1", orderId: "G1", ext: "e")
    }

    @Test(
        "the transition table",
        arguments: [
            (TransactionState.purchasing, [TransactionState.purchased, .failed, .deferred, nil, nil]),
            (.deferred, [nil, nil, nil, .purchased, .failed]),
            (.purchased, [nil, nil, nil, nil, nil]),
            (.failed, [nil, nil, nil, nil, nil]),
            (.restored, [nil, nil, nil, nil, nil]),
        ] as [(TransactionState, [TransactionState?])])
    func table(state: TransactionState, expected: [TransactionState?]) {
        for (event, next) in zip(Self.events, expected) {
            #expect(TransactionStateMachine.next(state, on: event) == next, "\(state.rawValue) on \(event)")
            let applied = TransactionStateMachine.apply(event, to: transaction(state))
            switch (applied, next) {
            case (.success(let updated), let next?):
                #expect(updated.state == next)
            case (.failure(let refusal), nil):
                #expect(refusal == .notAllowed(event: event, state: state))
                #expect(refusal.message.contains(state.rawValue))
            default:
                Issue.record("\(state.rawValue) on \(event): \(applied)")
            }
        }
    }

    @Test(
        "finish is allowed only for purchased, failed and restored",
        arguments: [
            (TransactionState.purchasing, false), (.purchased, true), (.failed, true), (.restored, true),
            (.deferred, false),
        ])
    func finish(state: TransactionState, allowed: Bool) {
        switch TransactionStateMachine.apply(.finish, to: transaction(state)) {
        case .success(let finished):
            #expect(allowed)
            #expect(finished.finished)
            #expect(finished.state == state)
        case .failure(let refusal):
            #expect(!allowed)
            #expect(refusal == .cannotFinish(state))
            #expect(refusal.message.contains("only purchased, failed or restored"))
        }
    }

    @Test("finishing twice is refused, not a crash")
    func finishTwice() {
        let refused = TransactionStateMachine.apply(.finish, to: transaction(.purchased, finished: true))
        #expect(refused == .failure(.alreadyFinished))
    }

    @Test("a payment failure keeps its reason")
    func failureReason() throws {
        let failed = try TransactionStateMachine.apply(.fail(.networkError), to: transaction(.purchasing)).get()
        #expect(failed.state == .failed)
        #expect(failed.failureReason == .networkError)
    }

    @Test("Ask to Buy: deferred, then approved to purchased or declined to failed(declined)")
    func askToBuy() throws {
        let deferred = try TransactionStateMachine.apply(.askToBuy, to: transaction(.purchasing)).get()
        #expect(deferred.state == .deferred)
        #expect(TransactionStateMachine.apply(.finish, to: deferred) == .failure(.cannotFinish(.deferred)))

        let approved = try TransactionStateMachine.apply(.approve, to: deferred).get()
        #expect(approved.state == .purchased)
        #expect(approved.failureReason == nil)

        let declined = try TransactionStateMachine.apply(.decline, to: deferred).get()
        #expect(declined.state == .failed)
        #expect(declined.failureReason == .declined)
        #expect(try TransactionStateMachine.apply(.finish, to: declined).get().finished)
    }

    @Test("begin puts a validated request on the queue as purchasing")
    func begin() throws {
        let started = try TransactionStateMachine.begin(
            request(), userId: "u1", appId: "app_galaxy", transactionId: "t9", environment: .sandbox,
            at: PaymentFixtures.now, existing: []
        ).get()
        #expect(started.state == .purchasing)
        #expect(started.id == "t9")
        #expect(started.originalTransactionId == "t9")
        #expect(started.appOrderId == "G1")
        #expect(started.roleId == "r1")
        #expect(started.ext == "e")
        #expect(started.environment == .sandbox)
        #expect(!started.finished)
    }

    struct OpenCase: Sendable, CustomTestStringConvertible {
        var state: TransactionState
        var finished: Bool
        var refused: Bool
        var testDescription: String { "\(state.rawValue)\(finished ? ", finished" : "") → \(refused ? "refused" : "allowed")" }
    }

    @Test(
        "a second purchase of the same product is refused while the first is open",
        arguments: [
            OpenCase(state: .purchasing, finished: false, refused: true),
            OpenCase(state: .deferred, finished: false, refused: true),
            OpenCase(state: .purchased, finished: false, refused: true),
            OpenCase(state: .purchased, finished: true, refused: false),
            OpenCase(state: .failed, finished: false, refused: false),
            OpenCase(state: .failed, finished: true, refused: false),
            OpenCase(state: .restored, finished: false, refused: false),
        ])
    func secondPurchase(_ item: OpenCase) {
        let existing = [transaction(item.state, finished: item.finished)]
        let result = TransactionStateMachine.begin(
            request(), userId: "u1", appId: "app_galaxy", transactionId: "t2", at: PaymentFixtures.now, existing: existing)
        switch result {
        case .failure(let refusal):
            #expect(item.refused)
            #expect(refusal == .alreadyPurchasing(transactionId: "t1"))
            #expect(refusal.message == "already purchased: finish or restore the first")
        case .success:
            #expect(!item.refused)
        }
    }

    @Test("an open purchase does not block another product or another player")
    func otherProductOrPlayer() {
        let existing = [transaction(.purchasing)]
        let other = TransactionStateMachine.begin(
            request("com.example.gems.300"), userId: "u1", appId: "app_galaxy", transactionId: "t2",
            at: PaymentFixtures.now, existing: existing)
        #expect((try? other.get()) != nil)
        let otherPlayer = TransactionStateMachine.begin(
            request(), userId: "u2", appId: "app_galaxy", transactionId: "t3", at: PaymentFixtures.now, existing: existing)
        #expect((try? otherPlayer.get()) != nil)
    }

    @Test(
        "restore brings back non-consumables and auto-renewables only",
        arguments: [
            (ProductType.nonConsumable, true), (.autoRenewable, true), (.consumable, false), (.nonRenewing, false),
        ])
    func restore(type: ProductType, restorable: Bool) throws {
        let original = transaction(.purchased, finished: true)
        let later = PaymentFixtures.now.adding(.days(30))
        switch TransactionStateMachine.restore(original, productType: type, transactionId: "t-restore", at: later) {
        case .success(let restored):
            #expect(restorable)
            #expect(restored.state == .restored)
            #expect(restored.id == "t-restore")
            #expect(restored.originalTransactionId == "t1")
            #expect(!restored.finished)
            #expect(restored.purchaseDate == later)
            #expect(try TransactionStateMachine.apply(.finish, to: restored).get().finished)
        case .failure(let refusal):
            #expect(!restorable)
            #expect(refusal == .notRestorable(type))
        }
    }

    @Test("only a paid purchase can be restored")
    func restoreUnpaid() {
        for state in [TransactionState.purchasing, .deferred, .failed] {
            let result = TransactionStateMachine.restore(
                transaction(state), productType: .nonConsumable, transactionId: "t2", at: PaymentFixtures.now)
            #expect(result == .failure(.nothingToRestore(state)))
        }
    }
}
