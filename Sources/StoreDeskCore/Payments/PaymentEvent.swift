/// One thing that happened to one transaction in the payment queue, for the timeline and the store.
public struct PaymentEvent: Hashable, Sendable, Codable {
    public enum Kind: String, Hashable, Sendable, Codable, CaseIterable {
        case requestRefused = "request_refused"
        case purchaseRefused = "purchase_refused"
        case purchasing, purchased, failed, deferred, approved, declined
        case clientCrashed = "client_crashed"
        case receiptChecked = "receipt_checked"
        case orderCreated = "order_created"
        case callbackDropped = "callback_dropped"
        case serverDown = "server_down"
        case callbackAccepted = "callback_accepted"
        case callbackRejected = "callback_rejected"
        case callbackDuplicate = "callback_duplicate"
        case callbackAbandoned = "callback_abandoned"
        /// A callback sent over HTTP got no reply: the connection was refused, timed out or broke.
        case callbackFailed = "callback_failed"
        case granted, finished
        /// The restore desk: a dropped order came back at a login, and support's decision on it.
        case restorePrompted = "restore_prompted"
        case restoreConfirmed = "restore_confirmed"
        case restoreDeclined = "restore_declined"
        /// Restore purchases brought a past purchase back as a new `restored` transaction.
        case restored
    }

    public var at: Instant
    public var transactionId: String
    public var kind: Kind
    /// One sentence for the timeline (never an AppKey in the clear).
    public var detail: String

    public init(at: Instant, transactionId: String, kind: Kind, detail: String) {
        self.at = at
        self.transactionId = transactionId
        self.kind = kind
        self.detail = detail
    }

    public enum CodingKeys: String, CodingKey {
        case at, kind, detail
        case transactionId = "transaction_id"
    }
}

/// One callback the game server received, as the `server_callback` table keeps it.
///
/// When the game server is StoreDesk's own (in process), `verdict` is its decision. When the callback
/// was POSTed to a real game server, the row also keeps where it went (`url`), the HTTP status, the reply
/// body (cut) in `reply`, and the round trip's latency; `verdict` is then what the reply meant.
public struct CallbackAttempt: Hashable, Sendable, Codable {
    /// Verdicts written for callbacks: `accepted`, `duplicate`, or the refusal's code (`bad_signature`, …).
    public static let accepted = "accepted"
    public static let duplicate = "duplicate"
    /// A real game server answered something other than `success` (another body, or a non-2xx status).
    public static let refused = "refused"
    /// A real game server did not answer: the connection was refused, timed out or broke.
    public static let unanswered = "unanswered"

    public var orderId: String
    public var attempt: Int
    public var body: String
    public var signExpected: String
    public var signReceived: String
    public var verdict: String
    public var reason: String
    public var reply: String
    public var receivedAt: Instant
    /// Where the callback was POSTed; nil when StoreDesk's own game server answered it in process.
    public var url: String?
    /// The HTTP status of the reply; nil in process or when nothing came back.
    public var httpStatus: Int?
    /// The round trip in microseconds, from sending the request to the reply's last byte (or the failure).
    public var latencyMicros: Int?

    public init(
        orderId: String, attempt: Int, body: String, signExpected: String, signReceived: String, verdict: String,
        reason: String, reply: String, receivedAt: Instant, url: String? = nil, httpStatus: Int? = nil,
        latencyMicros: Int? = nil
    ) {
        self.url = url
        self.httpStatus = httpStatus
        self.latencyMicros = latencyMicros
        self.orderId = orderId
        self.attempt = attempt
        self.body = body
        self.signExpected = signExpected
        self.signReceived = signReceived
        self.verdict = verdict
        self.reason = reason
        self.reply = reply
        self.receivedAt = receivedAt
    }

    public enum CodingKeys: String, CodingKey {
        case attempt, body, verdict, reason, reply
        case orderId = "order_id"
        case signExpected = "sign_expected"
        case signReceived = "sign_received"
        case receivedAt = "received_at"
        case url
        case httpStatus = "http_status"
        case latencyMicros = "latency_us"
    }
}

/// One atomic step of the simulation: rows to write and the events that explain them. The store
/// commits each change in one SQLite transaction, so a row never exists without its event.
public struct PaymentChange: Hashable, Sendable {
    /// Inserted, or replaced when it exists (a state change, finishing).
    public var transaction: StoreTransaction?
    /// Inserted, or replaced when it exists (status pending → granted).
    public var order: PaymentOrder?
    public var callback: CallbackAttempt?
    public var grant: Grant?
    /// A player who logged in with this step: their Apple ID's dropped orders become restore prompts.
    public var login: PlayerLogin?
    public var events: [PaymentEvent]

    public init(
        transaction: StoreTransaction? = nil, order: PaymentOrder? = nil, callback: CallbackAttempt? = nil,
        grant: Grant? = nil, login: PlayerLogin? = nil, events: [PaymentEvent]
    ) {
        self.transaction = transaction
        self.order = order
        self.callback = callback
        self.grant = grant
        self.login = login
        self.events = events
    }
}
