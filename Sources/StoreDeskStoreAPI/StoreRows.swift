/// One stored value as every backend holds it: what `storedesk store copy` moves.
public enum StoreValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}

/// A store read table by table, its rows as plain values, for a copy to another store. Tables and
/// columns carry the schema's own names; a list's creation order is the column `seq`.
public protocol StoreRowSource: Sendable {
    /// Where the rows come from, for messages.
    var path: String { get }
    /// The columns of `table` in the source, `seq` first where the table has one.
    func columns(of table: String) throws -> [String]
    /// The rows of `table` in creation order, `batch` at a time, each with `columns`' values in order, all
    /// from one snapshot of the store (a copy never sees half a write).
    func rows(of table: String, columns: [String], batch: Int, _ body: ([[StoreValue]]) throws -> Void) throws
    /// How many rows `table` holds (in the same snapshot as `rows` when called inside `snapshot`).
    func count(of table: String) throws -> Int
    /// Runs `body` on one consistent snapshot of the store: every read inside it sees the same commit.
    func snapshot<T>(_ body: (any StoreRowSource) throws -> T) throws -> T
}

/// A whole store as a row source: its three reads are each one snapshot of their own (`snapshot` is what
/// a backend writes; a copy runs every read inside one).
public protocol SnapshotRowSource: StoreRowSource {}

extension SnapshotRowSource {
    public func columns(of table: String) throws -> [String] { try snapshot { try $0.columns(of: table) } }

    public func rows(of table: String, columns: [String], batch: Int, _ body: ([[StoreValue]]) throws -> Void) throws {
        try snapshot { try $0.rows(of: table, columns: columns, batch: batch, body) }
    }

    public func count(of table: String) throws -> Int { try snapshot { try $0.count(of: table) } }
}

/// What a copy moved, table by table.
public struct StoreCopyReport: Sendable, Hashable {
    public var tables: [(name: String, rows: Int)]

    public init(tables: [(name: String, rows: Int)]) { self.tables = tables }

    public var rows: Int { tables.reduce(0) { $0 + $1.rows } }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.tables.map(\.name) == rhs.tables.map(\.name) && lhs.tables.map(\.rows) == rhs.tables.map(\.rows)
    }

    public func hash(into hasher: inout Hasher) {
        for table in tables {
            hasher.combine(table.name)
            hasher.combine(table.rows)
        }
    }
}

/// The tables a whole store is made of, each after the tables it refers to: the order `store copy` moves
/// them in, whichever the backends. Both backends keep these tables under these names.
public enum StoreTables {
    public static let copyOrder = [
        "app", "user", "game_account", "product", "payment_run", "store_transaction", "payment_order",
        "server_callback", "item_grant", "subscription", "restore_request", "login_entry_configuration", "audit_log",
        "transaction_event", "login_entry_history", "onetap_simulator", "onetap_token", "trust_root", "subscription_event",
        "catalogue", "catalogue_group", "catalogue_product", "catalogue_localization", "catalogue_offer",
        "catalogue_billing_plan", "game_server_callback", "game_server_grant",
        "signer", "app_api_key", "apple_app_account_token", "apple_renewal_extension", "apple_consumption_request",
        "notification_delivery", "notification_attempt", "apple_mass_extension", "store_meta",
    ]
}
