import Testing

@testable import StoreDeskCore

@Suite struct PaymentSimulationTests {
    static let app = App(
        id: "1001", name: "星辰", bundleId: "com.example.star", appKey: "demo-app-key-0123456789", currencyPerYuan: 10,
        restoreOwnership: .transfer, gracePeriodDays: 16)
    static let products = [
        Product(id: "gems.60", appId: "1001", name: "60 gems", type: .consumable, priceCents: 600, currency: "CNY"),
        Product(id: "gems.300", appId: "1001", name: "300 gems", type: .consumable, priceCents: 3000, currency: "CNY"),
        Product(id: "noads", appId: "1001", name: "No ads", type: .nonConsumable, priceCents: 1200, currency: "CNY"),
    ]
    static let start = Instant(millis: 1_700_000_000_000)

    /// One game account a player in each app, as a store would have them (`PaymentCatalogue.accounts`).
    static func accounts(_ users: [String], apps: [App] = [app]) -> [GameAccount] {
        apps.flatMap { app in
            users.map { user in
                GameAccount(
                    appleId: "apple." + user, userId: user, appId: app.id, sid: "s1", roleId: "r" + user + "-" + app.id,
                    roleName: user, appAccountToken: "token-" + user + "-" + app.id)
            }
        }
    }

    static func simulation(
        _ faults: [PaymentFault] = [], seconds: Int = 60, rate: Double = 5, seed: UInt64 = 7, malformed: Double = 0
    ) -> PaymentSimulation {
        PaymentSimulation(
            PaymentSimulation.Configuration(
                seconds: seconds, rate: rate, seed: seed, faults: faults, start: start,
                accounts: Self.accounts((1...40).map { "u\($0)" }), apps: [app], products: products, malformedShare: malformed))
    }

    static func run(_ simulation: inout PaymentSimulation) -> (changes: [PaymentChange], events: [PaymentEvent]) {
        let changes = simulation.runCollecting()
        return (changes, changes.flatMap(\.events))
    }

    /// Every transaction's event kinds, in order.
    static func timelines(_ events: [PaymentEvent]) -> [String: [PaymentEvent.Kind]] {
        Dictionary(grouping: events, by: \.transactionId).mapValues { $0.map(\.kind) }
    }

    @Test func theSameSeedGivesTheSameEventsAndAnotherSeedDoesNot() {
        var a = Self.simulation([.networkDrop(probability: 0.3), .askToBuy(probability: 0.2)], malformed: 0.05)
        var b = Self.simulation([.networkDrop(probability: 0.3), .askToBuy(probability: 0.2)], malformed: 0.05)
        var c = Self.simulation([.networkDrop(probability: 0.3), .askToBuy(probability: 0.2)], seed: 8, malformed: 0.05)
        let first = Self.run(&a).changes
        #expect(first.count > 100)
        #expect(first == Self.run(&b).changes)
        #expect(a.summary == b.summary)
        #expect(first != Self.run(&c).changes)
    }

    @Test func aRunNumbersItsOrdersInItsOwnBlockAndTagsItsTransactionsWithItsNumber() {
        func changes(run: Int64) -> [PaymentChange] {
            var simulation = PaymentSimulation(
                PaymentSimulation.Configuration(
                    seconds: 30, rate: 5, seed: 7, start: Self.start, accounts: Self.accounts((1...40).map { "u\($0)" }), apps: [Self.app],
                    products: Self.products, run: run, idPrefix: "sim", malformedShare: 0))
            return simulation.runCollecting()
        }
        let third = changes(run: 3), fourth = changes(run: 4)
        // Orders count up from run × 10^10 + 1 in the order the run creates them: numbers, as the callback's
        // field table has them.
        var created: [String] = []
        for order in third.compactMap(\.order) where !created.contains(order.id) { created.append(order.id) }
        #expect(created.count > 100)
        #expect(created == (1...created.count).map { String(30_000_000_000 + $0) })
        #expect(third.compactMap(\.transaction).allSatisfy { $0.id.hasPrefix("sim3-T") })
        // The same seed in another run: the same purchases under ids that never meet the first run's.
        #expect(third.count == fourth.count)
        let ids = { (changes: [PaymentChange]) in
            Set(changes.compactMap(\.order?.id) + changes.compactMap(\.transaction?.id))
        }
        #expect(ids(third).isDisjoint(with: ids(fourth)))
        // Callbacks carry the number: order_id=30000000001 is in the signed body.
        #expect(third.compactMap(\.callback).first?.body.hasPrefix("order_id=300000000") == true)
    }

    @Test func orderNumbersStayInsideTheirBlock() {
        #expect(OrderNumbers(run: 0) == nil)
        #expect(OrderNumbers(run: OrderNumbers.maxRun + 1) == nil)
        #expect(OrderNumbers(run: 1, issued: OrderNumbers.blockSize) == nil)
        var last = OrderNumbers(run: OrderNumbers.maxRun, issued: OrderNumbers.blockSize - 2)
        #expect(last?.next() == String(Int64.max / OrderNumbers.blockSize * OrderNumbers.blockSize - 1))
        #expect(last?.next() == nil, "the next number would be the next block's")
    }

    /// `callback check` and the serve benchmark number their orders above the last run's block: no run
    /// ever hands those ids out, and a check's 32 ids stay within 64-bit integers whatever the clock says.
    @Test func checkOrderIdsLieAboveEveryRunsBlock() {
        var last = OrderNumbers(run: OrderNumbers.maxRun, issued: OrderNumbers.blockSize - 2)
        let lastRunId = Int64(last?.next() ?? "") ?? Int64.max
        #expect(OrderNumbers.outsideRuns.lowerBound > lastRunId)
        for millis: Int64 in [0, 1, 1_772_352_000_000, 1_772_352_000_001, Int64.max, -5] {
            let first = OrderNumbers.outsideRuns(at: millis)
            #expect(OrderNumbers.outsideRuns.contains(first) && OrderNumbers.outsideRuns.contains(first + OrderNumbers.checkSlot - 1))
        }
        #expect(OrderNumbers.outsideRuns(at: 1_772_352_000_001) - OrderNumbers.outsideRuns(at: 1_772_352_000_000) == OrderNumbers.checkSlot)
    }

    @Test func withoutFaultsEveryPurchaseIsPaidGrantedOnceAndFinished() {
        var simulation = Self.simulation(seconds: 120)
        let (changes, events) = Self.run(&simulation)
        let summary = simulation.summary
        #expect(summary.attempts > 400)
        #expect(summary.callbacksRejected == 0 && summary.callbacksDuplicate == 0 && summary.droppedOrders == 0)
        let grants = changes.compactMap(\.grant)
        #expect(grants.count == summary.grants)
        #expect(Set(grants.map(\.orderId)).count == grants.count)
        // Every transaction that completed walked the happy path in order.
        for (_, kinds) in Self.timelines(events) where kinds.last == .finished {
            #expect(kinds == [.purchasing, .purchased, .receiptChecked, .orderCreated, .callbackAccepted, .granted, .finished])
        }
        // Events come in time order; no transaction is finished before it was granted.
        #expect(zip(events, events.dropFirst()).allSatisfy { $0.at <= $1.at })
        // Only the last arrivals, still purchasing when the run ends, are not yet paid.
        #expect(
            (summary.states["purchased"] ?? 0) + (summary.states["purchasing"] ?? 0)
                == summary.attempts - summary.purchasesRefused)
        #expect((summary.states["purchasing"] ?? 0) < 20)
        #expect(summary.finished + summary.awaitingCallback == summary.states["purchased"])
    }

    @Test func aSecondPurchaseOfAnOpenProductIsRefusedWithStoreKitsMessage() {
        // Few users and long Ask to Buy waits make collisions certain.
        var simulation = PaymentSimulation(
            PaymentSimulation.Configuration(
                seconds: 60, rate: 5, seed: 3, faults: [.askToBuy(probability: 1)], start: Self.start, accounts: Self.accounts(["u1"]),
                apps: [Self.app], products: [Self.products[0]]))
        let (_, events) = Self.run(&simulation)
        let refused = events.filter { $0.kind == .purchaseRefused }
        #expect(!refused.isEmpty)
        #expect(refused.allSatisfy { $0.detail.hasSuffix(TransactionStateMachine.alreadyPurchasedMessage) })
    }

    @Test func malformedRequestsAreRefusedBeforeTheQueue() {
        var simulation = Self.simulation(malformed: 0.5)
        let (changes, events) = Self.run(&simulation)
        let refused = events.filter { $0.kind == .requestRefused }
        #expect(refused.count == simulation.summary.requestsRefused)
        #expect(refused.count > 50)
        let refusedIds = Set(refused.map(\.transactionId))
        #expect(changes.allSatisfy { $0.transaction.map { !refusedIds.contains($0.id) } ?? true })
        #expect(refused.contains { $0.detail.contains("Product_Price") })
        #expect(refused.contains { $0.detail.contains("Sid") })
        #expect(refused.contains { $0.detail.contains("EXT") })
    }

    @Test func clientCrashLeavesAPaidUnfinishedTransactionWithNoOrderAndNoGrant() {
        var simulation = Self.simulation([.clientCrash(probability: 1)])
        let (changes, events) = Self.run(&simulation)
        #expect(simulation.summary.droppedOrders > 100)
        #expect(simulation.summary.grants == 0)
        #expect(changes.allSatisfy { $0.order == nil && $0.grant == nil && $0.callback == nil })
        let crashed = events.filter { $0.kind == .clientCrashed }.map(\.transactionId)
        #expect(crashed.count == simulation.summary.droppedOrders)
        for id in crashed {
            let transaction = simulation.transactionsById[id]
            #expect(transaction?.state == .purchased && transaction?.finished == false)
        }
        // The paid, unfinished transaction blocks buying the same product again.
        #expect(simulation.summary.purchasesRefused > 0)
    }

    @Test func networkDropsAreRetriedWithBackoffAndStillGrantOnce() {
        var simulation = Self.simulation([.networkDrop(probability: 1)])
        let (changes, events) = Self.run(&simulation)
        #expect(simulation.summary.callbacksDropped > 0)
        let grants = changes.compactMap(\.grant)
        #expect(!grants.isEmpty)
        #expect(Set(grants.map(\.orderId)).count == grants.count)
        let byTransaction = Dictionary(grouping: events, by: \.transactionId)
        for (_, timeline) in byTransaction where timeline.contains(where: { $0.kind == .granted }) {
            let drops = timeline.filter { $0.kind == .callbackDropped }
            #expect((1...3).contains(drops.count))
            // Gaps between attempts double: 1 s, 2 s, 4 s.
            let attempts = timeline.filter { $0.kind == .callbackDropped || $0.kind == .callbackAccepted }.map(\.at.millis)
            let gaps = zip(attempts, attempts.dropFirst()).map { $1 - $0 }
            #expect(gaps == Array([1000, 2000, 4000].prefix(gaps.count)))
        }
        #expect(PaymentSimulation.backoff(attempt: 1) == 1000 && PaymentSimulation.backoff(attempt: 20) == 64_000)
    }

    @Test func duplicateCallbacksAnswerSuccessAndGrantNothing() {
        var simulation = Self.simulation([.duplicateCallback(probability: 1)])
        let (changes, _) = Self.run(&simulation)
        let duplicates = changes.compactMap(\.callback).filter { $0.verdict == CallbackAttempt.duplicate }
        #expect(!duplicates.isEmpty)
        #expect(duplicates.count == simulation.summary.callbacksDuplicate)
        #expect(duplicates.allSatisfy { $0.reply == GrantRule.successReply })
        #expect(changes.allSatisfy { $0.callback?.verdict != CallbackAttempt.duplicate || $0.grant == nil })
        let grants = changes.compactMap(\.grant)
        #expect(Set(grants.map(\.orderId)).count == grants.count)
    }

    @Test(arguments: [PaymentFault.tamperedSign(probability: 1), .tamperedField(probability: 1)])
    func tamperedCallbacksAreRejectedAndTheGenuineRetryGrants(fault: PaymentFault) {
        var simulation = Self.simulation([fault])
        let (changes, events) = Self.run(&simulation)
        let rejected = changes.compactMap(\.callback).filter { $0.verdict == "bad_signature" }
        #expect(!rejected.isEmpty)
        #expect(rejected.count == simulation.summary.callbacksRejected)
        #expect(rejected.allSatisfy { $0.reply != GrantRule.successReply && $0.signExpected != $0.signReceived.lowercased() })
        #expect(changes.allSatisfy { $0.callback?.verdict != "bad_signature" || $0.grant == nil })
        // The AppKey never appears in what is logged.
        #expect(events.allSatisfy { !$0.detail.contains(Self.app.appKey) })
        for (_, kinds) in Self.timelines(events) where kinds.contains(.granted) {
            #expect(kinds.firstIndex(of: .callbackRejected).map { $0 < kinds.firstIndex(of: .callbackAccepted) ?? 0 } == true)
        }
        #expect(simulation.summary.grants > 0)
    }

    /// Each transaction as its last change left it.
    static func finalTransactions(_ changes: [PaymentChange]) -> [String: StoreTransaction] {
        var final: [String: StoreTransaction] = [:]
        for change in changes { if let t = change.transaction { final[t.id] = t } }
        return final
    }

    @Test func askToBuyDefersThenApprovesOrDeclines() {
        var simulation = Self.simulation([.askToBuy(probability: 1)], seconds: 120)
        let (changes, events) = Self.run(&simulation)
        let final = Self.finalTransactions(changes)
        let timelines = Self.timelines(events)
        let approved = timelines.values.filter { $0.contains(.approved) }
        let declined = timelines.values.filter { $0.contains(.declined) }
        #expect(!approved.isEmpty && !declined.isEmpty)
        #expect(approved.allSatisfy { Array($0.prefix(3)) == [.purchasing, .deferred, .approved] })
        #expect(declined.allSatisfy { $0 == [.purchasing, .deferred, .declined, .finished] })
        let declinedIds = timelines.filter { $0.value.contains(.declined) }.map(\.key)
        #expect(declinedIds.allSatisfy { final[$0]?.failureReason == .declined })
        // Finished transactions leave the simulation's memory: only the in-flight ones stay.
        #expect(simulation.transactionsById.values.allSatisfy { !$0.finished })
    }

    @Test func failedPaymentsCarryAStoreKitReasonAndAreFinishedWithoutAnOrder() {
        var simulation = Self.simulation([.failedPayment(probability: 1)])
        let (changes, events) = Self.run(&simulation)
        #expect(changes.allSatisfy { $0.order == nil && $0.grant == nil })
        let failed = Self.finalTransactions(changes).values.filter { $0.state == .failed }
        #expect(failed.count > 100)
        #expect(Set(failed.compactMap(\.failureReason)).count > 2)
        #expect(events.filter { $0.kind == .failed }.allSatisfy { $0.detail.hasPrefix("payment failed: ") })
    }

    @Test func aServerOutageDelaysCallbacksUntilItEnds() {
        var simulation = Self.simulation([.serverDown(seconds: 20)])
        let (_, events) = Self.run(&simulation)
        let down = events.filter { $0.kind == .serverDown }
        #expect(!down.isEmpty)
        let outageStart = Self.start.millis + 15_000
        #expect(down.allSatisfy { $0.at.millis >= outageStart && $0.at.millis < outageStart + 20_000 })
        let accepted = events.filter { $0.kind == .callbackAccepted }
        #expect(accepted.allSatisfy { $0.at.millis < outageStart || $0.at.millis >= outageStart + 20_000 })
        #expect(simulation.summary.grants > 0)
    }

    @Test func faultValuesParseOrNameTheBadValue() throws {
        #expect(try PaymentFault.parse("networkDrop:0.5") == .networkDrop(probability: 0.5))
        #expect(try PaymentFault.parse("network-drop") == .networkDrop(probability: PaymentFault.defaultProbability))
        #expect(try PaymentFault.parse("serverDown:30") == .serverDown(seconds: 30))
        #expect(try PaymentFault.parse("clientcrash") == .clientCrash(probability: 0.2))
        for bad in ["explode", "networkDrop:2", "networkDrop:x", "serverDown:0", "serverDown:1.5", ""] {
            #expect(throws: PaymentFault.ParseError.self) { try PaymentFault.parse(bad) }
        }
        do {
            _ = try PaymentFault.parse("explode:1")
        } catch {
            #expect(error.description.hasPrefix("--fault 'explode:1': unknown fault kind"))
        }
    }

    // MARK: - Live control and resuming

    @Test func faultsInjectedLiveApplyToPurchasesArrivingFromThenOn() {
        var simulation = Self.simulation(seconds: 120)
        var changes: [PaymentChange] = []
        simulation.run(until: Self.start.adding(.seconds(60))) { changes.append($0) }
        #expect(!changes.flatMap(\.events).contains { $0.kind == .clientCrashed })
        simulation.inject(.clientCrash(probability: 1))
        simulation.inject(.serverDown(seconds: 5))
        #expect(simulation.activeFaults == [.clientCrash(probability: 1), .serverDown(seconds: 5)])
        var later: [PaymentChange] = []
        simulation.run(until: Self.start.adding(.seconds(90))) { later.append($0) }
        let events = later.flatMap(\.events)
        #expect(events.contains { $0.kind == .clientCrashed })
        #expect(events.contains { $0.kind == .serverDown })
        // Every purchase that arrived after the injection and was charged crashed: no new orders for them.
        let arrivedLater = Set(events.filter { $0.kind == .purchasing }.map(\.transactionId))
        #expect(!later.contains { $0.order.map { arrivedLater.contains($0.transactionId) } ?? false })
        simulation.clearFaults()
        #expect(simulation.activeFaults.isEmpty)
    }

    @Test func theRateChangesLiveAndASingleStepRunsToTheNextDueStep() {
        var slow = Self.simulation(seconds: 60, rate: 1)
        slow.setRate(50)
        let fast = slow.runCollecting().flatMap(\.events).filter { $0.kind == .purchasing }.count
        #expect(fast > 1000)
        var stepping = Self.simulation(seconds: 60)
        guard let due = stepping.nextDue else {
            Issue.record("a fresh simulation has an arrival due")
            return
        }
        var one: [PaymentChange] = []
        stepping.run(until: due) { one.append($0) }
        #expect(one.count == 1)
        #expect(one[0].events.map(\.kind) == [.purchasing])
        #expect(stepping.now == due)
    }

    @Test func finishingByHandIsRefusedUntilTheOrderIsGranted() {
        var simulation = Self.simulation(seconds: 30)
        simulation.run(until: Self.start.adding(.seconds(10))) { _ in }
        let inFlight = simulation.transactionsById.values.sorted { $0.id < $1.id }
        guard let purchasing = inFlight.first(where: { $0.state == .purchasing }) else {
            Issue.record("some purchase is still purchasing after 10 s at 5/s")
            return
        }
        #expect(simulation.finishNow(purchasing.id) == .failure(.cannotFinish(.purchasing)))
        #expect(simulation.finishNow("nope") == .failure(.notInQueue(transactionId: "nope")))
        if let waiting = inFlight.first(where: { $0.state == .purchased }) {
            guard case .failure(.notDelivered) = simulation.finishNow(waiting.id) else {
                Issue.record("a paid, ungranted transaction must not be finished by hand")
                return
            }
        }
    }

    @Test func aRestartResumesEveryInFlightPurchaseWithoutGrantingTwice() {
        // A first run is cut off while purchases are in every state.
        var first = Self.simulation([.askToBuy(probability: 0.3), .networkDrop(probability: 0.5)], seconds: 30, rate: 20)
        var written: [PaymentChange] = []
        first.run(until: Self.start.adding(.seconds(20))) { written.append($0) }
        let transactions = Self.finalTransactions(written)
        var orders: [String: PaymentOrder] = [:]
        var callbacks: [String: Int] = [:]
        var grants: [String: Int] = [:]
        for change in written {
            if let o = change.order { orders[o.transactionId] = o }
            if let c = change.callback { callbacks[c.orderId, default: 0] += 1 }
            if let g = change.grant { grants[g.orderId, default: 0] += 1 }
        }
        let inFlight = transactions.values.filter { !$0.finished }
        #expect(Set(inFlight.map(\.state)).count >= 3, "the cut must leave several states in flight")
        // The restart picks them up and runs with no new arrivals.
        var second = PaymentSimulation(
            PaymentSimulation.Configuration(
                seconds: 1, rate: 0.000_001, seed: 9, faults: [], start: Self.start.adding(.seconds(20)),
                accounts: Self.accounts(["u1"]), apps: [Self.app], products: Self.products, run: 2, idPrefix: "again"))
        second.resume(inFlight.map { t in
            PaymentSimulation.InFlight(transaction: t, order: orders[t.id], callbacks: orders[t.id].map { callbacks[$0.id] ?? 0 } ?? 0)
        })
        var resumed: [PaymentChange] = []
        second.run(until: Self.start.adding(.seconds(600))) { resumed.append($0) }
        for change in resumed { if let g = change.grant { grants[g.orderId, default: 0] += 1 } }
        let after = Self.finalTransactions(written + resumed)
        for t in inFlight {
            #expect(after[t.id]?.finished == true, "\(t.id) (\(t.state.rawValue)) is finished after the restart")
        }
        #expect(grants.values.allSatisfy { $0 == 1 })
        // Every paid one ends granted exactly once.
        let paid = after.values.filter { $0.state == .purchased }
        let granted = Set(grants.keys)
        let orderIds = Dictionary((written + resumed).compactMap(\.order).map { ($0.transactionId, $0.id) }, uniquingKeysWith: { first, _ in first })
        #expect(paid.allSatisfy { orderIds[$0.id].map(granted.contains) == true })
    }
}
