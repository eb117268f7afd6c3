import StoreDeskCore

/// The domain's invariants `storedesk check` enforces on every backend, by the kind its findings carry.
/// Each backend says each one in its own SQL (an exhaustive `switch` on PostgreSQL), with the same subject
/// and message for the same damage.
public enum StoreInvariant: String, CaseIterable, Sendable {
    case storeClockInvalid = "store_clock_invalid"
    case schemaKeyMissing = "schema_key_missing"
    case userCountDrift = "user_count_drift"
    case orderGrantedTwice = "order_granted_twice"
    case grantWithoutOrder = "grant_without_order"
    case orderPendingWithGrant = "order_pending_with_grant"
    case orderWithoutPayment = "order_without_payment"
    case finishedPurchaseNotDelivered = "finished_purchase_not_delivered"
    case acceptedCallbackGrants = "accepted_callback_grants"
    case orderAcceptedTwice = "order_accepted_twice"
    case grantWithoutAcceptedCallback = "grant_without_accepted_callback"
    case droppedOrderGranted = "dropped_order_granted"
    case droppedOrderLost = "dropped_order_lost"
    case transactionRestoredTwice = "transaction_restored_twice"
    case confirmedRestoreGrants = "confirmed_restore_grants"
    case servedSuccessWithoutGrant = "served_success_without_grant"
    case eventWithoutTransaction = "event_without_transaction"
    case subscriptionEntitledAfterRevocation = "subscription_entitled_after_revocation"
    case subscriptionEntitledAfterExpiry = "subscription_entitled_after_expiry"
    case subscriptionDatesOutOfOrder = "subscription_dates_out_of_order"
    case subscriptionEventWithoutSubscription = "subscription_event_without_subscription"
    case stampAfterClock = "stamp_after_clock"
}

/// What `check` knows of a store beside the invariants, the same on every backend.
public enum StoreCheckRules {
    /// The kinds of findings about the store itself rather than its rows' meaning.
    public static let integrity = "integrity", foreignKey = "foreign_key", schema = "schema"
    public static let tableMissing = "schema_table_missing", columnMissing = "schema_column_missing"
    public static let valueUnreadable = "value_unreadable"

    /// The finding of a table the migrations make that the store lacks.
    public static func missing(table: String) -> StoreCheckViolation {
        StoreCheckViolation(kind: tableMissing, subject: table, message: "table \(table) is missing (the schema was changed outside StoreDesk)")
    }

    /// The finding of a column the migrations make that the store's table lacks.
    public static func missing(column: String, of table: String) -> StoreCheckViolation {
        StoreCheckViolation(
            kind: columnMissing, subject: "\(table).\(column)", message: "table \(table) has no column \(column) (the schema was changed outside StoreDesk)")
    }

    /// The finding of a rule the store could not run (a table or column it reads is gone).
    public static func cannotCheck(_ rule: String, because reason: String) -> StoreCheckViolation {
        StoreCheckViolation(kind: schema, subject: rule, message: "cannot check \(rule): \(reason)")
    }

    /// What is wrong with a clock the store refuses (its error, and `store_clock_invalid`).
    public static let clockProblem = "is not milliseconds from 1970 to 9999"

    /// The keys rows are found and referenced by: a table that lost one can no longer tell its rows apart.
    public static let keyColumns: [(table: String, column: String)] = [
        ("app", "id"), ("user", "id"), ("product", "id"), ("store_transaction", "id"), ("payment_order", "order_id"),
        ("subscription", "original_transaction_id"), ("restore_request", "id"), ("login_entry_configuration", "app_id"),
    ]

    /// The columns a write stamps with the store's clock, which a stamp keeps at or before it. (A
    /// notification's own dates are Apple's, and run leases are wall-clock time: neither is the store's;
    /// when a notification was imported is.)
    public static let stampedColumns: [(table: String, column: String)] = [
        ("audit_log", "at"), ("restore_request", "created_at"), ("restore_request", "resolved_at"),
        ("store_transaction", "purchase_date"), ("transaction_event", "at"), ("payment_order", "created_at"),
        ("server_callback", "received_at"), ("item_grant", "granted_at"), ("login_entry_history", "at"),
        ("login_entry_configuration", "updated_at"), ("subscription_event", "imported_at"),
    ]

    /// One column the records decode into a Core enum: the values its decoder takes.
    public struct DecodedColumn: Sendable {
        public var table: String
        /// The column that names a row in a finding (its id).
        public var key: String
        public var column: String
        public var values: [StoreValue]
        /// The column holds a JSON array of such values.
        public var jsonArray: Bool

        public init<Value: RawRepresentable & CaseIterable>(
            _ table: String, key: some CodingKey, _ column: some CodingKey, _ type: Value.Type, jsonArray: Bool = false
        ) where Value.RawValue == String {
            self.init(table, key.stringValue, column.stringValue, Value.allCases.map { .text($0.rawValue) }, jsonArray)
        }

        public init<Value: RawRepresentable & CaseIterable>(
            _ table: String, key: some CodingKey, _ column: some CodingKey, _ type: Value.Type
        ) where Value.RawValue == Int {
            self.init(table, key.stringValue, column.stringValue, Value.allCases.map { .integer(Int64($0.rawValue)) }, false)
        }

        private init(_ table: String, _ key: String, _ column: String, _ values: [StoreValue], _ jsonArray: Bool) {
            (self.table, self.key, self.column, self.values, self.jsonArray) = (table, key, column, values, jsonArray)
        }

        /// The values as a list of SQL literals, `'text'` quoted.
        public var literals: String {
            values.map { value in
                switch value {
                case .integer(let number): String(number)
                case .text(let text): "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
                default: "NULL"
                }
            }.joined(separator: ", ")
        }
    }

    /// Every column a record decodes into a Core enum (by the records' own `CodingKeys` and the enums' cases,
    /// so a new case is checked without a change here).
    public static let decodedColumns: [DecodedColumn] = [
        DecodedColumn("user", key: User.CodingKeys.id, User.CodingKeys.site, Site.self),
        DecodedColumn("user", key: User.CodingKeys.id, User.CodingKeys.adultType, AdultType.self),
        DecodedColumn("app", key: App.CodingKeys.id, App.CodingKeys.restoreOwnership, RestoreOwnership.self),
        DecodedColumn("app", key: App.CodingKeys.id, App.CodingKeys.environments, AppEnvironments.self),
        DecodedColumn("product", key: Product.CodingKeys.id, Product.CodingKeys.type, ProductType.self),
        DecodedColumn("product", key: Product.CodingKeys.id, Product.CodingKeys.period, SubscriptionPeriod.self),
        DecodedColumn("store_transaction", key: StoreTransaction.CodingKeys.id, StoreTransaction.CodingKeys.state, TransactionState.self),
        DecodedColumn("store_transaction", key: StoreTransaction.CodingKeys.id, StoreTransaction.CodingKeys.failureReason, FailureReason.self),
        DecodedColumn("store_transaction", key: StoreTransaction.CodingKeys.id, StoreTransaction.CodingKeys.environment, StoreEnvironment.self),
        DecodedColumn("payment_order", key: PaymentOrder.CodingKeys.id, PaymentOrder.CodingKeys.status, OrderStatus.self),
        DecodedColumn("item_grant", key: Grant.CodingKeys.id, Grant.CodingKeys.kind, GrantKind.self),
        DecodedColumn("item_grant", key: Grant.CodingKeys.id, Grant.CodingKeys.source, GrantSource.self),
        DecodedColumn("subscription", key: Subscription.CodingKeys.id, Subscription.CodingKeys.state, SubscriptionState.self),
        DecodedColumn("restore_request", key: RestoreRequest.CodingKeys.id, RestoreRequest.CodingKeys.status, RestoreStatus.self),
        DecodedColumn(
            "login_entry_configuration", key: LoginEntryConfiguration.CodingKeys.appId, LoginEntryConfiguration.CodingKeys.entries,
            LoginEntry.self, jsonArray: true),
    ]
}
