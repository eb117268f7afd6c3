import GRDB
import StoreDeskCore

extension PaymentEvent: FetchableRecord, PersistableRecord {
    public static let databaseTableName = "transaction_event"
}

extension PaymentEvent.Kind: DatabaseValueConvertible {}

extension CallbackAttempt: FetchableRecord, PersistableRecord {
    public static let databaseTableName = "server_callback"
}

extension AppDatabase {
    /// Commits one step that belongs to no payment run (a fixture, a hand-made row): its transaction,
    /// order, callback and grant rows and its events, all in one SQLite transaction.
    func apply(_ change: PaymentChange) throws {
        try write { db in
            try PaymentRowWriter(db).write(change)
            if let latest = change.latestStamp { try StoreMeta.advance(to: latest, in: db) }
        }
    }

    /// Commits steps of `run` in one SQLite transaction (each still with its own events), so a crash at
    /// any moment leaves either all of them or none. The same transaction renews the run's heartbeat and
    /// is refused (`StoreError.runEnded`, nothing written) once another process took the run's work over.
    public func apply(_ changes: [PaymentChange], run: PaymentRun) throws {
        guard !changes.isEmpty else { return }
        do {
            try write { db in
                try PaymentRuns.beat(db, run, path: path)
                let rows = try PaymentRowWriter(db, run: run.id)
                for change in changes { try rows.write(change) }
                // The store's clock follows the run: a console's header shows the instant its rows are
                // stamped at, and a console or command opened later starts there.
                if let latest = changes.compactMap(\.latestStamp).max() { try StoreMeta.advance(to: latest, in: db) }
            }
        } catch let error as DatabaseError {
            throw StoreError(error, path: path)
        }
    }

    /// Apps, products and the game accounts of a sample of users (in list order) to simulate purchases over.
    public func paymentCatalogue(userLimit: Int = 1000) throws -> PaymentCatalogue {
        try reader.read { db in
            PaymentCatalogue(
                apps: try App.fetchAll(db, sql: "SELECT * FROM app ORDER BY id"),
                products: try Product.fetchAll(db, sql: "SELECT * FROM product ORDER BY app_id, id"),
                accounts: try GameAccount.fetchAll(
                    db,
                    sql: """
                        SELECT g.* FROM game_account g JOIN (SELECT id FROM user ORDER BY rowid LIMIT ?) u ON u.id = g.user_id
                        ORDER BY g.user_id, g.app_id, g.sid, g.role_id
                        """, arguments: [userLimit]),
                storeKitTesting: try CatalogueProcedures.purchaseTesting(procedures(db)))
        }
    }

    /// One transaction's timeline, oldest first.
    public func events(transactionId: String) throws -> [PaymentEvent] {
        try reader.read { db in
            try PaymentEvent.fetchAll(
                db, sql: "SELECT * FROM transaction_event WHERE transaction_id = ? ORDER BY id", arguments: [transactionId])
        }
    }

    /// How many events the store holds.
    public func eventCount() throws -> Int {
        try reader.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM transaction_event") ?? 0 }
    }
}
