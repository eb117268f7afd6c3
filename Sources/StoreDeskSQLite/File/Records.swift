import GRDB
import StoreDeskCore

// The Core entities are the store's records: their CodingKeys are the column names.

extension Instant: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { millis.databaseValue }
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Instant? {
        Int64.fromDatabaseValue(dbValue).map(Instant.init(millis:))
    }
}

extension Site: DatabaseValueConvertible {}
extension AdultType: DatabaseValueConvertible {}
extension RestoreOwnership: DatabaseValueConvertible {}
extension ProductType: DatabaseValueConvertible {}
extension SubscriptionPeriod: DatabaseValueConvertible {}
extension TransactionState: DatabaseValueConvertible {}
extension FailureReason: DatabaseValueConvertible {}
extension StoreEnvironment: DatabaseValueConvertible {}
extension OrderStatus: DatabaseValueConvertible {}
extension GrantKind: DatabaseValueConvertible {}
extension GrantSource: DatabaseValueConvertible {}
extension SubscriptionState: DatabaseValueConvertible {}
extension RestoreStatus: DatabaseValueConvertible {}
extension AppEnvironments: DatabaseValueConvertible {}

extension App: FetchableRecord, PersistableRecord {
    public static let databaseTableName = "app"
}

extension User: FetchableRecord, PersistableRecord {
    public static let databaseTableName = "user"
    public enum Columns {
        public static let id = Column(CodingKeys.id)
        public static let name = Column(CodingKeys.name)
        public static let friendlyName = Column(CodingKeys.friendlyName)
        public static let phone = Column(CodingKeys.phone)
    }
}

extension GameAccount: FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "game_account"
    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

extension Product: FetchableRecord, PersistableRecord {
    public static let databaseTableName = "product"
}

extension StoreTransaction: FetchableRecord, PersistableRecord {
    public static let databaseTableName = "store_transaction"
}

extension PaymentOrder: FetchableRecord, PersistableRecord {
    public static let databaseTableName = "payment_order"
}

extension Grant: FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "item_grant"
    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

extension Subscription: FetchableRecord, PersistableRecord {
    public static let databaseTableName = "subscription"
}

extension RestoreRequest: FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "restore_request"
    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

extension LoginEntryConfiguration: FetchableRecord, PersistableRecord {
    public static let databaseTableName = "login_entry_configuration"
}

extension AuditEntry: FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "audit_log"
    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

extension FetchableRecord where Self: TableRecord {
    /// The row whose `column` holds `value`, by a plain `WHERE column = ?`.
    ///
    /// Not GRDB's `fetchOne(db, key:)`: that asks the schema for the table's unique key first and traps
    /// when it is gone, and a store edited by hand (a `user` table rebuilt without `UNIQUE`) must give an
    /// error, not end the process (and leave a console's terminal raw).
    ///
    /// A column a record reads as JSON (`login_entry_configuration.entries`) that holds something else is
    /// the store's damage, said as such (`check` reports it too), not a decoder's message.
    static func fetchOne(_ db: Database, matching column: String, _ value: some DatabaseValueConvertible) throws -> Self? {
        do {
            return try filter(Column(column) == value).fetchOne(db)
        } catch is DecodingError {
            throw UnreadableValue(detail: "a value in table \(databaseTableName) (stored as JSON) cannot be read")
        }
    }

    /// Whether a row's `column` holds `value` (see `fetchOne(_:matching:_:)` for why not `exists(db, key:)`).
    static func exists(_ db: Database, matching column: String, _ value: some DatabaseValueConvertible) throws -> Bool {
        try !filter(Column(column) == value).isEmpty(db)
    }
}

/// A value a record could not be made from, for `StoreError(failure:path:)` to say as the store's damage.
struct UnreadableValue: Error {
    var detail: String
}

extension Row {
    /// A column's value, thrown as an error when it does not convert: GRDB's `row["column"]` traps
    /// instead (`try!`), and a store edited by hand can hold text where a number belongs.
    func column<Value: DatabaseValueConvertible>(_ name: String) throws -> Value {
        try decode(forColumn: name)
    }
}
