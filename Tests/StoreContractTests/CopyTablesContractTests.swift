import Foundation
import GRDB
import PostgresClusterSupport
import StoreDeskPostgres
import StoreDeskStore
import StoreDeskStoreAPI
import Testing

/// `store copy` moves the tables in `StoreTables.copyOrder`: every table either backend's schema makes is
/// among them (a table added by a migration and left out would be lost by a copy, silently).
@Suite struct CopyTablesContractTests {
    @Test func everyTableOfEitherSchemaIsCopied() throws {
        let stores = try ContractStores.get()
        let sqlite = try stores.sqlite()
        let own = try sqlite.snapshotTables()
        #expect(Set(own) == Set(StoreTables.copyOrder), "SQLite: \(Set(own).symmetricDifference(StoreTables.copyOrder))")
        let postgres = try stores.postgres()
        let names = try stores.cluster.psql(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'storedesk_migration'", database: postgres.address.database)
            .split(separator: "\n").map(String.init)
        #expect(Set(names) == Set(StoreTables.copyOrder), "PostgreSQL: \(Set(names).symmetricDifference(StoreTables.copyOrder))")
        #expect(Set(StoreTables.copyOrder).count == StoreTables.copyOrder.count)
    }
}

extension AppDatabase {
    /// The store's own tables (not GRDB's, SQLite's, or the search index's shadow tables).
    func snapshotTables() throws -> [String] {
        try DatabaseQueue(path: path, configuration: { var c = Configuration(); c.readonly = true; return c }()).read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
                    AND name NOT LIKE 'grdb_%' AND name NOT LIKE 'user_search%'
                    """)
        }
    }
}
