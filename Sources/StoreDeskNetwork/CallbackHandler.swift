import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypes
import NIOPosix
import ServiceLifecycle
import StoreDeskCore
import StoreDeskStoreAPI

/// `POST /callback`'s decisions, apart from how the bytes arrive (`CallbackChannelHandler` carries them):
/// a body comes to a reply at once (unknown app, bad sign) or to a genuine callback the ledger commits
/// first, and then to its reply.
struct CallbackHandler: Sendable {
    let ledger: any CallbackLedger
    let apps: AppDirectory
    let settings: GameServer.Settings

    /// What the server answers, and what the request's log line says after the reply in quotes.
    struct Reply: Sendable {
        var status: HTTPResponse.Status
        var text: String
        var note: String

        /// The log line's note: the reply, then what happened.
        var logNote: String { "\"\(text)\" " + note }
    }

    /// A genuine callback waiting for its commit, with what its log line needs.
    struct Pending: Sendable {
        var received: ReceivedCallback
        var clientId: String
        var orderText: String
    }

    enum Step: Sendable {
        case reply(Reply)
        case commit(Pending)
    }

    /// 415 for a body that is not a form (decided from the head, before the body is read).
    func refusal(contentType: String?) -> Reply? {
        guard let type = contentType, !type.lowercased().hasPrefix("application/x-www-form-urlencoded") else { return nil }
        return Reply(status: .unsupportedMediaType, text: "fail: the body must be application/x-www-form-urlencoded", note: "content-type \(type)")
    }

    var tooLarge: Reply {
        Reply(status: .contentTooLarge, text: "fail: the body is larger than \(settings.bodyLimit) bytes", note: "body too large")
    }

    var tooSlow: Reply {
        Reply(status: .requestTimeout, text: "fail: the body did not arrive within \(Int(settings.readTimeout)) s", note: "body too slow")
    }

    /// The body, parsed once and verified with its app's AppKey.
    func step(_ bytes: [UInt8], peer: String) -> Step {
        let fields = PHPQuery.parseStr(bytes: bytes)
        let clientId = fields.text("client_id") ?? ""
        let orderText = "order_id=" + Masking.phoneNumbers(in: fields.text("order_id") ?? "-")
        guard let (app, products) = apps.app(clientId) else {
            let shown = clientId.isEmpty ? "(none)" : String(Masking.phoneNumbers(in: clientId).prefix(64))
            return .reply(Reply(status: .ok, text: "fail: unknown app", note: "client_id=\(shown) \(orderText) refused: no such app"))
        }
        let verification = CallbackSignature.verify(parsed: fields, appKey: app.appKey)
        let received = ReceivedCallback(
            app: app, products: products, verification: verification, body: String(decoding: bytes, as: UTF8.self),
            peer: peer, receivedAt: ledger.now)
        guard verification.isValid else {
            let decision = GrantRule.decide(
                verification: verification, app: app, products: products, alreadyGranted: { _ in false }, at: received.receivedAt)
            return .reply(reply(decision, received: received, clientId: clientId, orderText: orderText))
        }
        return .commit(Pending(received: received, clientId: clientId, orderText: orderText))
    }

    /// The reply to a genuine callback once the ledger has committed it (or could not: nothing stored).
    func reply(_ result: Result<GrantDecision, any Error>, for pending: Pending) -> Reply {
        switch result {
        case .success(let decision):
            return reply(decision, received: pending.received, clientId: pending.clientId, orderText: pending.orderText)
        case .failure(let error):
            return Reply(
                status: .serviceUnavailable, text: "fail: the store is busy",
                note: "client_id=\(pending.clientId) \(pending.orderText) not stored: \(error)")
        }
    }

    private func reply(_ decision: GrantDecision, received: ReceivedCallback, clientId: String, orderText: String) -> Reply {
        let outcome: String
        switch decision.outcome {
        case .grant(let grant):
            let what = grant.kind == .product ? grant.productId : "\(grant.currencyAmount) currency"
            outcome = "granted \(what) to \(Masking.phoneNumbers(in: grant.userId))"
        case .duplicate: outcome = "repeat: granted nothing"
        case .reject(let refusal): outcome = "refused (\(refusal.code))"
        }
        let warnings = received.verification.warnings
        let warned = warnings.isEmpty ? "" : "; warnings: " + warnings.map(\.code).joined(separator: ", ")
        return Reply(status: .ok, text: decision.reply, note: "client_id=\(clientId) \(orderText) \(outcome)\(warned)")
    }
}
