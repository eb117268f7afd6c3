import Foundation
import GRDB
import StoreDeskCore
import Testing
@testable import StoreDeskSQLite

/// A store edited by hand gives errors and findings, never a trap.
@Suite struct DamagedStoreTests {
    /// The `user` table rebuilt without its `UNIQUE` key on `id`, as a hand edit in `sqlite3` leaves it.
    static func dropUserKey(_ path: String) throws {
        let queue = try DatabaseQueue(path: path)
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA foreign_keys = OFF")
            try db.inTransaction {
                let columns = "id, name, friendly_name, id_card, phone, site, adult_type, fcm, authoriz_state, safety, client_id, created_at"
                try db.execute(
                    sql: """
                        CREATE TABLE user_copy AS SELECT rowid AS old_rowid, \(columns) FROM user;
                        DROP TABLE user;
                        CREATE TABLE user (rowid INTEGER PRIMARY KEY, id TEXT NOT NULL, name TEXT NOT NULL,
                          friendly_name TEXT NOT NULL DEFAULT '', id_card TEXT NOT NULL DEFAULT '', phone TEXT NOT NULL DEFAULT '',
                          site INTEGER NOT NULL, adult_type INTEGER NOT NULL, fcm INTEGER NOT NULL, authoriz_state INTEGER NOT NULL,
                          safety INTEGER NOT NULL, client_id TEXT NOT NULL, created_at INTEGER NOT NULL);
                        INSERT INTO user SELECT old_rowid, \(columns) FROM user_copy;
                        DROP TABLE user_copy;
                        """)
                return .commit
            }
        }
        try queue.close()
    }

    /// Runs a store method; an error must be one a command can say in one line naming the file.
    func saysInOneLine(_ path: String, _ body: () throws -> Void) {
        do {
            try body()
        } catch {
            guard let said = StoreError(failure: error, path: path) else {
                Issue.record("not a store error: \(error)")
                return
            }
            #expect(!said.description.contains("\n"))
            #expect(said.description.contains(path))
            #expect(!said.description.contains("while executing"))
        }
    }

    /// Before: GRDB's `exists(db, key: ["id": …])` trapped ("table user has no unique key") in `subs`,
    /// `login as`, `restore purchases`, `events simulate` and the console's Subscriptions screen.
    @Test func aUserTableWithoutItsKeyGivesErrorsNotTraps() throws {
        let folder = TemporaryFolder()
        let path = folder.path("nokey.sqlite")
        try Fixtures.demoStore(at: path).close()
        try Self.dropUserKey(path)
        let store = try AppDatabase.open(path: path, access: .readWrite)
        let now = try store.clock() ?? Instant(millis: 0)
        saysInOneLine(path) { _ = try store.subscriber(named: "10000001") }
        saysInOneLine(path) { _ = try store.subscriptionRecords(userId: "10000001") }
        saysInOneLine(path) { _ = try store.recordLogin(userId: "10000001", at: now) }
        saysInOneLine(path) {
            _ = try store.restorePurchases(
                for: RestoreAccount(userId: "10000001", sid: "s1", roleId: "r10000001-1", roleName: "", appleId: nil),
                by: StaffMember(name: "t", role: .support), at: now)
        }
        saysInOneLine(path) { _ = try store.subscriptionDemoSetup(userId: "10000004", productId: nil, at: now) }
        saysInOneLine(path) { _ = try store.profile(userId: "10000001") }
        let kinds = Set(try store.check().map(\.kind))
        #expect(kinds.contains("schema_key_missing"))
        #expect(try store.check().allSatisfy { !$0.message.isEmpty })
    }

    /// Before: a clock of Int64.max was taken as a date, and `events simulate` trapped adding to it.
    @Test func aClockThatIsNotADateIsAnErrorAndAFinding() throws {
        let folder = TemporaryFolder()
        let path = folder.path("clock.sqlite")
        let store = try Fixtures.demoStore(at: path)
        for value in ["9223372036854775807", "-5", "tomorrow"] {
            try store.write { try StoreMeta.set(.clock, value, in: $0) }
            do {
                _ = try store.clock()
                Issue.record("clock '\(value)' was read as a date")
            } catch let error as StoreError {
                guard case .damaged(_, let detail) = error else { throw error }
                #expect(detail.contains("'\(value)'"))
            }
            let findings = try store.check()
            #expect(findings.contains { $0.kind == "store_clock_invalid" && $0.message.contains(value) })
            #expect(findings.allSatisfy { !$0.message.isEmpty })
        }
    }

    /// Before: a date past year 9999 made the finding's message NULL, and `check` printed an empty one.
    @Test func everyFindingHasAMessageWhateverTheDates() throws {
        let folder = TemporaryFolder()
        let store = try Fixtures.demoStore(at: folder.path("dates.sqlite"))
        try store.write { db in
            try db.execute(sql: "UPDATE subscription SET purchase_date = 9223372036854775807 WHERE original_transaction_id IN (SELECT original_transaction_id FROM subscription ORDER BY 1 LIMIT 2)")
            try db.execute(sql: "UPDATE subscription SET expires_date = -9223372036854775808 WHERE original_transaction_id = (SELECT MAX(original_transaction_id) FROM subscription)")
        }
        let findings = try store.check()
        #expect(findings.count >= 3)
        #expect(findings.allSatisfy { !$0.message.isEmpty })
        #expect(findings.contains { $0.message.contains("9223372036854775807 ms") })
    }

    /// A table the code reads is gone: `check` says so as a finding instead of stopping.
    @Test func checkReportsAMissingTableAndGoesOn() throws {
        let folder = TemporaryFolder()
        let store = try Fixtures.demoStore(at: folder.path("notable.sqlite"))
        try store.write { try $0.execute(sql: "DROP TABLE restore_request") }
        let findings = try store.check()
        #expect(findings.contains { $0.kind == "schema" && $0.message.contains("no such table: restore_request") })
        let said = StoreError(failure: DatabaseError(resultCode: .SQLITE_ERROR, message: "no such table: restore_request", sql: "SELECT 1"), path: "x.sqlite")
        #expect(said?.description == "x.sqlite is damaged: SQLite says: no such table: restore_request; `storedesk check --db x.sqlite` lists what is wrong")
    }
}
