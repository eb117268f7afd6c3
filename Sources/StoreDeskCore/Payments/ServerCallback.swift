/// The form-encoded callback the platform POSTs to the game server for a paid order.
///
/// Fields, in the order they are sent: `order_id`, `payment`, `sub_payment`, `user_id`, `client_id`
/// (the AppID), `app` (the game's name), `app_id` (the Sid: the game's server), `app_order_id` (the
/// game's own OrderId), `role_id`, `product_id`, `gold` (yuan, only when the payment is not
/// "appstore"), `ext`, `timestamp` (Unix seconds), and last `sign`. The body is not sorted; the
/// signature sorts, so the game server must too.
///
///     let callback = ServerCallback(order: order, app: app, timestamp: now)
///     callback.body   // "order_id=P1&payment=appstore&…&sign=3f2a…"
public struct ServerCallback: Hashable, Sendable {
    /// The `payment` value of App Store purchases; any other value is a different channel that pays `gold`.
    public static let appStorePayment = "appstore"

    /// One field of the body.
    public struct Field: Hashable, Sendable {
        public var name: String
        public var value: String

        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The signed fields in sending order, without `sign`.
    public var fields: [Field]
    public var sign: String
    /// `http_build_query` of the fields in sending order, then `sign`: what goes over the wire.
    public var body: String
    /// What was hashed, with the AppKey masked (safe to display).
    public var maskedHashedString: String

    /// The callback for a platform order, sent at `timestamp` (whole seconds go into the body).
    public init(order: PaymentOrder, app: App, timestamp: Instant) {
        var fields = [
            Field("order_id", order.id),
            Field("payment", order.payment),
            Field("sub_payment", order.subPayment),
            Field("user_id", order.userId),
            Field("client_id", app.id),
            Field("app", app.name),
            Field("app_id", order.sid),
            Field("app_order_id", order.appOrderId),
            Field("role_id", order.roleId),
            Field("product_id", order.productId),
        ]
        if order.payment != ServerCallback.appStorePayment {
            fields.append(Field("gold", ServerCallback.goldText(cents: order.amountCents)))
        }
        fields.append(Field("ext", order.ext))
        fields.append(Field("timestamp", String(timestamp.millis / 1000)))
        self.init(fields: fields, appKey: app.appKey)
    }

    /// The callback for an App Store transaction the platform has recorded under `orderId`.
    ///
    /// App Store payments carry no `gold`: the game server grants by `product_id`.
    public init(transaction: StoreTransaction, orderId: String, app: App, timestamp: Instant) {
        let order = PaymentOrder(
            id: orderId, transactionId: transaction.id, appId: transaction.appId, userId: transaction.userId,
            productId: transaction.productId, payment: ServerCallback.appStorePayment,
            subPayment: transaction.environment.rawValue, amountCents: 0, sid: transaction.sid,
            roleId: transaction.roleId, appOrderId: transaction.appOrderId, ext: transaction.ext, createdAt: timestamp,
            status: .pending)
        self.init(order: order, app: app, timestamp: timestamp)
    }

    /// A callback with arbitrary fields, signed with the AppKey (for tests and tampering drills).
    public init(fields: [Field], appKey: String) {
        let array = PHPArray(fields.map { ($0.name, $0.value) })
        let sign = CallbackSignature.sign(fields: array, appKey: appKey)
        var sent = array
        sent[CallbackSignature.signField] = PHPValue(sign)
        self.fields = fields
        self.sign = sign
        self.body = PHPQuery.httpBuildQuery(sent)
        self.maskedHashedString = CallbackSignature.signedQuery(fields: array) + Masking.secret(appKey)
    }

    /// Cents as the yuan amount the callback's `gold` carries: `600` → "6.00", `99` → "0.99".
    public static func goldText(cents: Int) -> String {
        let sign = cents < 0 ? "-" : ""
        let magnitude = cents.magnitude
        let fraction = magnitude % 100
        return sign + String(magnitude / 100) + "." + (fraction < 10 ? "0" : "") + String(fraction)
    }
}
