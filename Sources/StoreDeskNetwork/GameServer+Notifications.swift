import Foundation
import Hummingbird
import NIOCore
import StoreDeskCore
import StoreDeskStoreAPI

/// `POST /notifications`: an App Store Server Notification V2, `{"signedPayload": "<JWS>"}`, as Apple
/// sends it. The JWS is verified with the store's trusted roots (`storedesk trust add`) exactly as
/// `events import` verifies a line, and imported in one transaction; the reply comes after the commit:
///
/// - 200 `imported`, or 200 `skipped: …` for a notification already in the store (Apple retries what it
///   thinks was lost: a repeat must be acknowledged, and changes nothing);
/// - 400 for a body that is not `{"signedPayload": "<JWS>"}`, 413/415/408 as for callbacks;
/// - 422 `rejected: …` for a notification the store refuses (a signature that does not verify, no
///   trusted root, an unknown product): nothing of it is stored, and Apple will try again.
///
/// A notification is stamped (`imported_at`) on the store's time line as the ledger runs it, like the
/// callbacks beside it; "signed in the future" is judged against the real time.
struct NotificationHandler: Sendable {
    let store: any NotificationImportStore
    /// The store's time line as this server runs it (`CallbackLedger.now`).
    let ledger: any CallbackLedger
    let body: BodyReader

    func notification(_ request: Request, _ context: ServeContext) async throws -> Response {
        if let type = request.headers[.contentType], !type.lowercased().hasPrefix("application/json") {
            return reply(.unsupportedMediaType, "the body must be application/json", context, "content-type \(type)")
        }
        let bytes: [UInt8]
        switch try await body.read(request) {
        case .tooLarge:
            return reply(.contentTooLarge, "the body is larger than \(body.limit) bytes", context, "body too large")
        case .tooSlow:
            return reply(.requestTimeout, "the body did not arrive within \(Int(body.timeout)) s", context, "body too slow")
        case .body(let read):
            bytes = read
        }
        guard let jws = Self.signedPayload(bytes) else {
            return reply(.badRequest, "the body must be {\"signedPayload\": \"<JWS>\"}", context, "not a notification")
        }
        // Verification (ES256, the chain) and the write run off the event loops, on the store's side.
        let store = self.store, peer = context.peer
        let line: NotificationImport.Line?
        do {
            line = try await Self.importLine(jws, into: store, at: ledger.now, peer: peer)
        } catch StoreError.dataFile(_, let message) {
            return reply(.badRequest, "not a notification: \(message)", context, "not a notification: \(message)")
        } catch {
            // The line is all or nothing: a failed write left no trace, and Apple will send it again.
            return reply(.serviceUnavailable, "the store could not take it now", context, "not stored: \(error)")
        }
        return answer(line, context)
    }

    /// Verifies and imports one notification (ES256 and the chain, then the write), awaited: the store
    /// runs it off the caller's thread. Stamped at `stamp` on the store's time line (or later, when the
    /// store's clock has passed it).
    static func importLine(
        _ jws: String, into store: any NotificationImportStore, at stamp: Instant, peer: String
    ) async throws -> NotificationImport.Line? {
        try await store.receiveNotification(
            signedPayload: jws, source: "serve POST /notifications from \(peer)", wallClock: Instant(Date()), stampAt: stamp)
    }

    private func answer(_ line: NotificationImport.Line?, _ context: ServeContext) -> Response {
        let uuid = line?.notificationUUID.map { "notification \($0) " } ?? ""
        switch line?.outcome {
        case .imported?:
            return reply(.ok, "imported", context, uuid + "imported" + (line?.userId.map { " for \(Masking.phoneNumbers(in: $0))" } ?? ""))
        case .skipped(let reason)?:
            return reply(.ok, "skipped: " + reason, context, uuid + "skipped: " + reason)
        case .rejected(let reason)?:
            return reply(.unprocessableContent, "rejected: " + reason, context, uuid + "rejected: " + reason)
        case nil:
            return reply(.badRequest, "the body must be {\"signedPayload\": \"<JWS>\"}", context, "no notification in the body")
        }
    }

    /// The JWS of `{"signedPayload": "<JWS>"}` (any JSON spacing), when it is three base64url parts.
    static func signedPayload(_ bytes: [UInt8]) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any],
            let jws = object["signedPayload"] as? String, !jws.isEmpty, jws.utf8.count <= 1 << 20,
            jws.utf8.allSatisfy({ byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == 0x2D
                    || byte == 0x5F || byte == 0x2E
            }),
            jws.split(separator: ".", omittingEmptySubsequences: false).count == 3
        else { return nil }
        return jws
    }

    private func reply(_ status: HTTPResponse.Status, _ text: String, _ context: ServeContext, _ note: String) -> Response {
        context.note.set("\(status.code) " + note)
        var headers: HTTPFields = [.contentType: "text/plain; charset=utf-8"]
        if status.code >= 400 { headers[.connection] = "close" }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text + "\n")))
    }
}
