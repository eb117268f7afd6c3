import Foundation
import GRDB
import StoreDeskCore
import Testing
@testable import StoreDeskStore

@Suite struct StoreCheckTests {
    /// Given a clean demo store, when `plant` corrupts it the way a bug or a hand edit would,
    /// then `check` reports exactly that kind of violation.
    func violations(after plant: (Database) throws -> Void) throws -> [StoreCheck.Violation] {
        let folder = TemporaryFolder()
        let store = try Fixtures.demoStore(at: folder.path("demo.sqlite"))
        #expect(try store.check().isEmpty)
        try store.writer.writeWithoutTransaction { db in
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

    @Test func findsCorruptionThroughTheIntegrityCheck() throws {
        let folder = TemporaryFolder()
        let path = folder.path("corrupt.sqlite")
        let store = try Fixtures.demoStore(at: path)
        let page = try store.reader.read { db -> (Int, Int) in
            let size = try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 4096
            let root = try Int.fetchOne(db, sql: "SELECT rootpage FROM sqlite_master WHERE name = 'transaction_on_user'") ?? 2
            return (size, root)
        }
        try store.writer.close()
        // Scribble over the index's root page, past its header, as a failing disk would.
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        try handle.seek(toOffset: UInt64((page.1 - 1) * page.0 + 100))
        handle.write(Data(repeating: 0x5A, count: 400))
        try handle.close()
        let found = try AppDatabase.open(path: path, access: .readOnly).check()
        #expect(found.contains { $0.kind == "integrity" })
    }
}
