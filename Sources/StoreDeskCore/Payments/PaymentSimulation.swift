import Foundation

/// A deterministic payment queue: purchase attempts from random players over the catalogue, through
/// `requestProduct` validation, StoreKit states, the receipt check, the signed server callback, the
/// game server's grant rule, and `finishTransaction`, with injectable faults.
///
/// Pure: the seed, the start instant and the inputs decide every change, so the same configuration
/// always yields the same changes. Time is simulated; the caller decides how fast to run it.
///
///     var simulation = PaymentSimulation(configuration)
///     try simulation.run { change in try store.apply([change], run: run) }
///     simulation.summary.grants
public struct PaymentSimulation: Sendable {
    public struct Configuration: Sendable {
        /// Simulated seconds during which purchases arrive; steps due later are left in flight.
        public var seconds: Int
        /// Purchase attempts per simulated second (arrivals are Poisson).
        public var rate: Double
        public var seed: UInt64
        public var faults: [PaymentFault]
        /// The simulated clock's start.
        public var start: Instant
        /// The players' game accounts purchases are made from: only accounts the store has (a purchase
        /// picks one, then a product of its app), so every grant lands on a role the store knows.
        public var accounts: [GameAccount]
        /// The environment every purchase of the run is made in: Sandbox (Apple's test money) unless a
        /// run is asked for Production.
        public var environment: StoreEnvironment
        public var apps: [App]
        public var products: [Product]
        /// The run's number in the store (`payment_run`): its orders are numbered in this run's block
        /// (`OrderNumbers`), and its transaction ids carry it, so runs on one store never collide.
        public var run: Int64
        /// The word before the run number in every transaction id: `sim` gives `sim3-T17`.
        public var idPrefix: String
        /// Share of requests the client sends malformed (refused before the queue).
        public var malformedShare: Double
        /// The StoreKit test settings of apps whose catalogue came from a StoreKit configuration, by app
        /// id: Ask to Buy defers every purchase of that app's products, failing transactions fails them.
        public var storeKitTesting: [String: StoreKitPurchaseTesting]
        /// Apps whose game server is a real one over HTTP: their callbacks wait in `outbox` for the network
        /// to POST them, and `answer(_:with:url:)` brings each reply back. Every other app's callbacks are
        /// answered in process by StoreDesk's own game server (`GrantRule`).
        public var remoteApps: Set<String>

        public init(
            seconds: Int, rate: Double, seed: UInt64, faults: [PaymentFault] = [], start: Instant,
            accounts: [GameAccount], apps: [App], products: [Product], run: Int64 = 1, idPrefix: String = "sim",
            malformedShare: Double = 0.02, storeKitTesting: [String: StoreKitPurchaseTesting] = [:],
            remoteApps: Set<String> = [], environment: StoreEnvironment = .sandbox
        ) {
            self.remoteApps = remoteApps
            self.environment = environment
            self.seconds = seconds
            self.rate = rate
            self.seed = seed
            self.faults = faults
            self.start = start
            self.accounts = accounts
            self.apps = apps
            self.products = products
            self.run = run
            self.idPrefix = idPrefix
            self.malformedShare = malformedShare
            self.storeKitTesting = storeKitTesting
        }

        /// The longest arrival window a run takes: a year of simulated time.
        public static let largestSeconds = 365 * 86_400
        /// The most purchase attempts per simulated second (the console's `:rate` takes the same).
        public static let largestRate = 100_000.0
        /// The most purchase attempts a run may plan (seconds × rate): about an hour and a half of the
        /// pipeline at its full speed, and a store of tens of gigabytes.
        public static let largestAttempts = 100_000_000.0
        /// The fastest paced run: a million simulated seconds per wall-clock second (0 is as fast as possible).
        public static let largestSpeed = 1_000_000.0

        /// Why a run of `seconds` at `rate` attempts per second and `speed` (0: as fast as possible) cannot
        /// be started, in the words of the command's options; nil when it can.
        public static func problem(seconds: Int, rate: Double, speed: Double) -> String? {
            if seconds <= 0 || seconds > largestSeconds {
                return "--seconds must be from 1 to \(largestSeconds) (a year), got \(seconds)"
            }
            if !(rate > 0) || rate > largestRate {
                return "--rate must be above 0 and at most \(Int(largestRate)) purchase attempts per second, got \(rate)"
            }
            if Double(seconds) * rate > largestAttempts {
                return "--seconds × --rate plans \(Int64(clamping: Double(seconds) * rate)) purchase attempts; a run takes at most "
                    + "\(Int(largestAttempts)): run it in parts"
            }
            if !(speed >= 0) || speed > largestSpeed {
                return "--speed must be from 0 (as fast as possible) to \(Int(largestSpeed)), got \(speed)"
            }
            return nil
        }
    }

    /// What a run did, for the CLI and the header.
    public struct Summary: Hashable, Sendable, Encodable {
        public var attempts = 0
        public var requestsRefused = 0
        public var purchasesRefused = 0
        /// Final state of every transaction the run created.
        public var states: [String: Int] = [:]
        public var finished = 0
        public var callbacksAccepted = 0
        public var callbacksRejected = 0
        public var callbacksDuplicate = 0
        public var callbacksDropped = 0
        public var callbacksUnanswered = 0
        public var grants = 0
        /// Paid, then the client crashed before finishing: waiting for a restore prompt.
        public var droppedOrders = 0
        /// Paid and ordered, callback not yet accepted when the run ended.
        public var awaitingCallback = 0
        public var events = 0
        /// Transactions an earlier run left in flight that this run picked up.
        public var resumed = 0
        /// Callbacks POSTed to real game servers: attempts, failures by kind, latency (`null` in JSON when none was).
        public var http = CallbackDeliveries()

        public init() {}

        public enum CodingKeys: String, CodingKey {
            case attempts, states, finished, grants, events, resumed
            case requestsRefused = "requests_refused"
            case purchasesRefused = "purchases_refused"
            case callbacksAccepted = "callbacks_accepted"
            case callbacksRejected = "callbacks_rejected"
            case callbacksDuplicate = "callbacks_duplicate"
            case callbacksDropped = "callbacks_dropped"
            case callbacksUnanswered = "callbacks_unanswered"
            case droppedOrders = "dropped_orders"
            case awaitingCallback = "awaiting_callback"
            case http
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(attempts, forKey: .attempts)
            try container.encode(states, forKey: .states)
            try container.encode(finished, forKey: .finished)
            try container.encode(grants, forKey: .grants)
            try container.encode(events, forKey: .events)
            try container.encode(resumed, forKey: .resumed)
            try container.encode(requestsRefused, forKey: .requestsRefused)
            try container.encode(purchasesRefused, forKey: .purchasesRefused)
            try container.encode(callbacksAccepted, forKey: .callbacksAccepted)
            try container.encode(callbacksRejected, forKey: .callbacksRejected)
            try container.encode(callbacksDuplicate, forKey: .callbacksDuplicate)
            try container.encode(callbacksDropped, forKey: .callbacksDropped)
            try container.encode(callbacksUnanswered, forKey: .callbacksUnanswered)
            try container.encode(droppedOrders, forKey: .droppedOrders)
            try container.encode(awaitingCallback, forKey: .awaitingCallback)
            if http.attempts > 0 { try container.encode(http, forKey: .http) } else { try container.encodeNil(forKey: .http) }
        }
    }

    /// What was decided for one purchase when it arrived (drawing everything up front keeps runs
    /// deterministic whatever order steps are processed in).
    struct Plan: Sendable {
        var failure: FailureReason?
        var askToBuy: Bool
        var approve: Bool
        var crash: Bool
        var drops: Int
        var duplicate: Bool
        var tamperSign: Bool
        var tamperField: Bool
        var settleAfter: Int64
        var decideAfter: Int64
    }

    enum Step: Sendable {
        case arrive
        case settle(String)
        case decide(String)
        case deliver(orderId: String, attempt: Int, received: Int)
        case redeliver(orderId: String, attempt: Int)
        case finish(String)
        /// A restarted client sends the receipt of a paid transaction that has no order yet.
        case resend(String)
    }

    struct Scheduled: Sendable {
        var at: Int64
        var sequence: Int
        var step: Step
    }

    public static let maxCallbackAttempts = 12

    public internal(set) var configuration: Configuration
    public internal(set) var summary = Summary()
    /// Purchase attempts per simulated second; the console may change it while running.
    public private(set) var rate: Double
    /// The simulated clock: the instant of the last step processed.
    public private(set) var now: Instant

    private var random: SeededGenerator
    /// This run's order ids, handed out as orders are created (nil: the run number has no block).
    private var orderNumbers: OrderNumbers?
    private var agenda = Agenda()
    private var sequence = 0
    private var arrivals = 0
    /// Transactions still in flight (finished ones are dropped once nothing more can happen to them).
    var transactions: [String: StoreTransaction] = [:]
    var plans: [String: Plan] = [:]
    /// Final states of the transactions already forgotten.
    private var finalStates: [String: Int] = [:]
    var orders: [String: PaymentOrder] = [:]
    /// Order id by transaction id, for the orders in memory.
    private var orderOf: [String: String] = [:]
    private var openByKey: [String: String] = [:]
    var granted: Set<String> = []
    /// Resumed orders whose grant was in the store while their status said pending, set right when
    /// their transaction is finished, by transaction id.
    private var staleOrders: [String: PaymentOrder] = [:]
    /// Players logged in this run and not crashed since: their next purchase needs no new login.
    private var loggedIn: Set<String> = []
    var apps: [String: App] = [:]
    let sellable: [Product]
    /// The accounts purchases are made from: those of `configuration.accounts` whose app sells something.
    let buyers: [GameAccount]
    /// The products on sale, by app.
    let sellableByApp: [String: [Product]]
    private var probabilities: [String: Double] = [:]
    private var downWindows: [(from: Int64, to: Int64)] = []
    /// Callbacks for real game servers, waiting to be POSTed.
    var outbox: [OutboundCallback] = []
    /// Callbacks POSTed and not answered yet: when each was sent, by id.
    var awaitingReply: [Int: Int64] = [:]
    var outboundSerial = 0

    public init(_ configuration: Configuration) {
        self.configuration = configuration
        self.now = configuration.start
        self.random = SeededGenerator(seed: configuration.seed)
        self.rate = configuration.rate
        self.orderNumbers = OrderNumbers(run: configuration.run)
        for app in configuration.apps { apps[app.id] = app }
        let appIds = Set(configuration.apps.map(\.id))
        sellable = configuration.products.filter { appIds.contains($0.appId) }
        let byApp = Dictionary(grouping: sellable, by: \.appId)
        sellableByApp = byApp
        buyers = configuration.accounts.filter { byApp[$0.appId] != nil }
        let quarter = configuration.start.millis.clampedAdding(Int64(configuration.seconds).clampedMultiplied(by: 250))
        var downStart = quarter
        for fault in configuration.faults {
            switch fault {
            case .clientCrash(let p): probabilities["crash", default: 0] += p
            case .networkDrop(let p): probabilities["drop", default: 0] += p
            case .duplicateCallback(let p): probabilities["duplicate", default: 0] += p
            case .tamperedSign(let p): probabilities["sign", default: 0] += p
            case .tamperedField(let p): probabilities["field", default: 0] += p
            case .askToBuy(let p): probabilities["ask", default: 0] += p
            case .failedPayment(let p): probabilities["fail", default: 0] += p
            case .serverDown(let seconds):
                downWindows.append((downStart, downStart.clampedAdding(Int64(seconds).clampedMultiplied(by: 1000))))
                downStart = downStart.clampedAdding(Int64(seconds).clampedMultiplied(by: 1000))
            }
        }
        if !buyers.isEmpty, configuration.rate > 0 {
            schedule(.arrive, at: configuration.start.millis.clampedAdding(nextGap()))
        }
    }

    /// The end of the arrival window.
    public var end: Instant { configuration.start.adding(.seconds(Int64(configuration.seconds))) }

    /// Runs every step due up to the end of the run, handing each change to `emit` in order.
    public mutating func run(_ emit: (PaymentChange) throws -> Void) rethrows {
        try run(until: end, emit)
    }

    /// Runs the steps due up to `limit` (for the console's clock: pause, single step, speed).
    public mutating func run(until limit: Instant, _ emit: (PaymentChange) throws -> Void) rethrows {
        try advance(until: limit, emit)
        finishSummary()
    }

    /// Runs the steps due up to `limit` without bringing the summary's end-of-run counts up to date
    /// (they walk every transaction in flight): for a driver that calls it once per reply.
    ///
    /// While callbacks to real game servers wait for their replies, the clock stops at `holdUntil`
    /// (checked at every step, so a callback sent by this very call holds it too).
    ///
    /// `steps` bounds how many steps this call runs (a driver that commits in batches); stopped by it, the
    /// clock stays at the last step run, and the next call goes on from there.
    public mutating func advance(until limit: Instant, steps: Int = .max, _ emit: (PaymentChange) throws -> Void) rethrows {
        var run = 0
        while let next = agenda.first, next.at <= limit.millis {
            if !awaitingReply.isEmpty, let hold = holdUntil, next.at > hold.millis { break }
            guard run < steps else { return }
            run += 1
            _ = agenda.removeFirst()
            now = Instant(millis: next.at)
            for change in perform(next.step) {
                summary.events += change.events.count
                try emit(change)
            }
        }
        let bound = awaitingReply.isEmpty ? limit : min(limit, holdUntil ?? limit)
        if bound > now { now = bound }
    }

    /// Runs everything and returns the changes (for tests).
    public mutating func runCollecting() -> [PaymentChange] {
        var changes: [PaymentChange] = []
        run { changes.append($0) }
        return changes
    }

    /// The transactions in flight, by id (finished ones leave once nothing more can happen to them).
    public var transactionsById: [String: StoreTransaction] { transactions }

    /// When the next step is due, if any (the console's single step runs to it).
    public var nextDue: Instant? { agenda.first.map { Instant(millis: $0.at) } }

    // MARK: - Live control (the console)

    /// The faults in force: per-purchase ones with their probability, and game-server outages still
    /// to come or under way.
    public var activeFaults: [PaymentFault] {
        let kinds: [(String, (Double) -> PaymentFault)] = [
            ("crash", PaymentFault.clientCrash), ("drop", PaymentFault.networkDrop),
            ("duplicate", PaymentFault.duplicateCallback), ("sign", PaymentFault.tamperedSign),
            ("field", PaymentFault.tamperedField), ("ask", PaymentFault.askToBuy), ("fail", PaymentFault.failedPayment),
        ]
        let perPurchase = kinds.compactMap { name, make in probabilities[name].map(make) }
        let outages = downWindows.filter { $0.to > now.millis }.map { PaymentFault.serverDown(seconds: Int($0.to.clampedAdding(max($0.from, now.millis).clampedNegated).clampedAdding(999) / 1000)) }
        return perPurchase + outages
    }

    /// Injects a fault from now on: a per-purchase fault replaces that kind's probability for purchases
    /// arriving from now; `serverDown` takes the game server down from now for its seconds.
    public mutating func inject(_ fault: PaymentFault) {
        switch fault {
        case .clientCrash(let p): probabilities["crash"] = p
        case .networkDrop(let p): probabilities["drop"] = p
        case .duplicateCallback(let p): probabilities["duplicate"] = p
        case .tamperedSign(let p): probabilities["sign"] = p
        case .tamperedField(let p): probabilities["field"] = p
        case .askToBuy(let p): probabilities["ask"] = p
        case .failedPayment(let p): probabilities["fail"] = p
        case .serverDown(let seconds): downWindows.append((now.millis, now.millis.clampedAdding(Int64(seconds).clampedMultiplied(by: 1000))))
        }
    }

    /// Takes every fault away: purchases from now on go through cleanly, the game server is up.
    public mutating func clearFaults() {
        probabilities = [:]
        downWindows = downWindows.filter { $0.to <= now.millis }
    }

    /// Changes the arrival rate from the next arrival on.
    public mutating func setRate(_ newRate: Double) {
        guard newRate > 0, newRate.isFinite else { return }
        rate = newRate
    }

    /// Finishes a transaction now, as the client's `finishTransaction` would: refused (and said why)
    /// while it is purchasing or deferred, or while its order is not yet granted.
    public mutating func finishNow(_ id: String) -> Result<PaymentChange, TransactionRefusal> {
        guard let transaction = transactions[id], !transaction.finished else { return .failure(.notInQueue(transactionId: id)) }
        let order = orderOf[id].flatMap { orders[$0] }
        if transaction.state == .purchased, order?.status != .granted { return .failure(.notDelivered(orderId: order?.id)) }
        if case .failure(let refusal) = TransactionStateMachine.apply(.finish, to: transaction) { return .failure(refusal) }
        let changes = finish(id)
        summary.events += changes.reduce(0) { $0 + $1.events.count }
        finishSummary()
        return .success(changes[0])
    }

    // MARK: - Resuming after a restart

    /// A transaction left in flight by an earlier run (killed, or quit), as the store holds it.
    public struct InFlight: Sendable {
        public var transaction: StoreTransaction
        public var order: PaymentOrder?
        /// Callbacks the server has already received for its order.
        public var callbacks: Int
        /// Whether the game server's grant for its order is in the store (whatever the order's status says).
        public var granted: Bool
        public init(transaction: StoreTransaction, order: PaymentOrder?, callbacks: Int, granted: Bool = false) {
            self.transaction = transaction
            self.order = order
            self.callbacks = callbacks
            self.granted = granted
        }
    }

    /// Picks up work an earlier run left unfinished, the way StoreKit hands unfinished transactions
    /// back at launch: a purchasing one settles, a deferred one is decided, a paid one without an order
    /// sends its receipt, an order without an accepted callback is called back again, and a granted
    /// or failed one is finished. Dropped orders (the client crashed) are not here: they wait for a
    /// restore prompt. Resumed purchases draw no new faults. An order whose grant is in the store is
    /// granted, whatever its status says (a store that an older StoreDesk left with a stale `pending`):
    /// it is finished, its status set right with the finish, and never granted twice.
    public mutating func resume(_ work: [InFlight]) {
        let clean = Plan(
            failure: nil, askToBuy: false, approve: true, crash: false, drops: 0, duplicate: false, tamperSign: false,
            tamperField: false, settleAfter: 0, decideAfter: 0)
        for item in work where !item.transaction.finished {
            let t = item.transaction, id = t.id
            summary.resumed += 1
            transactions[id] = t
            plans[id] = clean
            openByKey[t.userId + "|" + t.appId + "|" + t.productId] = id
            let at = now.millis + 50
            switch t.state {
            case .purchasing: schedule(.settle(id), at: at)
            case .deferred: schedule(.decide(id), at: at)
            case .failed, .restored: schedule(.finish(id), at: at)
            case .purchased:
                guard let order = item.order else {
                    schedule(.resend(id), at: at)
                    continue
                }
                orders[order.id] = order
                orderOf[id] = order.id
                if order.status == .granted || item.granted {
                    granted.insert(order.id)
                    if order.status != .granted {
                        var settled = order
                        settled.status = .granted
                        orders[order.id] = settled
                        staleOrders[id] = settled
                    }
                    schedule(.finish(id), at: at)
                } else {
                    schedule(.deliver(orderId: order.id, attempt: item.callbacks + 1, received: item.callbacks), at: at)
                }
            }
        }
    }

    // MARK: - Steps

    private mutating func perform(_ step: Step) -> [PaymentChange] {
        switch step {
        case .arrive: return arrive()
        case .settle(let id): return settle(id)
        case .decide(let id): return decide(id)
        case .deliver(let orderId, let attempt, let received): return deliver(orderId, attempt: attempt, received: received)
        case .redeliver(let orderId, let attempt): return redeliver(orderId, attempt: attempt)
        case .finish(let id): return finish(id)
        case .resend(let id): return order(id, detail: "the restarted client sends the receipt again")
        }
    }

    private mutating func arrive() -> [PaymentChange] {
        let t = now.millis
        if t < end.millis { schedule(.arrive, at: t.clampedAdding(nextGap())) }
        arrivals += 1
        summary.attempts += 1
        let number = arrivals
        let id = configuration.idPrefix + String(configuration.run) + "-T" + String(number)
        // A role the store has, and a product of that role's game.
        let account = buyers[random.below(buyers.count)]
        let userId = account.userId
        let login = logIn(userId)
        let products = sellableByApp[account.appId] ?? []
        let product = products[random.below(products.count)]
        let sid = account.sid
        let plan = drawPlan(configuration.storeKitTesting[product.appId])
        var input = PurchaseRequest.Input(
            productName: product.name, productId: product.id, productPrice: String(product.priceCents), sid: sid,
            roleId: account.roleId, orderId: "G" + String(number), ext: "{\"sim\":\(number)}")
        if random.chance(configuration.malformedShare) {
            switch random.below(3) {
            case 0: input.productPrice = ServerCallback.goldText(cents: product.priceCents)
            case 1: input.sid = "s 1/!"
            default: input.ext = String(repeating: "x", count: PurchaseRequest.maxExtLength + 1)
            }
        }
        let request: PurchaseRequest
        switch PurchaseRequest.validate(input) {
        case .failure(let refused):
            summary.requestsRefused += 1
            return [PaymentChange(login: login, events: [event(id, .requestRefused, "requestProduct refused: " + refused.reason)])]
        case .success(let valid):
            request = valid
        }
        let key = userId + "|" + product.appId + "|" + product.id
        let existing = openByKey[key].flatMap { transactions[$0] }.map { [$0] } ?? []
        switch TransactionStateMachine.begin(
            request, userId: userId, appId: product.appId, transactionId: id,
            environment: configuration.environment, at: now, existing: existing)
        {
        case .failure(let refusal):
            summary.purchasesRefused += 1
            let detail = "\(userId) asked for \(product.id) again: " + refusal.message
            return [PaymentChange(login: login, events: [event(id, .purchaseRefused, detail)])]
        case .success(let transaction):
            transactions[id] = transaction
            plans[id] = plan
            openByKey[key] = id
            schedule(.settle(id), at: t + plan.settleAfter)
            let detail = "\(userId) buys \(product.id) (\(product.priceText)) on \(sid)"
            return [PaymentChange(transaction: transaction, login: login, events: [event(id, .purchasing, detail)])]
        }
    }

    private mutating func settle(_ id: String) -> [PaymentChange] {
        guard let plan = plans[id] else { return [] }
        if let reason = plan.failure {
            return [
                transition(id, .fail(reason), .failed, "payment failed: \(reason.sentence) (\(reason.rawValue))",
                    thenFinish: true)
            ]
        }
        if plan.askToBuy {
            schedule(.decide(id), at: now.millis + plan.decideAfter)
            return [transition(id, .askToBuy, .deferred, "Ask to Buy: waiting for a parent", thenFinish: false)]
        }
        return paid(id, kind: .purchased, detail: "the App Store charged the player")
    }

    private mutating func decide(_ id: String) -> [PaymentChange] {
        guard let plan = plans[id] else { return [] }
        if plan.approve { return paid(id, kind: .approved, detail: "a parent approved: the App Store charged the player") }
        return [transition(id, .decline, .declined, "a parent declined: \(FailureReason.declined.sentence)", thenFinish: true)]
    }

    /// The App Store charged: the state change, then (unless the client crashes) the receipt check and the order.
    private mutating func paid(_ id: String, kind: PaymentEvent.Kind, detail: String) -> [PaymentChange] {
        guard let plan = plans[id], let transaction = transactions[id] else { return [] }
        let purchase: TransactionEvent = transaction.state == .deferred ? .approve : .purchase
        var changes = [transition(id, purchase, kind, detail, thenFinish: false)]
        guard let updated = transactions[id], updated.state == .purchased else { return changes }
        if plan.crash {
            loggedIn.remove(updated.userId)
            changes.append(
                PaymentChange(events: [
                    event(
                        id, .clientCrashed,
                        "the client crashed after paying, before sending the receipt or finishing: the transaction stays purchased and unfinished, no order; restore prompt at next login"
                    )
                ]))
            return changes
        }
        return changes + order(id, detail: nil)
    }

    /// The receipt check and the platform order for a paid transaction, then its callback.
    private mutating func order(_ id: String, detail: String?) -> [PaymentChange] {
        guard let updated = transactions[id], updated.state == .purchased else { return [] }
        var changes: [PaymentChange] = []
        let check = ReceiptCheck.run(receiptEnvironment: updated.environment)
        let checked = (detail.map { $0 + ": " } ?? "") + "receipt " + check.reason
        guard check.isValid, let app = apps[updated.appId] else {
            changes.append(PaymentChange(events: [event(id, .receiptChecked, checked)]))
            return changes
        }
        let price = sellable.first { $0.id == updated.productId && $0.appId == updated.appId }?.priceCents ?? 1
        // The next number of this run's block, a resumed transaction's too (its own run is gone).
        guard let orderId = orderNumbers?.next() else {
            let detail = "\(checked); no order: run \(configuration.run) has no order number left, a new run takes it over"
            changes.append(PaymentChange(events: [event(id, .receiptChecked, detail)]))
            return changes
        }
        let order = PaymentOrder(
            id: orderId, transactionId: id, appId: app.id, userId: updated.userId, productId: updated.productId,
            subPayment: updated.environment.rawValue, amountCents: price, sid: updated.sid, roleId: updated.roleId,
            appOrderId: updated.appOrderId, ext: updated.ext, createdAt: now, status: .pending)
        orders[orderId] = order
        orderOf[id] = orderId
        changes.append(
            PaymentChange(
                order: order,
                events: [
                    event(id, .receiptChecked, checked),
                    event(id, .orderCreated, "platform order \(orderId) created; callback to \(app.name) follows"),
                ]))
        schedule(.deliver(orderId: orderId, attempt: 1, received: 0), at: now.millis + 200)
        return changes
    }

    private mutating func deliver(_ orderId: String, attempt: Int, received: Int) -> [PaymentChange] {
        guard let order = orders[orderId], let plan = plans[order.transactionId],
            let transaction = transactions[order.transactionId], let app = apps[order.appId]
        else { return [] }
        let id = order.transactionId
        let retryAt = now.millis + Self.backoff(attempt: attempt)
        let retryText = "retry \(attempt + 1) in \((retryAt - now.millis) / 1000)s"
        if attempt >= Self.maxCallbackAttempts {
            summary.callbacksUnanswered += 1
            return [
                PaymentChange(events: [
                    event(id, .callbackAbandoned, "callback attempt \(attempt) not answered with success: the platform stops retrying and alerts")
                ])
            ]
        }
        if isServerDown(at: now.millis) {
            summary.callbacksUnanswered += 1
            schedule(.deliver(orderId: orderId, attempt: attempt + 1, received: received), at: retryAt)
            return [PaymentChange(events: [event(id, .serverDown, "game server down: callback attempt \(attempt) unanswered; \(retryText)")])]
        }
        if attempt <= plan.drops {
            summary.callbacksDropped += 1
            schedule(.deliver(orderId: orderId, attempt: attempt + 1, received: received), at: retryAt)
            return [PaymentChange(events: [event(id, .callbackDropped, "network dropped callback attempt \(attempt); \(retryText)")])]
        }
        let callback = ServerCallback(transaction: transaction, orderId: orderId, app: app, timestamp: now)
        var body = callback.body
        var tampering = ""
        if received == 0 && plan.tamperSign {
            let forged = CallbackSignature.md5Hex(callback.sign + "forged")
            body = body.replacingSuffix("sign=" + callback.sign, with: "sign=" + forged)
            tampering = " (sign tampered in transit)"
        } else if received == 0 && plan.tamperField {
            body = body.replacingFirst("product_id=", with: "product_id=tampered.")
            tampering = " (product_id tampered in transit)"
        }
        if configuration.remoteApps.contains(app.id) {
            send(
                orderId: orderId, transactionId: id, appId: app.id, attempt: attempt, received: received, body: body,
                isRepeat: false, tampering: tampering)
            return []
        }
        let decision = GrantRule.decide(
            body: body, app: app, products: sellable, alreadyGranted: granted, at: now)
        var record = CallbackAttempt(
            orderId: orderId, attempt: attempt, body: body, signExpected: decision.verification.expectedSign,
            signReceived: decision.verification.receivedSign ?? "", verdict: "", reason: decision.reason,
            reply: decision.reply, receivedAt: now)
        switch decision.outcome {
        case .grant(let grant):
            summary.callbacksAccepted += 1
            summary.grants += 1
            granted.insert(orderId)
            var grantedOrder = order
            grantedOrder.status = .granted
            orders[orderId] = grantedOrder
            record.verdict = CallbackAttempt.accepted
            schedule(.finish(id), at: now.millis + 100)
            if plan.duplicate { schedule(.redeliver(orderId: orderId, attempt: attempt + 1), at: now.millis + 500) }
            let what = grant.kind == .product ? grant.productId : "\(grant.currencyAmount) currency"
            return [
                PaymentChange(
                    order: grantedOrder, callback: record, grant: grant,
                    events: [
                        event(id, .callbackAccepted, "callback attempt \(attempt) accepted: \(decision.reason); replied \(decision.reply)"),
                        event(id, .granted, "granted \(what) to \(grant.userId) on \(grant.sid)"),
                    ])
            ]
        case .duplicate:
            summary.callbacksDuplicate += 1
            record.verdict = CallbackAttempt.duplicate
            return [PaymentChange(callback: record, events: [event(id, .callbackDuplicate, decision.reason)])]
        case .reject(let refusal):
            summary.callbacksRejected += 1
            record.verdict = refusal.code
            schedule(.deliver(orderId: orderId, attempt: attempt + 1, received: received + 1), at: retryAt)
            let line = decision.logLine ?? decision.reason
            return [
                PaymentChange(
                    callback: record,
                    events: [event(id, .callbackRejected, "callback attempt \(attempt) rejected\(tampering): \(line); replied \(decision.reply); \(retryText)")])
            ]
        }
    }

    /// The platform sends an accepted callback again (it did not see the reply).
    private mutating func redeliver(_ orderId: String, attempt: Int) -> [PaymentChange] {
        guard let order = orders[orderId], let transaction = transactions[order.transactionId],
            let app = apps[order.appId]
        else { return [] }
        let callback = ServerCallback(transaction: transaction, orderId: orderId, app: app, timestamp: now)
        if configuration.remoteApps.contains(app.id) {
            send(
                orderId: orderId, transactionId: transaction.id, appId: app.id, attempt: attempt, received: 1,
                body: callback.body, isRepeat: true, tampering: "")
            return []
        }
        let decision = GrantRule.decide(body: callback.body, app: app, products: sellable, alreadyGranted: granted, at: now)
        if transaction.finished { forget(transaction.id) }
        guard case .duplicate = decision.outcome else { return [] }
        summary.callbacksDuplicate += 1
        let record = CallbackAttempt(
            orderId: orderId, attempt: attempt, body: callback.body, signExpected: decision.verification.expectedSign,
            signReceived: decision.verification.receivedSign ?? "", verdict: CallbackAttempt.duplicate,
            reason: decision.reason, reply: decision.reply, receivedAt: now)
        return [
            PaymentChange(
                callback: record,
                events: [event(order.transactionId, .callbackDuplicate, "duplicate callback attempt \(attempt): \(decision.reason)")])
        ]
    }

    private mutating func finish(_ id: String) -> [PaymentChange] {
        guard let transaction = transactions[id] else { return [] }
        switch TransactionStateMachine.apply(.finish, to: transaction) {
        case .failure(let refusal):
            return [PaymentChange(events: [event(id, .finished, "finish refused: " + refusal.message)])]
        case .success(let finished):
            let key = finished.userId + "|" + finished.appId + "|" + finished.productId
            if openByKey[key] == id { openByKey[key] = nil }
            summary.finished += 1
            // Nothing more can happen to it, unless a duplicate callback is still to come.
            if plans[id]?.duplicate == true {
                transactions[id] = finished
            } else {
                forget(id)
            }
            let stale = staleOrders.removeValue(forKey: id)
            let note = stale.map { "; order \($0.id) was granted already (its grant is in the store): marked granted" } ?? ""
            return [
                PaymentChange(
                    transaction: finished, order: stale,
                    events: [event(id, .finished, "finishTransaction: removed from the queue (\(finished.state.rawValue))" + note)])
            ]
        }
    }

    // MARK: - Helpers

    private mutating func transition(
        _ id: String, _ storeEvent: TransactionEvent, _ kind: PaymentEvent.Kind, _ detail: String, thenFinish: Bool
    ) -> PaymentChange {
        guard let transaction = transactions[id] else { return PaymentChange(events: []) }
        switch TransactionStateMachine.apply(storeEvent, to: transaction) {
        case .failure(let refusal):
            return PaymentChange(events: [event(id, kind, "refused: " + refusal.message)])
        case .success(let updated):
            transactions[id] = updated
            if thenFinish { schedule(.finish(id), at: now.millis + 100) }
            return PaymentChange(transaction: updated, events: [event(id, kind, detail)])
        }
    }

    /// A player starting a purchase is logged in: the first time in a run, and again after their client
    /// crashed (it restarts), the login brings their dropped orders back as restore prompts.
    private mutating func logIn(_ userId: String) -> PlayerLogin? {
        loggedIn.insert(userId).inserted ? PlayerLogin(userId: userId, at: now) : nil
    }

    func event(_ id: String, _ kind: PaymentEvent.Kind, _ detail: String) -> PaymentEvent {
        PaymentEvent(at: now, transactionId: id, kind: kind, detail: detail)
    }

    /// Draws a purchase's fate; an app's StoreKit test settings force Ask to Buy or a failure on top of
    /// the draws (which stay the same, so other apps' purchases go as they would without them).
    private mutating func drawPlan(_ testing: StoreKitPurchaseTesting?) -> Plan {
        func roll(_ name: String) -> Bool { random.chance(probabilities[name] ?? 0) }
        let failureReasons: [FailureReason] = [.cancelled, .paymentInvalid, .notAllowed, .productUnavailable, .networkError]
        let failed = roll("fail") || testing?.failTransactions == true
        let failure = failureReasons[random.below(failureReasons.count)]
        let ask = roll("ask") || testing?.askToBuy == true
        let approve = random.chance(0.7)
        let crash = roll("crash")
        let drop = roll("drop")
        let drops = 1 + random.below(3)
        let duplicate = roll("duplicate")
        let sign = roll("sign")
        let field = roll("field")
        let settleAfter = Int64(300 + random.below(1700))
        let decideAfter = Int64(5000 + random.below(25_000))
        return Plan(
            failure: failed ? failure : nil, askToBuy: ask, approve: approve, crash: crash, drops: drop ? drops : 0,
            duplicate: duplicate, tamperSign: sign, tamperField: field && !sign,
            settleAfter: settleAfter, decideAfter: decideAfter)
    }

    /// Milliseconds to the next arrival: exponential with mean 1/rate, at least 1 ms.
    private mutating func nextGap() -> Int64 {
        let u = Double(random.next() >> 11) * 0x1.0p-53
        let gap = -log1p(-u) / rate * 1000
        return max(1, Int64(clamping: gap))
    }

    private func isServerDown(at millis: Int64) -> Bool {
        downWindows.contains { millis >= $0.from && millis < $0.to }
    }

    /// Exponential backoff: 1 s, 2 s, 4 s, … capped at 64 s.
    static func backoff(attempt: Int) -> Int64 {
        1000 << Int64(min(max(attempt - 1, 0), 6))
    }

    mutating func schedule(_ step: Step, at millis: Int64) {
        sequence += 1
        agenda.insert(Scheduled(at: millis, sequence: sequence, step: step))
    }

    /// Drops a finished transaction from memory; its final state stays in the summary.
    mutating func forget(_ id: String) {
        guard let transaction = transactions.removeValue(forKey: id) else { return }
        plans[id] = nil
        finalStates[transaction.state.rawValue, default: 0] += 1
        if let orderId = orderOf.removeValue(forKey: id) {
            orders[orderId] = nil
            granted.remove(orderId)
        }
    }

    mutating func finishSummary() {
        var states = finalStates
        var dropped = 0
        var awaiting = 0
        for (id, transaction) in transactions {
            states[transaction.state.rawValue, default: 0] += 1
            if transaction.state == .purchased && !transaction.finished {
                if plans[id]?.crash == true {
                    dropped += 1
                } else {
                    awaiting += 1
                }
            }
        }
        summary.states = states
        summary.droppedOrders = dropped
        summary.awaitingCallback = awaiting
    }
}
