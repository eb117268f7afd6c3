import Foundation
import PostgresNIO
import StoreDeskCore
import StoreDeskStoreAPI

/// What the opener asks of a team store before it hands one out: whether this role may write it, whether
/// a database may receive a new store, and any error said in one line naming the store.
extension PostgresStore {
    /// Nil when this connection may write the store; else why not (a read-only server or session, or a
    /// role without the right to write its tables).
    public func whyNotWritable() throws -> String? {
        if isReadOnly { return "it is open read-only" }
        let readOnly = try session.rows("SELECT current_setting('transaction_read_only'), pg_is_in_recovery()").first?
            .decode((String, Bool).self)
        if readOnly?.1 == true { return "the server is a read-only standby" }
        if readOnly?.0 == "on" { return "the server's sessions are read-only (default_transaction_read_only)" }
        let writable = try session.rows(
            "SELECT has_table_privilege('audit_log', 'INSERT') AND has_table_privilege('store_meta', 'UPDATE')"
        ).first?.decode(Bool.self) ?? false
        return writable ? nil : "role '\(address.user)' may not write its tables"
    }

    /// Refuses a database that already holds a StoreDesk store as the destination of a new one. A store
    /// is never replaced on a server: its database is dropped and made again by whoever owns it.
    public static func checkDestination(_ address: PostgresAddress, replacing: Bool) throws {
        let session = try PostgresSession(address: address)
        defer { session.close() }
        let held = try session.rows("SELECT to_regclass('storedesk_migration') IS NOT NULL").first?.decode(Bool.self) ?? false
        guard held else { return }
        throw StoreError.invalidArgument(
            replacing
                ? "\(address) holds a store, and a store on PostgreSQL is not replaced: drop the database and create it again"
                : "\(address) already holds a store: write a new one into a database without one")
    }

    /// An error a team store (or its opening) threw, in one line naming the store; nil for one that is not
    /// a store's.
    public static func storeError(for error: any Error, address: PostgresAddress) -> StoreError? {
        if let error = error as? StoreError { return error }
        let described = PostgresSession.describe(error, address: address)
        return described as? StoreError
    }
}
