/// A deterministic synthetic player base for load and demo: the same seed and index always give the
/// same household, on any machine, in any order, so a million users can be generated in one pass.
///
///     let population = SyntheticPopulation(catalogue: catalogue, seed: 7, now: clock)
///     let first = population.household(0)   // a user with accounts, purchases, orders, grants
public struct SyntheticPopulation: Sendable {
    public let catalogue: Catalogue
    public let seed: UInt64
    /// The store's clock: subscriptions are active or expired relative to it.
    public let now: Instant

    public init(catalogue: Catalogue, seed: UInt64, now: Instant) {
        self.catalogue = catalogue
        self.seed = seed
        self.now = now
    }

    /// Everything one synthetic player brings to the store.
    public struct Household: Sendable {
        public var user: User
        public var accounts: [GameAccount]
        public var transactions: [StoreTransaction]
        public var orders: [PaymentOrder]
        public var grants: [Grant]
        public var subscriptions: [Subscription]
        public var restoreRequests: [RestoreRequest]
    }

    public func household(_ index: Int) -> Household {
        var rng = SeededGenerator(seed: seed ^ (UInt64(index) &* 0xD6E8_FEB8_6659_FD93))
        let userId = String(20_000_000 + index)
        let createdAt = now.adding(.minutes(-Int64(rng.below(2 * 365 * 24 * 60)) - 60))
        let site = rng.pick(Self.sites)
        let isGuest = rng.chance(0.08)
        let name = isGuest ? userId : Self.name(&rng)
        let friendly = isGuest ? "" : (rng.chance(0.7) ? Self.nickname(&rng, base: name) : "")
        let adult = rng.pick(Self.adultTypes)
        let verified = adult != .unverified
        let user = User(
            id: userId, name: name, friendlyName: friendly,
            idCard: verified ? Self.maskedIDCard(&rng) : "",
            phone: rng.chance(0.8) ? Self.phone(&rng) : "",
            site: isGuest ? .veryCD : site, adultType: adult, fcm: adult != .adult, authorizState: verified ? 1 : 0,
            safety: rng.below(3), clientId: "c" + String(rng.below(9000) + 1000), createdAt: createdAt)

        let app = catalogue.apps[rng.below(catalogue.apps.count)]
        let appleId = "apple." + String(rng.next() % 1_000_000_000_000, radix: 36)
        let accountCount = rng.chance(0.1) ? 2 + rng.below(2) : 1
        var accounts: [GameAccount] = []
        for a in 0..<accountCount {
            accounts.append(
                GameAccount(
                    appleId: appleId, userId: userId, appId: app.id, sid: "s" + String(1 + rng.below(40)),
                    roleId: "r" + String(index) + "-" + String(a), roleName: Self.roleName(&rng),
                    appAccountToken: Self.uuid(&rng)))
        }

        var household = Household(
            user: user, accounts: accounts, transactions: [], orders: [], grants: [], subscriptions: [],
            restoreRequests: [])
        let products = catalogue.products(of: app.id)
        let oneShots = products.filter { $0.type != .autoRenewable }
        let subscriptionProducts = products.filter { $0.type == .autoRenewable }
        // About three transactions a user, one in ten users a subscriber.
        let purchases = rng.pick([(1, 0.25), (2, 0.2), (3, 0.2), (4, 0.15), (5, 0.1), (6, 0.1)])
        var sequence = 0
        var lastPurchase = createdAt
        for _ in 0..<purchases {
            guard !oneShots.isEmpty else { break }
            let product = oneShots[rng.below(oneShots.count)]
            let account = accounts[rng.below(accounts.count)]
            lastPurchase = lastPurchase.adding(.minutes(Int64(1 + rng.below(20 * 24 * 60))))
            // At the clock or past it: back into the last ten hours, so the order and grant stamped up to
            // half a minute after the purchase still come before the clock (one purchase in a million
            // landed on the clock's very minute, and `check` found its order after it).
            if lastPurchase >= now { lastPurchase = now.adding(.minutes(-Int64(1 + rng.below(600)))) }
            addPurchase(
                &household, &rng, index: index, sequence: &sequence, product: product, account: account,
                app: app, at: lastPurchase)
        }
        if !subscriptionProducts.isEmpty && rng.chance(0.1) {
            let product = subscriptionProducts[rng.below(subscriptionProducts.count)]
            addSubscription(
                &household, &rng, index: index, sequence: &sequence, product: product, account: accounts[0], app: app)
        }
        return household
    }

    private func transactionId(_ index: Int, _ sequence: Int) -> String {
        String(2_000_000_000_000_000 + index * 16 + sequence)
    }

    /// The platform order number of a household's purchase: a number below 10^10, in the block that
    /// belongs to no payment run (`OrderNumbers`), from the same index and sequence as its transaction.
    private func orderId(_ index: Int, _ sequence: Int) -> String {
        String(1_000_000_000 + index * 16 + sequence)
    }

    private func addPurchase(
        _ h: inout Household, _ rng: inout SeededGenerator, index: Int, sequence: inout Int, product: Product,
        account: GameAccount, app: App, at date: Instant
    ) {
        let txid = transactionId(index, sequence)
        let orderId = orderId(index, sequence)
        sequence += 1
        let environment: StoreEnvironment = rng.chance(0.03) ? .sandbox : .production
        let outcome = rng.pick([
            ("granted", 0.86), ("failed", 0.08), ("dropped", 0.02), ("deferred", 0.01), ("purchasing", 0.01),
            ("restored", 0.02),
        ])
        let appOrderId = "G" + String(index) + "-" + String(sequence)
        var txn = StoreTransaction(
            id: txid, originalTransactionId: txid, userId: h.user.id, appId: app.id, productId: product.id,
            quantity: product.type == .consumable && rng.chance(0.05) ? 2 : 1, state: .purchased,
            environment: environment, sid: account.sid, roleId: account.roleId, appOrderId: appOrderId,
            ext: rng.chance(0.3) ? "{\"channel\":\"ch" + String(rng.below(9)) + "\"}" : "", purchaseDate: date,
            finished: true)
        switch outcome {
        case "failed":
            txn.state = .failed
            txn.failureReason = rng.pick([
                (FailureReason.cancelled, 0.6), (.paymentInvalid, 0.1), (.notAllowed, 0.1), (.productUnavailable, 0.1),
                (.networkError, 0.1),
            ])
        case "dropped":
            txn.finished = false
            h.transactions.append(txn)
            if rng.chance(0.5) {
                h.restoreRequests.append(
                    RestoreRequest(
                        transactionId: txid, userId: h.user.id, productId: product.id, quantity: txn.quantity,
                        status: .open, createdAt: min(now, date.adding(.minutes(Int64(5 + rng.below(600)))))))
            }
            return
        case "deferred":
            txn.state = .deferred
            txn.finished = false
        case "purchasing":
            txn.state = .purchasing
            txn.finished = false
        case "restored":
            if product.type.isRestorable { txn.state = .restored }
        default: break
        }
        h.transactions.append(txn)
        if txn.state == .purchased && txn.finished {
            addOrderAndGrant(&h, txn: txn, orderId: orderId, product: product, at: date.adding(.seconds(Int64(2 + rng.below(30)))))
        }
    }

    private func addOrderAndGrant(_ h: inout Household, txn: StoreTransaction, orderId: String, product: Product, at date: Instant) {
        h.orders.append(
            PaymentOrder(
                id: orderId, transactionId: txn.id, appId: txn.appId, userId: txn.userId, productId: product.id,
                subPayment: txn.environment.rawValue, amountCents: product.priceCents * txn.quantity, sid: txn.sid,
                roleId: txn.roleId, appOrderId: txn.appOrderId, ext: txn.ext, createdAt: date, status: .granted))
        h.grants.append(
            Grant(
                orderId: orderId, userId: txn.userId, sid: txn.sid, roleId: txn.roleId, productId: product.id,
                quantity: txn.quantity, kind: .product, source: .purchase, grantedAt: date.adding(.seconds(1))))
    }

    private func addSubscription(
        _ h: inout Household, _ rng: inout SeededGenerator, index: Int, sequence: inout Int, product: Product,
        account: GameAccount, app: App
    ) {
        guard let period = product.period, let group = product.subscriptionGroup else { return }
        let state = rng.pick([
            (SubscriptionState.active, 0.6), (.gracePeriod, 0.05), (.billingRetry, 0.05), (.expired, 0.25),
            (.revoked, 0.05),
        ])
        let periodMillis = period.approximateDays * 86_400_000
        let renewals = Int64(rng.below(6))
        // Where the current period ends relative to now decides the state.
        var expires: Instant
        switch state {
        case .active: expires = now.adding(.minutes(Int64(1 + rng.below(Int(period.approximateDays) * 1440))))
        case .gracePeriod, .billingRetry: expires = now.adding(.hours(-Int64(1 + rng.below(48))))
        case .expired: expires = now.adding(.days(-Int64(1 + rng.below(120))))
        case .revoked: expires = now.adding(.days(Int64(rng.below(20)) - 5))
        }
        // Nothing is bought after the store's clock: a revoked period that would end far enough ahead to
        // begin after it ends one period after the clock instead.
        if expires.millis - periodMillis > now.millis - 60_000 { expires = Instant(millis: now.millis - 60_000 + periodMillis) }
        let purchase = Instant(millis: expires.millis - periodMillis)
        let original = Instant(millis: purchase.millis - renewals * periodMillis)
        let txid = transactionId(index, sequence)
        let orderId = orderId(index, sequence)
        sequence += 1
        var txn = StoreTransaction(
            id: txid, originalTransactionId: txid, userId: h.user.id, appId: app.id, productId: product.id,
            state: .purchased, sid: account.sid, roleId: account.roleId, appOrderId: "G" + String(index) + "-sub",
            purchaseDate: original, expiresDate: expires, finished: true)
        var subscription = Subscription(
            id: txid, userId: h.user.id, appId: app.id, productId: product.id, groupId: group, state: state,
            autoRenew: state != .expired && rng.chance(0.85), originalPurchaseDate: original, purchaseDate: purchase,
            expiresDate: expires)
        if rng.chance(0.15) {
            subscription.offerType = rng.pick([("introductory", 0.6), ("promotional", 0.25), ("offer_code", 0.15)])
            subscription.offerId = subscription.offerType == "introductory" ? "free-trial-7d" : "winback-50"
        }
        switch state {
        case .gracePeriod:
            subscription.gracePeriodExpiresDate = expires.adding(.days(Int64(max(app.gracePeriodDays, 3))))
            subscription.expirationIntent = "billing_error"
        case .billingRetry:
            subscription.expirationIntent = "billing_error"
        case .expired:
            subscription.expirationIntent = rng.pick([
                ("cancelled", 0.6), ("billing_error", 0.25), ("price_increase", 0.1), ("product_unavailable", 0.05),
            ])
        case .revoked:
            let revoked = purchase.adding(.days(Int64(1 + rng.below(5))))
            subscription.revocationDate = revoked
            subscription.revocationReason = rng.pick([("refund", 0.8), ("family_sharing", 0.2)])
            subscription.autoRenew = false
            txn.revocationDate = revoked
            txn.revocationReason = subscription.revocationReason
        case .active: break
        }
        h.transactions.append(txn)
        addOrderAndGrant(&h, txn: txn, orderId: orderId, product: product, at: original.adding(.seconds(5)))
        h.subscriptions.append(subscription)
    }

    // MARK: - Names and numbers

    static let sites: [(Site, Double)] = [
        (.platform, 0.25), (.weChat, 0.3), (.qq, 0.2), (.tapTap, 0.1), (.apple, 0.13), (.veryCD, 0.02),
    ]
    static let adultTypes: [(AdultType, Double)] = [
        (.adult, 0.7), (.unverified, 0.1), (.age16to18, 0.1), (.age8to16, 0.07), (.age0to8, 0.03),
    ]
    static let surnames = Array("王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤")
    static let givenChars = Array("伟芳娜敏静丽强磊军洋勇艳杰娟涛明超秀霞平刚桂英华玉兰萍鹏辉飞鑫宇浩然子轩梓涵一诺欣怡思雨晨曦雪梅俊杰嘉豪婷婷佳琪")
    static let latinFirst = [
        "Alex", "Sam", "Jordan", "Taylor", "Chris", "Morgan", "Jamie", "Robin", "Lee", "Kai", "Mia", "Noah", "Emma",
        "Liam", "Olivia", "Lucas", "Ava", "Ethan", "Zoe", "Leo",
    ]
    static let latinLast = [
        "Chen", "Wong", "Smith", "Garcia", "Nguyen", "Kim", "Tan", "Lim", "Park", "Brown", "Silva", "Ng", "Lau",
    ]
    static let nicknameSuffixes = ["", "", "🐉", "⭐", "酱", "_pro", "🎮", "007", "の猫", "✨"]

    static func name(_ rng: inout SeededGenerator) -> String {
        if rng.chance(0.7) {
            var name = String(surnames[rng.below(surnames.count)])
            for _ in 0..<(1 + rng.below(2)) { name.append(givenChars[rng.below(givenChars.count)]) }
            return name
        }
        return latinFirst[rng.below(latinFirst.count)] + " " + latinLast[rng.below(latinLast.count)]
    }

    static func nickname(_ rng: inout SeededGenerator, base: String) -> String {
        let suffix = nicknameSuffixes[rng.below(nicknameSuffixes.count)]
        return (rng.chance(0.5) ? base : name(&rng)) + suffix
    }

    static func roleName(_ rng: inout SeededGenerator) -> String {
        let prefixes = ["剑", "影", "风", "星", "月", "Shadow", "Blaze", "Frost"]
        let suffixes = ["客", "舞者", "行者", "Hunter", "Mage", "骑士"]
        return prefixes[rng.below(prefixes.count)] + suffixes[rng.below(suffixes.count)] + String(rng.below(100))
    }

    static func phone(_ rng: inout SeededGenerator) -> String {
        let prefixes = ["130", "131", "132", "135", "136", "138", "139", "150", "151", "158", "177", "180", "186", "189", "199"]
        var phone = prefixes[rng.below(prefixes.count)]
        for _ in 0..<8 { phone.append(Character(String(rng.below(10)))) }
        return phone
    }

    static func maskedIDCard(_ rng: inout SeededGenerator) -> String {
        let regions = ["110", "310", "440", "320", "330", "510", "420", "370"]
        var tail = ""
        for _ in 0..<3 { tail.append(Character(String(rng.below(10)))) }
        tail.append(rng.chance(0.1) ? "X" : Character(String(rng.below(10))))
        return regions[rng.below(regions.count)] + String(repeating: "*", count: 11) + tail
    }

    static func uuid(_ rng: inout SeededGenerator) -> String {
        let hex = Array("0123456789abcdef")
        var out = ""
        for i in 0..<32 {
            if i == 8 || i == 12 || i == 16 || i == 20 { out.append("-") }
            out.append(i == 12 ? "4" : hex[rng.below(16)])
        }
        return out
    }
}

/// The apps and products a store sells.
public struct Catalogue: Sendable, Hashable {
    public var apps: [App]
    public var products: [Product]

    public init(apps: [App], products: [Product]) {
        self.apps = apps
        self.products = products
    }

    public func products(of appId: String) -> [Product] { products.filter { $0.appId == appId } }
}
