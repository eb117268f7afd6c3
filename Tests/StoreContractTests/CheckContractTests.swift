import Foundation
import PostgresClusterSupport
import StoreDeskCore
import StoreDeskPostgres
import StoreDeskSQLite
import StoreDeskStoreAPI
import Testing

/// `check` on both backends: clean on the demo store, and the same findings for the same damage, made by
/// hand on each (the sqlite3 CLI on the file, psql on the database) the way an operator would.
@Suite(.serialized) struct CheckContractTests {
    /// One piece of damage: the SQL on each backend, and the kinds of finding it must bring.
    struct Damage {
        var sqlite: String
        var postgres: String
        var kinds: Set<String>
    }

    /// Two demo stores, one a backend, each damaged the same way; their findings.
    static func findings(after damages: [Damage]) throws -> (sqlite: [StoreCheckViolation], postgres: [StoreCheckViolation]) {
        let stores = try ContractStores.get()
        let sqlite = try stores.sqlite()
        let postgres = try stores.postgres()
        for damage in damages {
            try PostgresCluster.run("/usr/bin/sqlite3", [sqlite.path, damage.sqlite])
            try stores.cluster.psql(damage.postgres, database: postgres.address.database)
        }
        return (try AppDatabase.open(path: sqlite.path, access: .readOnly).check(), try postgres.check())
    }

    static func summary(_ findings: [StoreCheckViolation]) -> [String] {
        findings.map { "\($0.kind) \($0.subject)" }.sorted()
    }

    @Test func theDemoStoreIsCleanOnBoth() throws {
        let stores = try ContractStores.get()
        #expect(try stores.sqlite().check() == [])
        #expect(try stores.postgres().check() == [])
    }

    @Test func brokenRowsAreFoundAsTheSQLiteStoreFindsThem() throws {
        let grant = """
            INSERT INTO item_grant (order_id, user_id, sid, role_id, product_id, quantity, kind, currency_amount, source, granted_at)
            SELECT 'NO-SUCH-ORDER', t.user_id, t.sid, t.role_id, t.product_id, 1, 'product', 0, 'purchase', 1795161600000
            FROM store_transaction t ORDER BY t.purchase_date, t.id LIMIT 1
            """
        let damages = [
            Damage(
                sqlite: "UPDATE store_meta SET value = '41' WHERE key = 'user_count'",
                postgres: "UPDATE store_meta SET value = '41' WHERE key = 'user_count'", kinds: ["user_count_drift"]),
            Damage(
                sqlite: "UPDATE payment_order SET status = 'pending' WHERE order_id = (SELECT min(order_id) FROM item_grant)",
                postgres: "UPDATE payment_order SET status = 'pending' WHERE order_id = (SELECT min(order_id) FROM item_grant)",
                kinds: ["order_pending_with_grant"]),
            Damage(
                sqlite: "UPDATE subscription SET revocation_date = purchase_date WHERE original_transaction_id = (SELECT min(original_transaction_id) FROM subscription WHERE state = 'active')",
                postgres: "UPDATE subscription SET revocation_date = purchase_date WHERE original_transaction_id = (SELECT min(original_transaction_id) FROM subscription WHERE state = 'active')",
                kinds: ["subscription_entitled_after_revocation"]),
            Damage(
                sqlite: "UPDATE audit_log SET at = at + 86400000 WHERE id = (SELECT max(id) FROM audit_log)",
                postgres: "UPDATE audit_log SET at = at + 86400000 WHERE id = (SELECT max(id) FROM audit_log)", kinds: ["stamp_after_clock"]),
            Damage(sqlite: grant, postgres: "SET session_replication_role = replica; " + grant, kinds: ["foreign_key", "grant_without_order"]),
        ]
        let (sqlite, postgres) = try Self.findings(after: damages)
        let expected = damages.reduce(into: Set<String>()) { $0.formUnion($1.kinds) }
        #expect(Set(sqlite.map(\.kind)) == expected, "\(sqlite)")
        #expect(Set(postgres.map(\.kind)) == expected, "\(postgres)")
        // The same rows, said the same way (a foreign key's row is SQLite's rowid there, the key here).
        let rules = postgres.filter { $0.kind != "foreign_key" }.map { "\($0.kind) \($0.subject): \($0.message)" }.sorted()
        #expect(rules == sqlite.filter { $0.kind != "foreign_key" }.map { "\($0.kind) \($0.subject): \($0.message)" }.sorted())
        #expect(Self.summary(postgres) == Self.summary(sqlite))
    }

    @Test func aSchemaChangedByHandIsFoundAsTheSQLiteStoreFindsIt() throws {
        let damages = [
            Damage(sqlite: "DROP TABLE game_server_grant", postgres: "DROP TABLE game_server_grant", kinds: ["schema_table_missing", "schema"]),
            Damage(
                sqlite: "ALTER TABLE onetap_token DROP COLUMN open_id", postgres: "ALTER TABLE onetap_token DROP COLUMN open_id",
                kinds: ["schema_column_missing"]),
            Damage(
                sqlite: "PRAGMA ignore_check_constraints = ON; UPDATE user SET site = 5 WHERE id = '10000001'",
                postgres: #"ALTER TABLE "user" DROP CONSTRAINT user_site_check; UPDATE "user" SET site = 5 WHERE id = '10000001'"#,
                kinds: ["value_unreadable"]),
        ]
        let (sqlite, postgres) = try Self.findings(after: damages)
        let expected = damages.reduce(into: Set<String>()) { $0.formUnion($1.kinds) }
        #expect(Set(sqlite.map(\.kind)) == expected, "\(sqlite)")
        #expect(Set(postgres.map(\.kind)) == expected, "\(postgres)")
        #expect(Self.summary(postgres) == Self.summary(sqlite))
    }

    @Test func aClockThatIsNoDateIsFoundOnBoth() throws {
        let damage = Damage(
            sqlite: "UPDATE store_meta SET value = 'soon' WHERE key = 'clock'",
            postgres: "UPDATE store_meta SET value = 'soon' WHERE key = 'clock'", kinds: ["store_clock_invalid"])
        let (sqlite, postgres) = try Self.findings(after: [damage])
        #expect(postgres == sqlite)
        #expect(Set(postgres.map(\.kind)) == damage.kinds)
    }
}
