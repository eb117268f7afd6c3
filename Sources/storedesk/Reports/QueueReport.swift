import Foundation
import StoreDeskCore
import StoreDeskStoreAPI
import StoreDeskStoreAPI
import StoreDeskUI

/// One callback attempt for `queue list|show`: where it went, what came back, how long it took.
struct CallbackAttemptJSON: Encodable {
    var attempt: Int
    var orderId: String
    var verdict: String
    var reason: String
    /// Nil when StoreDesk's own game server answered it in process.
    @NullWhenAbsent var url: String?
    @NullWhenAbsent var httpStatus: Int?
    /// The reply body as kept (cut to 200 bytes, control characters escaped), or why none came.
    var reply: String
    @NullWhenAbsent var latencyUs: Int?
    var receivedAt: String
    var body: String

    enum CodingKeys: String, CodingKey {
        case attempt, verdict, reason, url, reply, body
        case orderId = "order_id", httpStatus = "http_status", latencyUs = "latency_us", receivedAt = "received_at"
    }

    init(_ c: CallbackAttempt) {
        attempt = c.attempt
        orderId = c.orderId
        verdict = c.verdict
        reason = c.reason
        url = c.url
        httpStatus = c.httpStatus
        reply = c.reply
        latencyUs = c.latencyMicros
        receivedAt = c.receivedAt.iso8601
        body = c.body
    }

    /// `attempt 2 refused · HTTP 500 · 48.3 ms · "<html>…"`, or `attempt 1 accepted · in process · reply success`.
    static func line(_ c: CallbackAttempt) -> String {
        let head = "attempt \(c.attempt) \(c.verdict)"
        guard c.url != nil else { return head + " · in process · reply " + c.reply.controlsEscaped }
        let answer = c.httpStatus.map { "HTTP \($0)" } ?? "no reply"
        let latency = c.latencyMicros.map { " · " + CallbackReply.millisText($0) } ?? ""
        let reply = c.httpStatus == nil ? c.reply : "\"\(c.reply)\""
        return head + " · " + answer + latency + " · " + reply.controlsEscaped
    }
}

/// `queue list`, as text and as JSON.
struct QueueListReport: CommandReport {
    /// The callback attempts the delivery figures cover (as the Queue screen's header).
    static let deliveriesWindow = 500

    var path: String
    var counts: [TransactionState: Int]
    var deliveries: CallbackDeliveries
    var rows: [(StoreTransaction, CallbackAttempt?)]

    struct Row: Encodable {
        var transactionId: String
        var state: String
        var userId: String
        var appId: String
        var productId: String
        var purchasedAt: String
        @NullWhenAbsent var latestCallback: CallbackAttemptJSON?

        enum CodingKeys: String, CodingKey {
            case state
            case transactionId = "transaction_id", userId = "user_id", appId = "app_id", productId = "product_id"
            case purchasedAt = "purchased_at", latestCallback = "latest_callback"
        }
    }

    struct JSON: Encodable {
        var path: String
        var counts: [String: Int]
        /// How the latest callbacks POSTed to real game servers went; null when none was.
        @NullWhenAbsent var http: CallbackDeliveries?
        var transactions: [Row]
    }

    var json: JSON {
        JSON(
            path: path, counts: Dictionary(uniqueKeysWithValues: TransactionState.allCases.map { ($0.rawValue, counts[$0] ?? 0) }),
            http: deliveries.attempts > 0 ? deliveries : nil,
            transactions: rows.map { t, c in
                Row(
                    transactionId: t.id, state: t.state.rawValue, userId: t.userId, appId: t.appId, productId: t.productId,
                    purchasedAt: t.purchaseDate.iso8601, latestCallback: c.map(CallbackAttemptJSON.init))
            })
    }

    var text: String {
        let total = counts.values.reduce(0, +)
        var out = "\(total.formattedWithSeparators) in queue: "
            + TransactionState.allCases.map { "\($0.rawValue) \((counts[$0] ?? 0).formattedWithSeparators)" }.joined(separator: " ") + "\n"
        if deliveries.attempts > 0 { out += "HTTP latest \(deliveries.text)\n" }
        guard !rows.isEmpty else { return out + "no transaction matches\n" }
        out += "TRANSACTION       STATE       USER       PRODUCT                                   LATEST CALLBACK\n"
        for (t, c) in rows {
            let latest = c.map(CallbackAttemptJSON.line) ?? "-"
            out += t.id.controlsEscaped.padding(toLength: 17, withPad: " ", startingAt: 0) + " "
                + t.state.rawValue.padding(toLength: 11, withPad: " ", startingAt: 0) + " "
                + t.userId.controlsEscaped.padding(toLength: 10, withPad: " ", startingAt: 0) + " "
                + t.productId.controlsEscaped.padding(toLength: 41, withPad: " ", startingAt: 0) + " " + latest + "\n"
        }
        return out
    }
}

/// `queue show`, as text and as JSON.
struct QueueShowReport: CommandReport {
    var detail: QueueDetail

    struct JSON: Encodable {
        struct Transaction: Encodable {
            var id: String
            var state: String
            var finished: Bool
            var userId: String
            var appId: String
            var productId: String
            var quantity: Int
            var environment: String
            var purchasedAt: String
            enum CodingKeys: String, CodingKey {
                case id, state, finished, quantity, environment
                case userId = "user_id", appId = "app_id", productId = "product_id", purchasedAt = "purchased_at"
            }
        }
        struct Order: Encodable {
            var orderId: String
            var status: String
            var amountCents: Int
            var appOrderId: String
            enum CodingKeys: String, CodingKey {
                case status
                case orderId = "order_id", amountCents = "amount_cents", appOrderId = "app_order_id"
            }
        }
        struct Event: Encodable {
            var at: String
            var kind: String
            var detail: String
        }
        var transaction: Transaction
        @NullWhenAbsent var order: Order?
        var callbacks: [CallbackAttemptJSON]
        @NullWhenAbsent var grantedAt: String?
        var events: [Event]
        enum CodingKeys: String, CodingKey {
            case transaction, order, callbacks, events
            case grantedAt = "granted_at"
        }
    }

    var json: JSON {
        let t = detail.transaction
        return JSON(
            transaction: .init(
                id: t.id, state: t.state.rawValue, finished: t.finished, userId: t.userId, appId: t.appId, productId: t.productId,
                quantity: t.quantity, environment: t.environment.rawValue, purchasedAt: t.purchaseDate.iso8601),
            order: detail.order.map { .init(orderId: $0.id, status: $0.status.rawValue, amountCents: $0.amountCents, appOrderId: $0.appOrderId) },
            callbacks: detail.callbacks.map(CallbackAttemptJSON.init), grantedAt: detail.grant?.grantedAt.iso8601,
            events: detail.events.map { .init(at: $0.at.iso8601, kind: $0.kind.rawValue, detail: $0.detail) })
    }

    var text: String {
        let t = detail.transaction
        var out = "transaction \(t.id.controlsEscaped) · \(t.state.rawValue)" + (t.finished ? " · finished" : " · in the queue") + "\n"
        out += "player      \(t.userId.controlsEscaped) · app \(t.appId.controlsEscaped) · \(t.productId.controlsEscaped) ×\(t.quantity)\n"
        out += "purchased   \(t.purchaseDate.iso8601) · \(t.environment.rawValue)\n"
        if let order = detail.order {
            out += "order       \(order.id) · \(order.status.rawValue) · app order \(order.appOrderId.controlsEscaped)\n"
        } else {
            out += "order       none\n"
        }
        out += "grant       " + (detail.grant.map { "granted \($0.grantedAt.iso8601)" } ?? "none") + "\n"
        out += "callbacks   \(detail.callbacks.count)\n"
        for c in detail.callbacks {
            out += "  " + CallbackAttemptJSON.line(c) + " · " + c.receivedAt.iso8601 + "\n"
            if let url = c.url { out += "    url     \(url.controlsEscaped)\n" }
            if !c.reason.isEmpty { out += "    reason  \(c.reason.controlsEscaped)\n" }
        }
        out += "timeline    \(detail.events.count)\n"
        for e in detail.events { out += "  \(e.at.iso8601) \(e.kind.rawValue): \(e.detail.controlsEscaped)\n" }
        return out
    }
}
