import Foundation
import StoreDeskCore
import StoreDeskTrust
import Testing

/// Notifications sent: the real `storedesk serve` POSTs every notification the store logs for an app with a
/// notification URL to a receiver built on Apple's Python library (`apple_library.py receive`: its
/// SignedDataVerifier over the store's root checks each `signedPayload`), retrying on Apple's schedule at the
/// app's StoreKit time rate ("one second is one day": the five retries within seconds). The attempts are in
/// the store, in `user show`, and in Get Notification History as Apple's library reads it.
@Suite(.serialized) struct NotificationSendTests {
    static let developer = ["--role", "developer", "--as", "wei.dev"]
    static let appleAppId = "6741000999"
    static let bundle = "com.example.longmai"
    static func sql(_ path: String, _ query: String) throws -> String { try RestoreCommandTests.sql(path, query) }
    static func quote(_ text: String) -> String { AppStoreServerAPITests.quote(text) }

    /// A monthly subscription of the LongMai catalogue (app 2001, Production), signed at `signed`.
    static func event(uuid: String, transaction: String, signed: Instant) -> SubscriptionEvent {
        SubscriptionEvent(
            notificationType: .subscribed, subtype: .initialBuy, notificationUUID: uuid, signedDate: signed,
            appAppleId: Int64(appleAppId), bundleId: bundle, environment: "Production", status: 1,
            transaction: TransactionInfo(
                transactionId: transaction, originalTransactionId: transaction, productId: CatalogCommandTests.monthly,
                bundleId: bundle, purchaseDate: signed, originalPurchaseDate: signed, expiresDate: signed.adding(.days(30))),
            renewal: RenewalInfo(originalTransactionId: transaction, productId: CatalogCommandTests.monthly, autoRenewStatus: 1))
    }

    /// `apple_library.py receive`, answering 500 to the first `failFirst` POSTs; stopped by SIGTERM.
    final class Receiver {
        let process = Process()
        let out: String
        private(set) var port = 0

        init(home: TemporaryHome, root: String, failFirst: Int) throws {
            out = home.path("received-" + UUID().uuidString + ".jsonl")
            let portFile = home.path("receiver-" + UUID().uuidString + ".port")
            process.executableURL = URL(fileURLWithPath: try AppleLibrary.python())
            process.arguments = [AppleLibrary.script, "receive", root, NotificationSendTests.bundle, NotificationSendTests.appleAppId, portFile, out, String(failFirst)]
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            let deadline = Date().addingTimeInterval(30)
            while Date() < deadline && process.isRunning {
                if let text = try? String(contentsOfFile: portFile, encoding: .utf8), let port = Int(text) {
                    self.port = port
                    return
                }
                usleep(50_000)
            }
        }

        /// Every POST received so far, in order.
        func lines() -> [[String: Any]] {
            let text = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
            return text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        }

        func stop() {
            if process.isRunning { kill(process.processIdentifier, SIGTERM) }
            let deadline = Date().addingTimeInterval(10)
            while process.isRunning && Date() < deadline { usleep(20_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }

        deinit { stop() }
    }

    static func waitUntil(_ seconds: Double, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return true }
            usleep(100_000)
        }
        return try condition()
    }

    @Test func theNotificationURLIsCheckedShownAndAudited() throws {
        let home = TemporaryHome()
        let store = try HardeningTests.demoStore(home)
        let set = try Binary.run(["apps", "set", "1001", "--notification-url", "https://game.example/apple", "--json", "--db", store] + Self.developer, home: home)
        #expect(set.status == 0, "\(set.stderr)")
        let shown = try Binary.run(["apps", "show", "1001", "--json", "--db", store], home: home)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any])
        #expect(object["notification_url"] as? String == "https://game.example/apple")
        #expect(try Binary.run(["apps", "show", "1001", "--db", store], home: home).stdout.contains("notifications https://game.example/apple"))
        #expect(try Self.sql(store, "SELECT detail FROM audit_log WHERE action = 'app.set' ORDER BY id DESC LIMIT 1")
            .contains("notification url none → https://game.example/apple"))
        // Sends start from the log's end: what the store held before is not sent.
        #expect(try Self.sql(store, "SELECT notification_after = (SELECT max(id) FROM subscription_event) FROM app WHERE id = '1001'") == "1")
        for bad in ["ftp://x", "http://", "https://user:pw@host/", "not a url"] {
            let refused = try Binary.run(["apps", "set", "1001", "--notification-url", bad, "--db", store] + Self.developer, home: home)
            #expect(refused.status != 0 && refused.stderr.split(separator: "\n").count == 1 && refused.stderr.contains("--notification-url"), "\(bad): \(refused.stderr)")
        }
        let cleared = try Binary.run(["apps", "set", "1001", "--notification-url", "", "--json", "--db", store] + Self.developer, home: home)
        #expect(cleared.status == 0 && cleared.stdout.contains("\"notification_url\" : null"), "\(cleared.stdout)")
    }

    @Test func serveSendsRetriesOnApplesScheduleAndRecordsEveryAttempt() throws {
        let home = TemporaryHome()
        let store = try HardeningTests.demoStore(home)
        let clock = NotificationClockTests.clock
        // App 2001 at "one second is one day" (StoreKit's time rate 6), a Production app with an Apple ID.
        let key = home.path("app.key")
        try Data("longmai-app-key-0001\n".utf8).write(to: URL(fileURLWithPath: key))
        let add = try Binary.run(
            ["apps", "add", "2001", "--name", "龙脉", "--bundle-id", Self.bundle, "--app-key-file", key, "--apple-app-id", Self.appleAppId,
             "--db", store] + Self.developer, home: home)
        try #require(add.status == 0, "\(add.stderr)")
        let file = try CatalogCommandTests.write(
            CatalogCommandTests.storeKitText().replacingOccurrences(of: "\"_timeRate\" : 13", with: "\"_timeRate\" : 6"), "LongMai.storekit", in: home)
        let imported = try Binary.run(["catalog", "import", file, "--app", "2001", "--db", store] + Self.developer, home: home)
        try #require(imported.status == 0, "\(imported.stderr)")

        // The store's root, for the receiver; the notifications come from another "App Store", trusted.
        let pem = home.path("root.pem"), der = home.path("root.der")
        try Data(try Binary.run(["signer", "root", "--pem", "--db", store], home: home).stdout.utf8).write(to: URL(fileURLWithPath: pem))
        try #require(try shell("openssl x509 -in \(Self.quote(pem)) -outform DER -out \(Self.quote(der))").status == 0)
        let apple = try SigningChain(name: "Send Test App Store")
        let appleRoot = home.path("apple-root.pem")
        try Data(try apple.rootPEM().utf8).write(to: URL(fileURLWithPath: appleRoot))
        try #require(try Binary.run(["trust", "add", appleRoot, "--db", store] + Self.developer, home: home).status == 0)

        let receiver = try Receiver(home: home, root: der, failFirst: 3)
        defer { receiver.stop() }
        try #require(receiver.port > 0, "the receiver did not start")
        let url = "http://127.0.0.1:\(receiver.port)/apple/notifications"
        try #require(try Binary.run(["apps", "set", "2001", "--notification-url", url, "--db", store] + Self.developer, home: home).status == 0)

        func importEvent(_ uuid: String, _ transaction: String) throws {
            let lines = home.path(uuid + ".jsonl")
            let line = try apple.signedNotificationLine(Self.event(uuid: uuid, transaction: transaction, signed: Instant(millis: clock - 86_400_000)))
            try Data((line + "\n").utf8).write(to: URL(fileURLWithPath: lines))
            let ran = try Binary.run(["events", "import", lines, "--db", store], home: home)
            try #require(ran.status == 0, "\(ran.stdout)\(ran.stderr)")
        }
        try importEvent("send-first", "2000000200000001")

        let serve = try NotificationClockTests.Serve(store: store, home: home)
        defer { serve.stop() }
        try #require(serve.port > 0, "serve did not listen: \((try? String(contentsOfFile: serve.output, encoding: .utf8)) ?? "")")

        // Three 500s, then a 200: four attempts, 1, 12 and 24 "hours" apart (41 ms, 0.5 s, 1 s).
        let delivered = try Self.waitUntil(30) {
            try Self.sql(store, "SELECT state FROM notification_delivery d JOIN subscription_event e ON e.id = d.event_id WHERE e.notification_uuid = 'send-first'") == "delivered"
        }
        #expect(delivered, "log: \((try? String(contentsOfFile: home.path("serve.log"), encoding: .utf8)) ?? "")")
        let posts = receiver.lines()
        #expect(posts.count == 4, "\(posts)")
        #expect(posts.allSatisfy { $0["ok"] as? Bool == true && $0["content_type"] as? String == "application/json" }, "\(posts)")
        #expect(posts.map { ($0["decoded"] as? [String: Any])?["notificationUUID"] as? String } == Array(repeating: "send-first", count: 4))
        #expect(posts.map { $0["answered"] as? Int } == [500, 500, 500, 200])
        let attempts = try Self.sql(
            store,
            "SELECT group_concat(a.attempt || ':' || a.result || ':' || coalesce(a.http_status, ''), ' ') FROM (SELECT * FROM notification_attempt ORDER BY attempt) a JOIN subscription_event e ON e.id = a.event_id WHERE e.notification_uuid = 'send-first'")
        #expect(attempts == "1:UNSUCCESSFUL_HTTP_RESPONSE_CODE:500 2:UNSUCCESSFUL_HTTP_RESPONSE_CODE:500 3:UNSUCCESSFUL_HTTP_RESPONSE_CODE:500 4:SUCCESS:200")
        let times = try Self.sql(store, "SELECT group_concat(at, ' ') FROM (SELECT at FROM notification_attempt ORDER BY attempt)")
            .split(separator: " ").compactMap { Int64($0) }
        try #require(times.count == 4)
        // At one day a second: an hour is 41 ms, 12 hours 500 ms, 24 hours 1 s (store time, never less).
        #expect(times[1] - times[0] >= 41 && times[2] - times[1] >= 500 && times[3] - times[2] >= 1000, "\(times)")

        // A receiver gone: six attempts refused, then failed after the last retry (1+12+24+48+72 hours ≈ 6.5 s).
        receiver.stop()
        try importEvent("send-second", "2000000200000002")
        let failed = try Self.waitUntil(40) {
            try Self.sql(store, "SELECT state FROM notification_delivery d JOIN subscription_event e ON e.id = d.event_id WHERE e.notification_uuid = 'send-second'") == "failed"
        }
        #expect(failed)
        #expect(try Self.sql(
            store, "SELECT count(*) || ' ' || group_concat(DISTINCT result) FROM notification_attempt a JOIN subscription_event e ON e.id = a.event_id WHERE e.notification_uuid = 'send-second'")
            == "6 SOCKET_ISSUE")

        // `user show`: the player's notifications with their send state.
        let owner = try Self.sql(store, "SELECT user_id FROM subscription WHERE original_transaction_id = '2000000200000001'")
        let shown = try Binary.run(["user", "show", owner, "--json", "--db", store], home: home)
        #expect(shown.status == 0, "\(shown.stderr)")
        let profile = try #require(try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any])
        let listed = try #require(profile["notifications"] as? [[String: Any]])
        let first = try #require(listed.first { $0["notification_uuid"] as? String == "send-first" })
        #expect(first["send_state"] as? String == "delivered" && (first["attempts"] as? [Any])?.count == 4)
        let text = try Binary.run(["user", "show", owner, "--db", store], home: home)
        #expect(text.stdout.contains("SUBSCRIBED/INITIAL_BUY  delivered after 4 attempts"), "\(text.stdout)")
        let secondOwner = try Self.sql(store, "SELECT user_id FROM subscription WHERE original_transaction_id = '2000000200000002'")
        let secondText = try Binary.run(["user", "show", secondOwner, "--db", store], home: home)
        #expect(secondText.stdout.contains("failed after 6 attempts, last SOCKET_ISSUE"), "\(secondText.stdout)")

        // Get Notification History through Apple's library: the attempts, and onlyFailures.
        let apiKey = try AppStoreServerAPITests.p8(home, "AuthKey_KEY2001.p8")
        let issuer = "57246542-96fe-1a63-e053-0824d011072a"
        try #require(try Binary.run(
            ["apps", "set", "2001", "--api-key-file", apiKey, "--key-id", "KEY2001", "--issuer-id", issuer, "--db", store] + Self.developer,
            home: home).status == 0)
        let calls: [[String: Any]] = [
            ["call": "notification_history", "request": ["startDate": 0, "endDate": 2_000_000_000_000]],
            ["call": "notification_history", "request": ["startDate": 0, "endDate": 2_000_000_000_000, "onlyFailures": true]],
        ].map { call in
            var call = call
            call["bundle"] = Self.bundle
            call["environment"] = "Production"
            return call
        }
        let input = home.path("calls.json"), output = home.path("answers.json"), errors = home.path("python.err")
        try JSONSerialization.data(withJSONObject: calls).write(to: URL(fileURLWithPath: input))
        let ran = try shell(
            [try AppleLibrary.python(), AppleLibrary.script, "api", "http://127.0.0.1:\(serve.port)", apiKey, "KEY2001", issuer, der, Self.appleAppId]
                .map(Self.quote).joined(separator: " ") + " < \(Self.quote(input)) > \(Self.quote(output)) 2> \(Self.quote(errors))")
        try #require(ran.status == 0, "\((try? String(contentsOfFile: errors, encoding: .utf8)) ?? "")")
        let answers = try JSONDecoder().decode([AppStoreServerAPITests.Answer].self, from: Data(contentsOf: URL(fileURLWithPath: output)))
        try #require(answers.count == 2 && answers.allSatisfy(\.ok), "\(answers)")
        for answer in answers {
            let verified = (answer.verified ?? []).allSatisfy { $0.ok }
            #expect(verified)
        }
        func items(_ index: Int) -> [JSONValue] {
            if case .array(let items)? = answers[index].response?["notificationHistory"] { return items }
            return []
        }
        func results(_ item: JSONValue) -> [String] {
            guard case .array(let attempts)? = item.object?["sendAttempts"] else { return [] }
            return attempts.compactMap { $0.object?["sendAttemptResult"]?.string }
        }
        let all = items(0)
        #expect(all.count == 2)
        #expect(all.map(results) == [
            ["UNSUCCESSFUL_HTTP_RESPONSE_CODE", "UNSUCCESSFUL_HTTP_RESPONSE_CODE", "UNSUCCESSFUL_HTTP_RESPONSE_CODE", "SUCCESS"],
            Array(repeating: "SOCKET_ISSUE", count: 6),
        ], "\(all)")
        #expect(all.allSatisfy { item in
            guard case .array(let attempts)? = item.object?["sendAttempts"] else { return false }
            return attempts.allSatisfy { ($0.object?["attemptDate"]?.number ?? 0) > 0 }
        })
        let failures = items(1)
        #expect(failures.map(results) == [Array(repeating: "SOCKET_ISSUE", count: 6)], "\(failures)")
        #expect(serve.stop() == 0)
    }

    /// Request a Test Notification: serve POSTs the TEST notification to the app's URL, once, as Apple does,
    /// and Get Test Notification Status shows the attempt; Apple's library asks, its verifier receives.
    @Test func aTestNotificationIsSentToTheURLAndItsAttemptShown() throws {
        let home = TemporaryHome()
        let store = try HardeningTests.demoStore(home)
        let key = home.path("app.key")
        try Data("longmai-app-key-0001\n".utf8).write(to: URL(fileURLWithPath: key))
        let apiKey = try AppStoreServerAPITests.p8(home, "AuthKey_KEY2001.p8")
        let issuer = "57246542-96fe-1a63-e053-0824d011072a"
        for arguments in [
            ["apps", "add", "2001", "--name", "龙脉", "--bundle-id", Self.bundle, "--app-key-file", key, "--apple-app-id", Self.appleAppId],
            ["apps", "set", "2001", "--api-key-file", apiKey, "--key-id", "KEY2001", "--issuer-id", issuer],
        ] {
            let ran = try Binary.run(arguments + ["--db", store] + Self.developer, home: home)
            try #require(ran.status == 0, "\(arguments): \(ran.stderr)")
        }
        let pem = home.path("root.pem"), der = home.path("root.der")
        try Data(try Binary.run(["signer", "root", "--pem", "--db", store], home: home).stdout.utf8).write(to: URL(fileURLWithPath: pem))
        try #require(try shell("openssl x509 -in \(Self.quote(pem)) -outform DER -out \(Self.quote(der))").status == 0)
        let receiver = try Receiver(home: home, root: der, failFirst: 0)
        defer { receiver.stop() }
        try #require(receiver.port > 0, "the receiver did not start")
        let url = "http://127.0.0.1:\(receiver.port)/apple/notifications"
        try #require(try Binary.run(["apps", "set", "2001", "--notification-url", url, "--db", store] + Self.developer, home: home).status == 0)
        let serve = try NotificationClockTests.Serve(store: store, home: home)
        defer { serve.stop() }
        try #require(serve.port > 0, "serve did not listen")

        func askForATest() throws -> AppStoreServerAPITests.Answer {
            // App 2001 serves both environments: its TEST notification says Sandbox, as Apple's sandbox would.
            let call: [String: Any] = ["call": "test_notification", "bundle": Self.bundle, "environment": "Sandbox", "wait_seconds": 20]
            let input = home.path("calls.json"), output = home.path("answers.json"), errors = home.path("python.err")
            try JSONSerialization.data(withJSONObject: [call]).write(to: URL(fileURLWithPath: input))
            let ran = try shell(
                [try AppleLibrary.python(), AppleLibrary.script, "api", "http://127.0.0.1:\(serve.port)", apiKey, "KEY2001", issuer, der, Self.appleAppId]
                    .map(Self.quote).joined(separator: " ") + " < \(Self.quote(input)) > \(Self.quote(output)) 2> \(Self.quote(errors))")
            try #require(ran.status == 0, "\((try? String(contentsOfFile: errors, encoding: .utf8)) ?? "")")
            let answers = try JSONDecoder().decode([AppStoreServerAPITests.Answer].self, from: Data(contentsOf: URL(fileURLWithPath: output)))
            return try #require(answers.first)
        }
        let answer = try askForATest()
        #expect(answer.ok && (answer.verified ?? []).map(\.ok) == [true], "\(answer)")
        guard case .array(let attempts)? = answer.response?["sendAttempts"] else {
            Issue.record("no sendAttempts: \(answer)")
            return
        }
        #expect(attempts.compactMap { $0.object?["sendAttemptResult"]?.string } == ["SUCCESS"])
        #expect(attempts.allSatisfy { ($0.object?["attemptDate"]?.number ?? 0) > 0 })
        // The receiver got it, verified by Apple's verifier: a TEST notification, the one the status signs.
        let posts = receiver.lines()
        #expect(posts.count == 1 && posts.first?["ok"] as? Bool == true, "\(posts)")
        #expect((posts.first?["decoded"] as? [String: Any])?["notificationType"] as? String == "TEST")
        let status = try #require(answer.verified?.first?.decoded?["notificationUUID"]?.string)
        #expect((posts.first?["decoded"] as? [String: Any])?["notificationUUID"] as? String == status)
        // A receiver gone: the one attempt is SOCKET_ISSUE, and no retry follows.
        receiver.stop()
        let refused = try askForATest()
        guard case .array(let refusedAttempts)? = refused.response?["sendAttempts"] else {
            Issue.record("no sendAttempts: \(refused)")
            return
        }
        #expect(refusedAttempts.compactMap { $0.object?["sendAttemptResult"]?.string } == ["SOCKET_ISSUE"])
        #expect(serve.stop() == 0)
    }
}
