import Foundation
import GRDB
import StoreDeskCore
import Testing

@testable import StoreDeskSQLite

/// The restore desk against a real SQLite file built from the demo dataset.
@Suite struct RestoreDeskStoreTests {
    /// Ten hours after the demo store's clock (2026-11-20T08:00:00Z): a write is never stamped before it.
    static let now = Instant(millis: 1_795_197_600_000)
    static let support = StaffMember(name: "li.support", role: .support)

    /// A demo store file, closed, and the path to open it again.
    static func demoFile(_ folder: TemporaryFolder) throws -> String {
        let path = folder.path("demo.sqlite")
        try Fixtures.demoStore(at: path).close()
        return path
    }

    static func open(_ path: String) throws -> AppDatabase { try AppDatabase.open(path: path, access: .readWrite) }

    static func count(_ store: AppDatabase, _ from: String, _ arguments: StatementArguments = []) throws -> Int {
        try store.reader.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM " + from, arguments: arguments) ?? -1 }
    }

    /// A dropped order (paid, unfinished, no order) for `user`, as a crashed client leaves it.
    static func plantDroppedOrder(_ store: AppDatabase, id: String, user: String, app: String, product: String, sid: String, role: String)
        throws
    {
        try store.write { db in
            try StoreTransaction(
                id: id, originalTransactionId: id, userId: user, appId: app, productId: product, state: .purchased,
                sid: sid, roleId: role, purchaseDate: now.adding(.hours(-1)), finished: false
            ).insert(db)
        }
    }

    @Test func aLoginOpensOnePromptPerDroppedOrderOfItsAppleIDGroupedPerPlayer() throws {
        // Given the family Apple ID (10000023, 10000024, 10000025), 10000024 with an open prompt already,
        // and a new dropped order of 10000025's
        let folder = TemporaryFolder()
        let store = try Self.open(Self.demoFile(folder))
        try Self.plantDroppedOrder(
            store, id: "T-25", user: "10000025", app: "1002", product: "com.storedesk.pocketgarden.coins.600", sid: "s2",
            role: "r10000025-1")
        // When 10000023 logs in
        let login = try store.recordLogin(userId: "10000023", at: Self.now)
        // Then the new dropped order has a prompt, and every open prompt of the Apple ID comes back per player
        #expect(login.appleIds == ["apple.family01"])
        #expect(login.players.map(\.userId) == ["10000024", "10000025"])
        #expect(login.players.map { $0.prompts.map(\.transaction.id) } == [["2000000100000093"], ["T-25"]])
        let opened = try #require(login.prompts.first { $0.transaction.id == "T-25" })
        #expect(login.opened == [opened.id])
        #expect(opened.request.createdAt == Self.now && opened.ownership == .keep)
        #expect(opened.candidates.map(\.label) == ["10000025 s2/r10000025-1", "10000023 s1/r10000023-1", "10000024 s1/r10000024-1"])
        #expect(try store.events(transactionId: "T-25").map(\.kind) == [.restorePrompted])
        // And a second login opens nothing more
        let again = try store.recordLogin(userId: "10000025", at: Self.now.adding(.minutes(1)))
        #expect(again.opened.isEmpty && again.prompts.count == 2)
        #expect(try Self.count(store, "restore_request WHERE transaction_id = 'T-25'") == 1)
        #expect(try store.check() == [])
    }

    @Test func aLoginOfAPlayerWithNothingDroppedOpensNothingAndAnUnknownPlayerIsRefused() throws {
        let folder = TemporaryFolder()
        let store = try Self.open(Self.demoFile(folder))
        let login = try store.recordLogin(userId: "10000002", at: Self.now)
        #expect(login.prompts.isEmpty && login.opened.isEmpty)
        #expect(throws: StoreError.unknownUser(id: "nobody")) { try store.recordLogin(userId: "nobody", at: Self.now) }
    }

    @Test func theRestoreDeskAndTheResumedPaymentQueueNeverTakeTheSameTransaction() throws {
        // Given 10000010's dropped order prompted at login, and a simulated purchase of 10000010's that a
        // killed run left paid but without its order (no crash: the queue resumes it)
        let folder = TemporaryFolder()
        let store = try Self.open(Self.demoFile(folder))
        _ = try store.recordLogin(userId: "10000010", at: Self.now)
        try Self.plantDroppedOrder(
            store, id: "sim9-T1", user: "10000010", app: "1001", product: "com.storedesk.starvoyage.gems.60", sid: "s1",
            role: "r10000010")
        try store.apply(PaymentChange(events: [PaymentEvent(at: Self.now, transactionId: "sim9-T1", kind: .purchased, detail: "paid")]))
        // When the player logs in again and the queue looks for work left in flight
        let login = try store.recordLogin(userId: "10000010", at: Self.now.adding(.minutes(1)))
        let inFlight = try store.startRun(.simulate, takingOver: true).inFlight.map(\.transaction.id)
        // Then each keeps to its own
        #expect(login.prompts.map(\.transaction.id) == ["2000000100000098"])
        #expect(inFlight == ["sim9-T1"])
    }

    @Test func aDeclinedPromptIsNotReopenedByTheNextLogin() throws {
        let folder = TemporaryFolder()
        let store = try Self.open(Self.demoFile(folder))
        _ = try store.recordLogin(userId: "10000010", at: Self.now)
        let declined = try store.declineRestore(
            transactionId: "2000000100000098", reason: "refunded by Apple", by: Self.support, at: Self.now)
        #expect(declined.request.status == .declined && declined.request.reason == "refunded by Apple")
        let login = try store.recordLogin(userId: "10000010", at: Self.now.adding(.days(1)))
        #expect(login.opened.isEmpty && login.prompts.isEmpty)
        #expect(try store.auditEntries(action: "restore.decline", limit: 1).first?.subject == "transaction 2000000100000098")
        #expect(try store.check() == [])
    }

    @Test func aConfirmCommitsTheOrderCallbackGrantFinishEventsAuditAndPromptTogether() throws {
        // Given 10000010's dropped order, prompted at login (星海征途 transfers)
        let folder = TemporaryFolder()
        let store = try Self.open(Self.demoFile(folder))
        _ = try store.recordLogin(userId: "10000010", at: Self.now)
        // When support confirms it onto the player's other role
        let target = RestoreAccount(userId: "10000010", sid: "s3", roleId: "r10000010-2")
        let prompt = try store.confirmRestore(transactionId: "2000000100000098", onto: target, by: Self.support, at: Self.now)
        // Then everything a delivery needs is there, once
        #expect(prompt.request.status == .confirmed && prompt.request.resolvedBy == "li.support")
        #expect(prompt.currentOwners.map(\.label) == ["10000010 s3/r10000010-2"])
        let delivery = try #require(prompt.delivery)
        // The restore desk numbers its orders in a block of its own: the store's first (`OrderNumbers`).
        #expect(delivery.order.id == "10000000001" && delivery.callback?.verdict == "accepted")
        #expect(delivery.grant?.source == .restore && delivery.grant?.roleId == "r10000010-2")
        #expect(prompt.transaction.finished)
        let timeline = try store.events(transactionId: "2000000100000098").map(\.kind)
        #expect(timeline == [.restorePrompted, .restoreConfirmed, .orderCreated, .callbackAccepted, .granted, .finished])
        let audit = try #require(try store.auditEntries(actor: "li.support", limit: 1).first)
        #expect(audit.action == "restore.confirm" && audit.detail.contains("transfer: moved from 10000010 s1/r10000010-1"))
        #expect(try store.check() == [])
    }

    @Test func aSecondConfirmIsRefusedWithWhoAndWhenAndWritesNothing() throws {
        let folder = TemporaryFolder()
        let store = try Self.open(Self.demoFile(folder))
        let owner = RestoreAccount(userId: "10000006", sid: "s4", roleId: "r10000006-1")
        try store.confirmRestore(transactionId: "2000000100000095", onto: owner, by: Self.support, at: Self.now)
        let grants = try Self.count(store, "item_grant")
        let audit = try Self.count(store, "audit_log")
        let developer = StaffMember(name: "zhao.dev", role: .developer)
        #expect(throws: RestoreRefusal.self) {
            try store.confirmRestore(transactionId: "2000000100000095", onto: owner, by: developer, at: Self.now.adding(.seconds(1)))
        }
        do {
            try store.confirmRestore(transactionId: "2000000100000095", onto: owner, by: developer, at: Self.now)
        } catch {
            #expect("\(error)" == "transaction 2000000100000095 was already restored by li.support (support) at \(Self.now.iso8601) onto 10000006 s4/r10000006-1")
        }
        #expect(try Self.count(store, "item_grant") == grants)
        #expect(try Self.count(store, "audit_log") == audit)
    }

    @Test func refusedConfirmsAndDeclinesLeaveTheFileByteForByte() throws {
        let folder = TemporaryFolder()
        let path = try Self.demoFile(folder)
        let before = Fixtures.checksum(path)
        let store = try Self.open(path)
        let cases: [(String, RestoreAccount, StaffMember, String)] = [
            ("NOPE", RestoreAccount(userId: "10000024", sid: "s1", roleId: "r10000024-1"), Self.support, "unknown_transaction"),
            ("2000000100000093", RestoreAccount(userId: "ghost", sid: "s1", roleId: "r1"), Self.support, "unknown_account"),
            ("2000000100000093", RestoreAccount(userId: "10000001", sid: "s1", roleId: "r10000001-1"), Self.support, "not_on_apple_id"),
            ("2000000100000093", RestoreAccount(userId: "10000024", sid: "s 1/!", roleId: "r10000024-1"), Self.support, "request_refused"),
            ("2000000100000093", RestoreAccount(userId: "10000024", sid: "s9", roleId: "r10000024-1"), Self.support, "unknown_role"),
            ("2000000100000093", RestoreAccount(userId: "10000023", sid: "s1", roleId: "r10000023-1"), Self.support, "kept_with_owner"),
            ("2000000100000093", RestoreAccount(userId: "10000024", sid: "s1", roleId: "r10000024-1"),
             StaffMember(name: "chen.ops", role: .operator), "role_may_not_act"),
            ("2000000100000089", RestoreAccount(userId: "10000029", sid: "s1", roleId: "r10000029-1"), Self.support, "already_resolved"),
        ]
        for (transaction, target, staff, code) in cases {
            do {
                try store.confirmRestore(transactionId: transaction, onto: target, by: staff, at: Self.now)
                Issue.record("\(code): the confirm went through")
            } catch let refusal as RestoreRefusal {
                #expect(refusal.code == code)
            }
        }
        #expect(throws: RestoreRefusal.reasonMissing) {
            try store.declineRestore(transactionId: "2000000100000093", reason: "   ", by: Self.support, at: Self.now)
        }
        #expect(throws: RestoreRefusal.unknownAccount("ghost")) {
            try store.restorePurchases(for: RestoreAccount(userId: "ghost", sid: "s1", roleId: "r1"), by: Self.support, at: Self.now)
        }
        try store.close()
        #expect(Fixtures.checksum(path) == before)
    }

    @Test func aReadOnlyStoreRefusesEveryWrite() throws {
        let folder = TemporaryFolder()
        let path = try Self.demoFile(folder)
        let store = try AppDatabase.open(path: path, access: .readOnly)
        let target = RestoreAccount(userId: "10000024", sid: "s1", roleId: "r10000024-1")
        #expect(throws: RestoreRefusal.readOnly) { try store.recordLogin(userId: "10000024", at: Self.now) }
        #expect(throws: RestoreRefusal.readOnly) {
            try store.confirmRestore(transactionId: "2000000100000093", onto: target, by: Self.support, at: Self.now)
        }
        #expect(throws: RestoreRefusal.readOnly) {
            try store.declineRestore(transactionId: "2000000100000093", reason: "x", by: Self.support, at: Self.now)
        }
        #expect(throws: RestoreRefusal.readOnly) { try store.restorePurchases(for: target, by: Self.support, at: Self.now) }
        #expect(try store.restorePrompts(status: .open, limit: 10).count == 3)
    }

    @Test func aTransactionHasOnePromptEvenWhenAskedTwice() throws {
        let store = try PaymentQueueStoreTests.demoStore()
        #expect(throws: DatabaseError.self) {
            try store.write { db in
                try db.execute(
                    sql: """
                        INSERT INTO restore_request (transaction_id, user_id, product_id, quantity, status, created_at)
                        SELECT transaction_id, user_id, product_id, quantity, 'confirmed', created_at FROM restore_request
                        WHERE transaction_id = '2000000100000093'
                        """)
            }
        }
    }

    @Test func restorePurchasesUnlocksAsEachOwnershipRuleAllows() throws {
        let folder = TemporaryFolder()
        let store = try Self.open(Self.demoFile(folder))
        // transfer: 张伟's VIP moves from s1 to s7, then s7 holds it already
        let alt = RestoreAccount(userId: "10000001", sid: "s7", roleId: "r10000001-2")
        let moved = try store.restorePurchases(for: alt, by: Self.support, at: Self.now)
        #expect(moved.items.map(\.outcome.code) == ["restored"])
        guard case .restored(let delivery) = moved.items[0].outcome else { return }
        #expect(delivery.order.amountCents == 0 && delivery.grant?.roleId == "r10000001-2")
        let restored = try #require(moved.items[0].change?.transaction)
        #expect(try Self.count(store, "store_transaction WHERE id = ? AND state = 'restored' AND finished = 1", [restored.id]) == 1)
        #expect(try store.restorePurchases(for: alt, by: Self.support, at: Self.now).items.map(\.outcome) == [.alreadyUnlocked])
        // keep: the family Apple ID's Remove Ads stays with 10000023
        let kid = RestoreAccount(userId: "10000024", sid: "s1", roleId: "r10000024-1")
        let kept = try store.restorePurchases(for: kid, by: Self.support, at: Self.now)
        #expect(kept.items.map(\.outcome.code) == ["kept_with_owner", "kept_with_owner"])
        // share: Panda's codex unlocks on the second role too; the refunded guild pass does not
        let panda = RestoreAccount(userId: "10000026", sid: "s5", roleId: "r10000026-2")
        let shared = try store.restorePurchases(for: panda, by: Self.support, at: Self.now)
        #expect(shared.items.map(\.outcome.code) == ["restored", "refused"])
        let original = RestoreAccount(userId: "10000026", sid: "s3", roleId: "r10000026-1")
        #expect(try store.restorePurchases(for: original, by: Self.support, at: Self.now).items.first?.outcome == .alreadyUnlocked)
        #expect(try store.auditEntries(action: "restore.purchases", limit: 10).count == 5)
        #expect(try store.check() == [])
    }

    @Test func aCrashedPurchaseBecomesAPromptAtTheNextPurchaseAndItsRestoreLeavesTheStoreClean() throws {
        // Given a simulation where every client crashes after paying
        let store = try PaymentQueueStoreTests.demoStore()
        var simulation = try PaymentQueueStoreTests.simulation(store, faults: [.clientCrash(probability: 1)], seconds: 30)
        try simulation.run { try store.apply($0) }
        #expect(simulation.summary.droppedOrders > 20 && simulation.summary.grants == 0)
        // Then players who bought again logged in, and their dropped orders are prompts
        let prompts = try store.restorePrompts(status: .open, limit: 1000).filter { $0.transaction.id.hasPrefix("sim1-") }
        #expect(prompts.count > 10)
        #expect(try store.check() == [])
        // When support confirms each onto the paying account
        for prompt in prompts.prefix(5) {
            try store.confirmRestore(
                transactionId: prompt.transaction.id, onto: prompt.payingAccount, by: Self.support, at: Self.now)
        }
        // Then each has exactly one grant and the store is clean
        let restored = try store.reader.read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT g.order_id FROM item_grant g JOIN payment_order o ON o.order_id = g.order_id
                    WHERE o.transaction_id LIKE 'sim1-%' AND g.source = 'restore' ORDER BY g.id
                    """)
        }
        // The simulation wrote outside any run, so the restore desk's block is the store's first.
        #expect(restored == (1...5).map { String(10_000_000_000 + $0) })
        #expect(try store.check() == [])
    }

    @Test func auditFiltersByActionFamilyActorAndText() throws {
        let store = try PaymentQueueStoreTests.demoStore()
        #expect(try store.auditEntries(action: "restore", limit: 10).map(\.action) == ["restore.decline", "restore.confirm"])
        #expect(try store.auditEntries(action: "restore.confirm", limit: 10).count == 1)
        #expect(try store.auditEntries(action: "restor", limit: 10).isEmpty)
        #expect(try store.auditEntries(actor: "chen.ops", limit: 10).map(\.action) == ["login.entries.set", "app.grace.set", "subscription.refund.note"])
        #expect(try store.auditEntries(text: "锦马超", limit: 10).map(\.actor) == ["chen.ops"])
        let all = try store.auditEntries(limit: 100)
        #expect(all.map(\.at) == all.map(\.at).sorted(by: >))
        let third = KeysetCursor(time: all[2].at, id: all[2].id ?? 0)
        #expect(try store.auditEntries(anchor: .after(third), limit: 100) == Array(all.dropFirst(3)))
        #expect(try store.auditEntries(anchor: .before(third), limit: 100) == Array(all.prefix(2)))
        #expect(try store.auditEntries(anchor: .from(third), limit: 2) == Array(all[2...3]))
        #expect(try store.auditEntries(anchor: .last, limit: 2) == Array(all.suffix(2)))
    }

    @Test func checkFindsATransactionRestoredTwiceAndAConfirmedRestoreWithoutItsGrant() throws {
        let twice = try StoreCheckTests().violations { db in
            try db.execute(sql: "DROP INDEX restore_once")
            try db.execute(
                sql: """
                    INSERT INTO restore_request (transaction_id, user_id, product_id, quantity, status, created_at)
                    SELECT transaction_id, user_id, product_id, quantity, status, created_at + 1 FROM restore_request
                    WHERE status = 'confirmed'
                    """)
        }
        #expect(twice.map(\.kind) == ["transaction_restored_twice"])
        #expect(twice.first?.message == "transaction 2000000100000088 has 2 confirmed restores")
        let regranted = try StoreCheckTests().violations { db in
            try db.execute(sql: "DROP INDEX grant_on_order")
            try db.execute(
                sql: """
                    INSERT INTO item_grant (order_id, user_id, sid, role_id, product_id, quantity, kind, currency_amount, source, granted_at)
                    SELECT order_id, user_id, sid, role_id, product_id, quantity, kind, currency_amount, source, granted_at + 1
                    FROM item_grant WHERE source = 'restore'
                    """)
        }
        #expect(Set(regranted.map(\.kind)) == ["order_granted_twice", "transaction_restored_twice", "confirmed_restore_grants"])
        let ungranted = try StoreCheckTests().violations { db in
            try db.execute(sql: "DELETE FROM item_grant WHERE source = 'restore'")
        }
        #expect(Set(ungranted.map(\.kind)) == ["confirmed_restore_grants", "finished_purchase_not_delivered"])
        #expect(ungranted.contains { $0.message == "the confirmed restore of transaction 2000000100000088 has 0 grants, not 1" })
    }

    @Test func theDeskListPagesByKeysetInBothDirections() throws {
        let store = try PaymentQueueStoreTests.demoStore()
        let all = try store.restoreRows(RestoreQuery(), anchor: .first, limit: 100)
        #expect(all.map(\.request.transactionId) == [
            "2000000100000088", "2000000100000089", "2000000100000093", "2000000100000095", "2000000100000096",
        ])
        #expect(all.map(\.appId) == ["1001", "1002", "1002", "1001", "1003"])
        #expect(try store.restoreRows(RestoreQuery(), anchor: .after(all[1].cursor), limit: 2) == Array(all[2...3]))
        #expect(try store.restoreRows(RestoreQuery(), anchor: .before(all[3].cursor), limit: 2) == Array(all[1...2]))
        #expect(try store.restoreRows(RestoreQuery(), anchor: .last, limit: 2) == Array(all.suffix(2)))
        #expect(try store.restoreRows(RestoreQuery(status: .open), anchor: .first, limit: 10).count == 3)
        #expect(try store.restoreRows(RestoreQuery(text: "10000035"), anchor: .first, limit: 10).map(\.request.transactionId) == ["2000000100000096"])
    }

    @Test func everyRestoreLookupHasAnIndex() throws {
        let store = try AppDatabase.inMemory()
        let plans: [(String, StatementArguments)] = [
            ("SELECT * FROM restore_request WHERE transaction_id = ?", ["t"]),
            ("SELECT * FROM restore_request WHERE status = ? ORDER BY created_at, id LIMIT 10", ["open"]),
            ("SELECT * FROM restore_request WHERE status = 'open' AND user_id IN (?, ?) ORDER BY created_at, id", ["u", "v"]),
            ("SELECT DISTINCT apple_id FROM game_account WHERE user_id = ?", ["u"]),
            ("SELECT DISTINCT user_id FROM game_account WHERE apple_id IN (?, ?)", ["a", "b"]),
            ("SELECT * FROM game_account WHERE apple_id IN (?) AND app_id = ? AND user_id != ?", ["a", "1001", "u"]),
            ("SELECT * FROM store_transaction WHERE user_id = ? AND state = 'purchased' AND finished = 0", ["u"]),
            ("SELECT 1 FROM payment_order WHERE transaction_id = ?", ["t"]),
            ("SELECT * FROM server_callback WHERE verdict = 'accepted' AND order_id = ? ORDER BY id LIMIT 1", ["o"]),
            ("SELECT COUNT(*) FROM store_transaction WHERE original_transaction_id = ?", ["t"]),
            ("SELECT * FROM audit_log WHERE action >= ? AND action < ? ORDER BY at DESC, id DESC LIMIT 10", ["restore", "restore/"]),
            ("SELECT * FROM audit_log WHERE actor = ? ORDER BY at DESC, id DESC LIMIT 10", ["li"]),
        ]
        for (sql, arguments) in plans {
            let plan = try store.reader.read { db in
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: arguments).map { $0["detail"] as String }
            }
            #expect(plan.allSatisfy { !$0.hasPrefix("SCAN") }, "\(sql) scans: \(plan)")
        }
    }
}
