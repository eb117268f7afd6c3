import Foundation
import StoreDeskCore
@testable import StoreDeskSQLite
import StoreDeskTrust
import Testing

/// `POST /notifications`: App Store Server Notifications V2 over real HTTP, verified with the store's
/// trusted roots (a chain made at test time, its root added with `trust add`), imported, 200 after the commit.
@Suite(.serialized) struct NotificationsOverHTTPTests {
    static func event(uuid: String, transaction: String, signedDate: Instant) -> SubscriptionEvent {
        SubscriptionEvent(
            notificationType: .subscribed, subtype: .initialBuy, notificationUUID: uuid, signedDate: signedDate,
            appAppleId: 6_741_000_101, bundleId: "com.storedesk.starvoyage", environment: "Production", status: 1,
            transaction: TransactionInfo(
                transactionId: transaction, originalTransactionId: transaction, productId: "com.storedesk.starvoyage.vip.monthly",
                bundleId: "com.storedesk.starvoyage", purchaseDate: signedDate, originalPurchaseDate: signedDate,
                expiresDate: Instant(millis: signedDate.millis + 30 * 86_400_000)),
            renewal: RenewalInfo(originalTransactionId: transaction, productId: "com.storedesk.starvoyage.vip.monthly", autoRenewStatus: 1))
    }

    static func post(_ url: String, _ body: String, type: String = "application/json") throws -> (status: String, body: String) {
        let folder = TemporaryFolder()
        let file = folder.path("body")
        try Data(body.utf8).write(to: URL(fileURLWithPath: file))
        let result = try shell(
            "curl -s --max-time 10 -H 'Content-Type: \(type)' --data-binary @\(file) -w '\\n%{http_code}' \(url)").output
        let lines = result.split(separator: "\n", omittingEmptySubsequences: false)
        return (String(lines.last ?? ""), lines.dropLast().joined(separator: "\n"))
    }

    static func stored(_ path: String) throws -> Int {
        try AppDatabase.open(path: path, access: .readOnly).reader.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM subscription_event") ?? 0
        }
    }

    @Test("a signed notification is verified with the store's trusted root, imported, 200 after the commit; a repeat 200 and nothing more; untrusted, malformed, wrong type, oversized: 4xx, nothing stored, still serving")
    func notifications() throws {
        let folder = TemporaryFolder()
        let path = folder.path("store.sqlite")
        _ = try Fixtures.demoStore(at: path)
        let chain = try SigningChain(name: "Serve Test App Store")
        let rootFile = folder.path("root.pem")
        try Data(try chain.rootPEM().utf8).write(to: URL(fileURLWithPath: rootFile))
        let added = try Binary.run(["trust", "add", rootFile, "--role", "developer", "--db", path], folder: folder)
        #expect(added.status == 0, "\(added.stderr)")
        let serve = try ServeProcess(store: path, folder: folder, extra: ["--max-body", "65536"])
        let url = "http://127.0.0.1:\(serve.port)/notifications"
        let before = try Self.stored(path)
        let signedDate = Instant(Date()).adding(.days(-1))

        let line = try chain.signedNotificationLine(Self.event(uuid: UUID().uuidString.lowercased(), transaction: "2000000100009001", signedDate: signedDate))
        let first = try Self.post(url, line)
        #expect(first.status == "200" && first.body.hasPrefix("imported"), "\(first)")
        #expect(try Self.stored(path) == before + 1, "stored before the reply")
        let again = try Self.post(url, line)
        #expect(again.status == "200" && again.body.hasPrefix("skipped: "), "\(again)")
        #expect(try Self.stored(path) == before + 1)

        // Signed by a chain the store does not trust: refused, nothing stored.
        let stranger = try SigningChain(name: "Not Apple")
        let forged = try stranger.signedNotificationLine(
            Self.event(uuid: UUID().uuidString.lowercased(), transaction: "2000000100009002", signedDate: signedDate))
        let refused = try Self.post(url, forged)
        #expect(refused.status == "422" && refused.body.hasPrefix("rejected: "), "\(refused)")
        // The same notification as the imported one, its payload changed after signing: refused.
        let parts = try #require(
            (try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String])?["signedPayload"]?.split(separator: "."))
        var base64 = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        let payload = String(decoding: try #require(Data(base64Encoded: base64)), as: UTF8.self)
        let changed = payload.replacingOccurrences(of: "\"SUBSCRIBED\"", with: "\"DID_RENEW\"")
        #expect(changed != payload)
        let reencoded = Data(changed.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        let tampered = try Self.post(url, "{\"signedPayload\":\"\(parts[0]).\(reencoded).\(parts[2])\"}")
        #expect(tampered.status == "422" && tampered.body.hasPrefix("rejected: "), "\(tampered)")
        // Three parts that are not a JWS at all.
        #expect(try Self.post(url, "{\"signedPayload\":\"\(parts[0]).\(parts[1])x.\(parts[2])\"}").status.hasPrefix("4"))
        for (body, type, status) in [
            ("{\"signedPayload\": 5}", "application/json", "400"), ("not json", "application/json", "400"),
            ("{}", "application/json", "400"), ("{\"signedPayload\":\"a.b\"}", "application/json", "400"),
            (line, "text/plain", "415"), ("{\"signedPayload\":\"" + String(repeating: "a", count: 70_000) + "\"}", "application/json", "413"),
        ] {
            #expect(try Self.post(url, body, type: type).status == status, "\(body.prefix(40)) \(type)")
        }
        #expect(try Self.stored(path) == before + 1, "nothing stored by a refused notification")
        // Still serving: a second genuine notification goes in.
        let second = try chain.signedNotificationLine(
            Self.event(uuid: UUID().uuidString.lowercased(), transaction: "2000000100009003", signedDate: signedDate))
        #expect(try Self.post(url, second).status == "200")
        #expect(try Self.stored(path) == before + 2)
        let log = try String(contentsOfFile: serve.log, encoding: .utf8)
        #expect(log.contains("POST /notifications 200") && log.contains("POST /notifications 422"), "\(log)")
        #expect(serve.stop() == 0)
    }
}
