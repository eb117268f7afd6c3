import Testing

@testable import StoreDeskCore

/// One Apple ID (`apple.fam`) with two players in the app and a role in another app, one outsider.
enum RestoreFixtures {
    static let now = Instant(millis: 1_800_000_000_000)
    static let support = StaffMember(name: "li.support", role: .support)

    static func app(_ ownership: RestoreOwnership) -> App {
        App(
            id: "1001", name: "星辰", bundleId: "com.example.star", appKey: "demo-app-key-0123456789",
            currencyPerYuan: 10, restoreOwnership: ownership, gracePeriodDays: 0)
    }

    static let products = [
        Product(id: "gems.60", appId: "1001", name: "60 gems", type: .consumable, priceCents: 600, currency: "CNY"),
        Product(id: "noads", appId: "1001", name: "No ads", type: .nonConsumable, priceCents: 1200, currency: "CNY"),
        Product(
            id: "vip.monthly", appId: "1001", name: "VIP", type: .autoRenewable, priceCents: 3000, currency: "CNY",
            subscriptionGroup: "vip", period: .oneMonth),
    ]

    static let accounts = [
        GameAccount(appleId: "apple.fam", userId: "u1", appId: "1001", sid: "s1", roleId: "r1", roleName: "Mum", appAccountToken: "t1"),
        GameAccount(appleId: "apple.fam", userId: "u1", appId: "1001", sid: "s7", roleId: "r1b", roleName: "Mum alt", appAccountToken: "t2"),
        GameAccount(appleId: "apple.fam", userId: "u2", appId: "1001", sid: "s1", roleId: "r2", roleName: "Kid", appAccountToken: "t3"),
        GameAccount(appleId: "apple.fam", userId: "u2", appId: "2002", sid: "s1", roleId: "r2x", roleName: "Elsewhere", appAccountToken: "t4"),
        GameAccount(appleId: "apple.other", userId: "u9", appId: "1001", sid: "s1", roleId: "r9", roleName: "Stranger", appAccountToken: "t5"),
    ]

    static func dropped(_ id: String = "T1", product: String = "gems.60") -> StoreTransaction {
        StoreTransaction(
            id: id, originalTransactionId: id, userId: "u1", appId: "1001", productId: product, state: .purchased,
            sid: "s1", roleId: "r1", appOrderId: "G1", ext: "{\"a\":1}", purchaseDate: now.adding(.hours(-3)),
            finished: false)
    }

    static func prompt(_ ownership: RestoreOwnership, transaction: StoreTransaction = dropped()) -> RestorePrompt {
        let request = RestoreRequest(
            id: 1, transactionId: transaction.id, userId: transaction.userId, productId: transaction.productId,
            quantity: 1, status: .open, createdAt: now.adding(.hours(-2)))
        let product = products.first { $0.id == transaction.productId } ?? products[0]
        return RestorePrompt(
            request: request, transaction: transaction, product: product, app: app(ownership), accounts: accounts)
    }

    static func confirm(
        _ ownership: RestoreOwnership, onto account: RestoreAccount, by staff: StaffMember = support
    ) -> Result<RestoreDecision, RestoreRefusal> {
        RestoreRules.confirm(prompt(ownership), onto: account, by: staff, products: products, orderId: "30000000001", at: now)
    }
}

@Suite struct RestorePromptTests {
    @Test func thePayingAccountComesFirstThenEveryOtherRoleOnTheAppleIDInThisApp() {
        let prompt = RestoreFixtures.prompt(.transfer)
        #expect(prompt.appleIds == ["apple.fam"])
        #expect(prompt.candidates.map(\.label) == ["u1 s1/r1", "u1 s7/r1b", "u2 s1/r2"])
        #expect(prompt.payingAccount.roleName == "Mum")
        #expect(prompt.currentOwners.map(\.label) == ["u1 s1/r1"])
        #expect(prompt.age(at: RestoreFixtures.now) == .hours(2))
    }

    @Test func aPayingRoleTheStoreDoesNotKnowIsStillACandidate() {
        var transaction = RestoreFixtures.dropped()
        transaction.sid = "s3"
        transaction.roleId = "sim-role"
        let prompt = RestoreFixtures.prompt(.share, transaction: transaction)
        #expect(prompt.candidates.map(\.label) == ["u1 s3/sim-role", "u1 s1/r1", "u1 s7/r1b", "u2 s1/r2"])
        #expect(prompt.payingAccount.roleName.isEmpty)
    }

    @Test func thePromptStatesWhichOwnershipRuleApplies() {
        #expect(RestoreFixtures.prompt(.transfer).ownershipRule.hasPrefix("transfer: 星辰 moves the purchase"))
        #expect(RestoreFixtures.prompt(.keep).ownershipRule.contains("a restore onto another account is refused"))
        #expect(RestoreFixtures.prompt(.share).ownershipRule.hasPrefix("share: 星辰 lets both hold it"))
    }
}

@Suite struct RestoreRulesTests {
    @Test func onlyAnUnfinishedPurchaseWithoutAnOrderComesBack() {
        let dropped = RestoreFixtures.dropped()
        #expect(RestoreRules.comesBack(dropped, hasOrder: false))
        #expect(!RestoreRules.comesBack(dropped, hasOrder: true))
        var finished = dropped
        finished.finished = true
        #expect(!RestoreRules.comesBack(finished, hasOrder: false))
        var deferred = dropped
        deferred.state = .deferred
        #expect(!RestoreRules.comesBack(deferred, hasOrder: false))
        let (request, event) = RestoreRules.prompt(for: dropped, loggedIn: "u2", at: RestoreFixtures.now)
        #expect(request.status == .open && request.userId == "u1" && request.transactionId == "T1")
        #expect(event.kind == .restorePrompted && event.detail.hasPrefix("u2 logged in"))
    }

    @Test func aConfirmOntoThePayingAccountWritesASignedCallbackARestoreGrantAndFinishes() throws {
        let decision = try RestoreFixtures.confirm(.keep, onto: RestoreAccount(userId: "u1", sid: "s1", roleId: "r1")).get()
        let change = decision.change
        let order = try #require(change.order)
        #expect(order.id == "30000000001" && order.userId == "u1" && order.sid == "s1" && order.status == .granted)
        #expect(order.payment == "appstore" && order.amountCents == 600)
        let callback = try #require(change.callback)
        #expect(callback.verdict == "accepted" && callback.reply == "success")
        let verification = CallbackSignature.verify(body: callback.body, appKey: RestoreFixtures.app(.keep).appKey)
        #expect(verification.verdict == .valid)
        #expect(verification.fields.text("role_id") == "r1" && verification.fields.text("app_id") == "s1")
        let grant = try #require(change.grant)
        #expect(grant.source == .restore && grant.kind == .product && grant.productId == "gems.60" && grant.roleId == "r1")
        #expect(change.transaction?.finished == true && change.transaction?.state == .purchased)
        #expect(change.events.map(\.kind) == [.restoreConfirmed, .orderCreated, .callbackAccepted, .granted, .finished])
        #expect(decision.request.status == .confirmed && decision.request.resolvedBy == "li.support")
        #expect(decision.request.targetRoleId == "r1")
        #expect(decision.audit.action == "restore.confirm" && decision.audit.role == "support")
        #expect(decision.audit.subject == "transaction T1")
    }

    @Test func transferMovesThePurchaseToTheChosenAccount() throws {
        let decision = try RestoreFixtures.confirm(.transfer, onto: RestoreAccount(userId: "u2", sid: "s1", roleId: "r2")).get()
        #expect(decision.change.grant?.userId == "u2")
        #expect(decision.audit.detail.contains("transfer: moved from u1 s1/r1"))
        var prompt = RestoreFixtures.prompt(.transfer)
        prompt.request = decision.request
        #expect(prompt.currentOwners.map(\.label) == ["u2 s1/r2"])
    }

    @Test func keepRefusesAnotherAccountAndNamesTheOwner() {
        let result = RestoreFixtures.confirm(.keep, onto: RestoreAccount(userId: "u1", sid: "s7", roleId: "r1b"))
        guard case .failure(let refusal) = result else {
            Issue.record("keep must refuse another account")
            return
        }
        #expect(refusal.code == "kept_with_owner")
        #expect(refusal.description == "星辰 keeps purchases with the account that paid (u1 s1/r1): restoring onto u1 s7/r1b is refused (ownership: keep)")
    }

    @Test func shareLetsBothHoldIt() throws {
        let decision = try RestoreFixtures.confirm(.share, onto: RestoreAccount(userId: "u1", sid: "s7", roleId: "r1b")).get()
        #expect(decision.change.grant?.sid == "s7")
        var prompt = RestoreFixtures.prompt(.share)
        prompt.request = decision.request
        #expect(prompt.currentOwners.map(\.label) == ["u1 s1/r1", "u1 s7/r1b"])
    }

    @Test func anOperatorMayOnlyLook() {
        for role in [StaffRole.operator] {
            let staff = StaffMember(name: "chen.ops", role: role)
            let result = RestoreFixtures.confirm(.share, onto: RestoreAccount(userId: "u1", sid: "s1", roleId: "r1"), by: staff)
            #expect(result == .failure(.roleMayNotAct(staff)))
            #expect(RestoreRules.decline(RestoreFixtures.prompt(.share), reason: "no", by: staff, at: RestoreFixtures.now)
                == .failure(.roleMayNotAct(staff)))
        }
        for role in StaffMember.restoringRoles {
            let staff = StaffMember(name: "x", role: role)
            #expect((try? RestoreFixtures.confirm(.share, onto: RestoreAccount(userId: "u1", sid: "s1", roleId: "r1"), by: staff).get()) != nil)
        }
    }

    @Test func aResolvedPromptIsRefusedWithWhoResolvedItAndWhen() throws {
        let first = try RestoreFixtures.confirm(.transfer, onto: RestoreAccount(userId: "u1", sid: "s1", roleId: "r1")).get()
        var prompt = RestoreFixtures.prompt(.transfer)
        prompt.request = first.request
        let second = RestoreRules.confirm(
            prompt, onto: RestoreAccount(userId: "u2", sid: "s1", roleId: "r2"),
            by: StaffMember(name: "wang.dev", role: .developer), products: RestoreFixtures.products,
            orderId: "30000000002", at: RestoreFixtures.now.adding(.seconds(5)))
        guard case .failure(let refusal) = second else {
            Issue.record("a second confirm must be refused")
            return
        }
        #expect(refusal.description == "transaction T1 was already restored by li.support (support) at \(RestoreFixtures.now.iso8601) onto u1 s1/r1")
        let declined = RestoreRules.decline(prompt, reason: "late", by: RestoreFixtures.support, at: RestoreFixtures.now)
        #expect(declined == .failure(.alreadyResolved(first.request)))
    }

    @Test func theRestoreProductCallFollowsThePurchaseRequestRules() {
        let result = RestoreFixtures.confirm(.share, onto: RestoreAccount(userId: "u1", sid: "s 1/!", roleId: "r1"))
        #expect(result == .failure(.request(PurchaseRequest.Refused(refusals: [.sidInvalidCharacters]))))
        let empty = RestoreFixtures.confirm(.share, onto: RestoreAccount(userId: "u1", sid: "", roleId: "r1"))
        #expect(empty == .failure(.request(PurchaseRequest.Refused(refusals: [.sidMissing]))))
    }

    @Test func theAccountMustBeARoleOnTheAppleIDThatPaid() {
        let stranger = RestoreFixtures.confirm(.share, onto: RestoreAccount(userId: "u9", sid: "s1", roleId: "r9"))
        #expect(stranger == .failure(.notOnAppleID(account: "u9", transactionId: "T1", appleIds: ["apple.fam"])))
        let wrongRole = RestoreFixtures.confirm(.share, onto: RestoreAccount(userId: "u2", sid: "s1", roleId: "r2x"))
        guard case .failure(let refusal) = wrongRole else {
            Issue.record("a role of another app must be refused")
            return
        }
        #expect(refusal.description == "account u2 has no role r2x on server s1 in app 1001 (it has s1/r2)")
    }

    @Test func aDeclineNeedsAReasonAndLeavesTheTransactionUnfinished() throws {
        let prompt = RestoreFixtures.prompt(.keep)
        #expect(RestoreRules.decline(prompt, reason: " \n ", by: RestoreFixtures.support, at: RestoreFixtures.now)
            == .failure(.reasonMissing))
        let decision = try RestoreRules.decline(
            prompt, reason: " paid by mistake; refunded ", by: RestoreFixtures.support, at: RestoreFixtures.now
        ).get()
        #expect(decision.request.status == .declined && decision.request.reason == "paid by mistake; refunded")
        #expect(decision.change.transaction == nil && decision.change.grant == nil)
        #expect(decision.change.events.map(\.kind) == [.restoreDeclined])
        #expect(decision.audit.action == "restore.decline" && decision.audit.detail == "paid by mistake; refunded")
    }
}

@Suite struct RestorePurchasesTests {
    static func purchase(
        _ product: String, holders: [RestoreAccount], expires: Instant? = nil, revoked: Instant? = nil
    ) -> RestorePurchases.PastPurchase {
        var latest = RestoreFixtures.dropped("P-" + product, product: product)
        latest.finished = true
        latest.expiresDate = expires
        latest.revocationDate = revoked
        return RestorePurchases.PastPurchase(
            latest: latest, product: RestoreFixtures.products.first { $0.id == product } ?? RestoreFixtures.products[1],
            holders: holders, transactionCount: 3)
    }

    static let mum = RestoreAccount(userId: "u1", sid: "s1", roleId: "r1")
    static let alt = RestoreAccount(userId: "u1", sid: "s7", roleId: "r1b")
    static let kid = RestoreAccount(userId: "u2", sid: "s1", roleId: "r2")
    /// The restore desk's block, 4 numbers used already.
    static func desk() throws -> OrderNumbers { try #require(OrderNumbers(run: 7, issued: 4)) }

    static func plan(_ ownership: RestoreOwnership, for account: RestoreAccount, _ purchases: [RestorePurchases.PastPurchase])
        throws -> RestorePurchases.Plan
    {
        try RestorePurchases.plan(
            for: account, app: RestoreFixtures.app(ownership), purchases: purchases, products: RestoreFixtures.products,
            orderNumbers: try Self.desk(), by: RestoreFixtures.support, at: RestoreFixtures.now
        ).get()
    }

    @Test func aPastPurchaseComesBackRestoredAndUnlocksWithoutANewCharge() throws {
        let plan = try Self.plan(.transfer, for: Self.alt, [Self.purchase("noads", holders: [Self.mum])])
        let item = try #require(plan.items.first)
        guard case .restored(let delivery) = item.outcome else {
            Issue.record("expected restored, got \(item.outcome)")
            return
        }
        #expect(delivery.order.amountCents == 0 && delivery.order.userId == "u1" && delivery.order.sid == "s7")
        #expect(delivery.order.id == "70000000005" && plan.orderNumbers.issued == 5)
        #expect(delivery.grant?.source == .restore && delivery.grant?.productId == "noads")
        let transaction = try #require(item.change?.transaction)
        #expect(transaction.id == "P-noads-R3" && transaction.state == .restored && transaction.finished)
        #expect(transaction.originalTransactionId == "P-noads" && transaction.roleId == "r1b")
        #expect(item.change?.events.first?.kind == .restored)
        #expect(plan.audit.action == "restore.purchases" && plan.audit.detail == "1 restored")
    }

    @Test func whoHoldsAPurchaseFollowsTheRule() {
        let past = Self.purchase("noads", holders: [Self.mum, Self.kid])
        #expect(past.owners(under: .transfer) == [Self.kid])
        #expect(past.owners(under: .keep) == [Self.mum])
        #expect(past.owners(under: .share) == [Self.mum, Self.kid])
        #expect(Self.purchase("noads", holders: []).owners(under: .keep).map(\.label) == ["u1 s1/r1"])
    }

    @Test func eachOwnershipRuleDecidesWhetherAnotherAccountUnlocksIt() throws {
        let past = [Self.purchase("noads", holders: [Self.mum])]
        #expect(try Self.plan(.keep, for: Self.kid, past).items.map(\.outcome) == [.kept(owner: Self.mum)])
        #expect(try Self.plan(.keep, for: Self.mum, past).items.map(\.outcome) == [.alreadyUnlocked])
        #expect(try Self.plan(.share, for: Self.kid, past).items.first?.outcome.code == "restored")
        #expect(try Self.plan(.transfer, for: Self.kid, past).items.first?.outcome.code == "restored")
        let shared = [Self.purchase("noads", holders: [Self.mum, Self.kid])]
        #expect(try Self.plan(.share, for: Self.mum, shared).items.map(\.outcome) == [.alreadyUnlocked])
        #expect(try Self.plan(.transfer, for: Self.mum, shared).items.first?.outcome.code == "restored")
    }

    @Test func anExpiredOrRefundedSubscriptionUnlocksNothing() throws {
        let expired = RestoreFixtures.now.adding(.days(-1))
        let plan = try Self.plan(
            .share, for: Self.kid,
            [
                Self.purchase("vip.monthly", holders: [Self.mum], expires: expired),
                Self.purchase("vip.monthly", holders: [Self.mum], expires: RestoreFixtures.now.adding(.days(9)), revoked: expired),
            ])
        #expect(plan.items.map(\.outcome.code) == ["expired", "refused"])
        #expect(plan.items.allSatisfy { $0.change == nil })
    }

    @Test func aConsumableIsNotRestored() throws {
        let plan = try Self.plan(.share, for: Self.kid, [Self.purchase("gems.60", holders: [Self.mum])])
        #expect(plan.items.map(\.outcome) == [.refused(TransactionRefusal.notRestorable(.consumable).message)])
    }

    @Test func anOperatorCannotRunIt() throws {
        let staff = StaffMember(name: "chen.ops", role: .operator)
        let result = RestorePurchases.plan(
            for: Self.kid, app: RestoreFixtures.app(.share), purchases: [], products: [], orderNumbers: try Self.desk(), by: staff,
            at: RestoreFixtures.now)
        #expect(result == .failure(.roleMayNotAct(staff)))
    }
}

@Suite struct SimulatedLoginTests {
    @Test func aPlayerLogsInAtTheirFirstPurchaseAndAgainAfterACrash() {
        var simulation = PaymentSimulationTests.simulation([.clientCrash(probability: 0.3)], seconds: 120)
        let changes = simulation.runCollecting()
        let logins = changes.compactMap(\.login)
        let players = Set(changes.flatMap(\.events).filter { $0.kind == .purchasing }.map { $0.detail.split(separator: " ")[0] })
        #expect(Set(logins.map(\.userId)).count == players.count)
        // Every crash is followed by that player's next login, if they buy again.
        var crashedAt: [String: Instant] = [:]
        var relogged = 0
        for change in changes {
            for event in change.events where event.kind == .clientCrashed {
                let user = simulation.transactionsById[event.transactionId]?.userId ?? ""
                crashedAt[user] = event.at
            }
            if let login = change.login, crashedAt.removeValue(forKey: login.userId) != nil { relogged += 1 }
        }
        #expect(relogged > 0)
        #expect(logins.count > players.count)
        #expect(logins.count < simulation.summary.attempts)
    }
}
