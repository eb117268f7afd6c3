import Foundation
import GRDB
import StoreDeskCore
import Testing
@testable import StoreDeskSQLite

@Suite struct StoreCheckTests {
    /// Given a clean demo store, when `plant` corrupts it the way a bug or a hand edit would,
    /// then `check` reports exactly that kind of violation.
    func violations(after plant: (Database) throws -> Void) throws -> [StoreCheck.Violation] {
        let folder = TemporaryFolder()
        let store = try Fixtures.demoStore(at: folder.path("demo.sqlite"))
        #expect(try store.check().isEmpty)
        try store.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA foreign_keys = OFF")
            try plant(db)
            try db.execute(sql: "PRAGMA foreign_keys = ON")
        }
        return try store.check()
    }

    @Test func findsAnOrderGrantedTwice() throws {
        let found = try violations { db in
            try db.execute(sql: "DROP INDEX grant_on_order")
            try db.execute(sql: "INSERT INTO item_grant (order_id, user_id, sid, role_id, product_id, quantity, kind, currency_amount, source, granted_at) SELECT order_id, user_id, sid, role_id, product_id, quantity, kind, currency_amount, source, granted_at + 1 FROM item_grant LIMIT 1")
        }
        #expect(found.map(\.kind) == ["order_granted_twice"])
    }

    @Test func findsAGrantWhoseOrderIsMissing() throws {
        let found = try violations { db in
            try db.execute(sql: "UPDATE item_grant SET order_id = 'SD-NOPE' WHERE id = (SELECT MIN(id) FROM item_grant)")
        }
        #expect(Set(found.map(\.kind)) == ["foreign_key", "grant_without_order", "finished_purchase_not_delivered"])
        #expect(found.contains { $0.kind == "grant_without_order" && $0.message.contains("SD-NOPE") })
    }

    /// What two simulations sharing one transaction left: an order set back to pending
    /// after it was granted. `check` did not see it.
    @Test func findsAnOrderPendingWhileItHoldsAGrant() throws {
        let found = try violations { db in
            try db.execute(sql: "UPDATE payment_order SET status = 'pending' WHERE order_id = '2501050001'")
        }
        #expect(found.map(\.kind) == ["order_pending_with_grant"])
        #expect(found.first?.message == "order 2501050001 (transaction 2000000100000001) is pending but holds grant 1")
    }

    @Test func findsAnOrderForATransactionThatWasNotPaid() throws {
        let found = try violations { db in
            try db.execute(sql: "UPDATE store_transaction SET state = 'failed' WHERE id = '2000000100000002'")
        }
        #expect(found.map(\.kind).contains("order_without_payment"))
        #expect(found.contains { $0.message == "order 2502010001 is for transaction 2000000100000002, which is failed, not paid" })
    }

    @Test func findsAFinishedPurchaseThatWasNeverDelivered() throws {
        let found = try violations { db in
            try db.execute(sql: "DELETE FROM item_grant WHERE id = (SELECT MIN(id) FROM item_grant)")
        }
        #expect(found.map(\.kind) == ["finished_purchase_not_delivered"])
    }

    @Test func anOpenRestoreRequestCountsAsOnTheWay() throws {
        let found = try violations { db in
            let orderId = try String.fetchOne(db, sql: "SELECT order_id FROM item_grant ORDER BY id LIMIT 1") ?? ""
            let txn = try Row.fetchOne(db, sql: "SELECT t.id, t.user_id, t.product_id FROM store_transaction t JOIN payment_order o ON o.transaction_id = t.id WHERE o.order_id = ?", arguments: [orderId])
            try db.execute(sql: "DELETE FROM item_grant WHERE order_id = ?", arguments: [orderId])
            try db.execute(sql: "INSERT INTO restore_request (transaction_id, user_id, product_id, quantity, status, created_at) VALUES (?, ?, ?, 1, 'open', 0)", arguments: [txn?[0], txn?[1], txn?[2]])
        }
        #expect(found.isEmpty)
    }

    @Test func findsABrokenForeignKey() throws {
        let found = try violations { db in
            try db.execute(sql: "UPDATE game_account SET user_id = 'ghost' WHERE id = 1")
        }
        #expect(found.map(\.kind) == ["foreign_key"])
        #expect(found.first?.message.contains("game_account") == true)
    }

    @Test func findsAccessOnARevokedSubscription() throws {
        let found = try violations { db in
            try db.execute(sql: "UPDATE subscription SET state = 'active' WHERE original_transaction_id = '2000000100000078'")
        }
        #expect(found.map(\.kind) == ["subscription_entitled_after_revocation"])
        #expect(found.first?.message == "subscription 2000000100000078 (user 10000020) is active but was revoked on 2026-11-06T10:30:00Z")
    }

    @Test func findsAccessOnAnExpiredSubscription() throws {
        let found = try violations { db in
            // An expired row claiming to be active, and a grace period that ended before the clock.
            try db.execute(sql: "UPDATE subscription SET state = 'active', expiration_intent = NULL WHERE original_transaction_id = '2000000100000035'")
            try db.execute(sql: """
                UPDATE subscription SET grace_period_expires_date = expires_date + 86400000
                WHERE original_transaction_id = '2000000100000043'
                """)
        }
        #expect(found.map(\.kind) == ["subscription_entitled_after_expiry", "subscription_entitled_after_expiry"])
        #expect(found.map(\.subject).sorted() == ["2000000100000035", "2000000100000043"])
        #expect(found.contains { $0.message.contains("its grace period ended 2026-11-11T12:00:00Z") })
    }

    @Test func findsSubscriptionDatesOutOfOrder() throws {
        let found = try violations { db in
            try db.execute(sql: "UPDATE subscription SET expires_date = purchase_date - 1 WHERE original_transaction_id = '2000000100000010'")
            try db.execute(sql: "UPDATE subscription SET original_purchase_date = purchase_date + 1 WHERE original_transaction_id = '2000000100000035'")
            try db.execute(sql: "UPDATE subscription SET revocation_date = NULL WHERE original_transaction_id = '2000000100000090'")
        }
        #expect(found.map(\.kind) == Array(repeating: "subscription_dates_out_of_order", count: 3))
        let messages = found.map(\.message).sorted()
        #expect(messages[0].hasPrefix("subscription 2000000100000010: expires 2026-05-01T11:59:59Z, not after its current period began"))
        #expect(messages[1].hasPrefix("subscription 2000000100000035: first bought 2026-08-05T20:00:00Z, after its current period began"))
        #expect(messages[2] == "subscription 2000000100000090: revoked without a revocation date")
    }

    @Test func findsNotificationsWithoutTheirSubscription() throws {
        let found = try violations { db in
            try db.execute(sql: "DELETE FROM subscription WHERE original_transaction_id = '2000000100000201'")
        }
        #expect(found.map(\.kind) == ["subscription_event_without_subscription"])
        #expect(found.first?.subject == "2000000100000201")
    }

    @Test func findsCorruptionThroughTheIntegrityCheck() throws {
        let folder = TemporaryFolder()
        let path = folder.path("corrupt.sqlite")
        let store = try Fixtures.demoStore(at: path)
        let page = try store.reader.read { db -> (Int, Int) in
            let size = try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 4096
            let root = try Int.fetchOne(db, sql: "SELECT rootpage FROM sqlite_master WHERE name = 'transaction_on_user'") ?? 2
            return (size, root)
        }
        try store.close()
        // Scribble over the index's root page, past its header, as a failing disk would.
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        try handle.seek(toOffset: UInt64((page.1 - 1) * page.0 + 100))
        handle.write(Data(repeating: 0x5A, count: 400))
        try handle.close()
        let found = try AppDatabase.open(path: path, access: .readOnly).check()
        #expect(found.contains { $0.kind == "integrity" })
    }
}
