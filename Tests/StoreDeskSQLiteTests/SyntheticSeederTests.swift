import Foundation
import GRDB
import StoreDeskCore
import Testing
@testable import StoreDeskSQLite

@Suite struct SyntheticSeederTests {
    func seed(_ path: String, users: Int, seed: UInt64) throws -> SyntheticSeeder.Summary {
        let demo = try Fixtures.demo()
        return try SyntheticSeeder.seed(
            path: path, users: users, seed: seed, catalogue: demo.catalogue, clock: demo.meta.clock, replacing: false)
    }

    /// Every row of every table, in a stable order, as text.
    func dump(_ path: String) throws -> String {
        let queue = try DatabaseQueue(path: path, configuration: AppDatabase.configuration(readOnly: true))
        return try queue.read { db in
            var out = ""
            for table in ["user", "game_account", "store_transaction", "payment_order", "item_grant", "subscription", "restore_request"] {
                for row in try Row.fetchAll(db, sql: "SELECT * FROM \(table) ORDER BY 1") { out += "\(table) \(row)\n" }
            }
            return out
        }
    }

    @Test func theSameUsersAndSeedGiveTheSameStore() throws {
        let folder = TemporaryFolder()
        let a = try seed(folder.path("a.sqlite"), users: 400, seed: 42)
        let b = try seed(folder.path("b.sqlite"), users: 400, seed: 42)
        let c = try seed(folder.path("c.sqlite"), users: 400, seed: 43)
        #expect(try dump(folder.path("a.sqlite")) == dump(folder.path("b.sqlite")))
        #expect(try dump(folder.path("a.sqlite")) != dump(folder.path("c.sqlite")))
        #expect(a.transactions == b.transactions)
        #expect(a.users == 400)
    }

    @Test func aSeededStoreIsCleanAndRealistic() throws {
        let folder = TemporaryFolder()
        let summary = try seed(folder.path("s.sqlite"), users: 2000, seed: 7)
        let store = try AppDatabase.open(path: folder.path("s.sqlite"), access: .readOnly)
        #expect(try store.check().isEmpty)
        // About three transactions a user and one in ten a subscriber.
        #expect((2.5...3.8).contains(Double(summary.transactions) / 2000))
        #expect((0.07...0.13).contains(Double(summary.subscriptions) / 2000))
        let states = try store.reader.read { try String.fetchAll($0, sql: "SELECT DISTINCT state FROM subscription") }
        #expect(Set(states) == Set(SubscriptionState.allCases.map(\.rawValue)))
        let chinese = try store.reader.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM user WHERE unicode(name) > 0x4E00") } ?? 0
        let latin = try store.reader.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM user WHERE unicode(name) BETWEEN 65 AND 122") } ?? 0
        #expect(chinese > 500 && latin > 200)
        // The search index was built after the bulk load.
        #expect(try !store.searchUsers("王", limit: 5).isEmpty)
        let mode = try store.reader.read { try String.fetchOne($0, sql: "PRAGMA journal_mode") }
        #expect(mode == "wal")
    }

    @Test func refusesToReplaceAFileWithoutForce() throws {
        let folder = TemporaryFolder()
        let path = folder.path("keep.sqlite")
        _ = try seed(path, users: 10, seed: 1)
        let before = Fixtures.checksum(path)
        #expect(throws: StoreError.exists(path: path)) { try seed(path, users: 20, seed: 2) }
        #expect(Fixtures.checksum(path) == before)
    }

    /// Households 353,131 and 425,128 of seed 1 (the demo catalogue and clock) bought on the clock's very
    /// minute; their orders and grants, stamped seconds after the purchase, came after the clock, and `check`
    /// refused a million-player seed for it. Every stamp of theirs is now at or before the clock.
    @Test func aPurchaseOnTheClocksMinuteIsStampedBeforeTheClock() throws {
        let demo = try Fixtures.demo()
        let clock = demo.meta.clock
        let population = SyntheticPopulation(catalogue: demo.catalogue, seed: 1, now: clock)
        for index in [353_131, 425_128] {
            let household = population.household(index)
            #expect(!household.orders.isEmpty)
            for order in household.orders { #expect(order.createdAt <= clock, "order \(order.id) at \(order.createdAt.iso8601)") }
            for grant in household.grants { #expect(grant.grantedAt <= clock, "grant of \(grant.orderId) at \(grant.grantedAt.iso8601)") }
            for transaction in household.transactions { #expect(transaction.purchaseDate <= clock) }
        }
    }
}
