import Foundation
import StoreDeskCore
import Testing

/// Apple's half, locally: the store's own signing chain and an app's API key on the command line, then
/// the real `storedesk serve` driven by Apple's own App Store Server Library for Python (nothing changed
/// but its base URL), every signed transaction, renewal info and notification it gets back verified by
/// the library's `SignedDataVerifier` over the store's root.
@Suite(.serialized) struct AppStoreServerAPITests {
    static func sql(_ path: String, _ query: String) throws -> String { try RestoreCommandTests.sql(path, query) }
    static func sqlInt(_ path: String, _ query: String) -> Int { Int((try? sql(path, query)) ?? "") ?? -1 }
    static func quote(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    /// A new P-256 private key as Apple's `.p8` (PKCS#8 PEM), made by OpenSSL.
    static func p8(_ home: TemporaryHome, _ name: String) throws -> String {
        let path = home.path(name)
        let made = try shell("openssl ecparam -name prime256v1 -genkey -noout | openssl pkcs8 -topk8 -nocrypt -out \(quote(path))")
        try #require(made.status == 0, "\(made.output)")
        return path
    }

    static let developer = ["--role", "developer"]

    @Test func theSignerAndAPIKeysAreKeptInTheStoreAndTheirSecretsNeverShown() throws {
        let home = TemporaryHome()
        let store = try HardeningTests.demoStore(home)
        // The demo store gets a chain of its own on first use; the root is the same every time after.
        let first = try Binary.run(["signer", "root", "--pem", "--db", store], home: home)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.hasPrefix("-----BEGIN CERTIFICATE-----\n") && first.stdout.hasSuffix("-----END CERTIFICATE-----\n"))
        let again = try Binary.run(["signer", "root", "--pem", "--db", store], home: home)
        #expect(again.stdout == first.stdout)
        let json = try Binary.run(["signer", "root", "--json", "--db", store], home: home)
        #expect(json.status == 0 && json.stdout.contains("\"sha256\"") && json.stdout.contains("\"created\" : false"))
        let text = try Binary.run(["signer", "root", "--db", store], home: home)
        #expect(text.stdout.contains("StoreDesk Local Root CA") && text.stdout.contains("SHA-256"))
        for output in [first, again, json, text] { #expect(!(output.stdout + output.stderr).contains("PRIVATE")) }
        #expect(try Self.sql(store, "SELECT count(*) || ' ' || length(root_key) FROM signer").hasPrefix("1 "))
        #expect(try Self.sql(store, "SELECT action FROM audit_log WHERE action LIKE 'signer.%'") == "signer.create")

        // The root is one OpenSSL's strict checks take as a CA.
        let pem = home.path("root.pem")
        try Data(first.stdout.utf8).write(to: URL(fileURLWithPath: pem))
        #expect(try shell("openssl x509 -in \(Self.quote(pem)) -noout -text | grep -c 'Subject Key Identifier'").output.hasPrefix("1"))

        // `signer create` replaces it only with --force, and only for a developer; a refusal leaves the file.
        let before = FileManager.default.contents(atPath: store)
        let refused = try Binary.run(["signer", "create", "--db", store] + Self.developer, home: home)
        #expect(refused.status != 0 && refused.stderr.split(separator: "\n").count == 1 && refused.stderr.contains("--force"))
        let notDeveloper = try Binary.run(["signer", "create", "--force", "--db", store, "--role", "support"], home: home)
        #expect(notDeveloper.status != 0 && notDeveloper.stderr.split(separator: "\n").count == 1)
        #expect(FileManager.default.contents(atPath: store) == before)
        let forced = try Binary.run(["signer", "create", "--force", "--db", store] + Self.developer, home: home)
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(try Binary.run(["signer", "root", "--pem", "--db", store], home: home).stdout != first.stdout)

        // `find` takes the order id on a player's Apple receipt to its transaction.
        let order = AppleOrderId.of(transactionId: "2000000100000001")
        let found = try Binary.run(["find", order, "--json", "--db", store], home: home)
        #expect(found.status == 0 && found.stdout.contains("\"apple_order_id\"") && found.stdout.contains("2000000100000001"), "\(found.stdout)")
        #expect(found.stdout.contains("\"\(order)\""))

        // An API key: the private key given, its public half kept (91 bytes of SubjectPublicKeyInfo).
        let key = try Self.p8(home, "AuthKey_KEY1001.p8")
        let set = try Binary.run(
            ["apps", "set", "1001", "--api-key-file", key, "--key-id", "KEY1001", "--issuer-id", "57246542-96fe-1a63-e053-0824d011072a", "--db", store]
                + Self.developer, home: home)
        #expect(set.status == 0, "\(set.stderr)")
        #expect(set.stdout.contains("API key KEY1001") && set.stdout.contains("public key kept") && !set.stdout.contains("PRIVATE"))
        #expect(try Self.sql(store, "SELECT app_id || ' ' || key_id || ' ' || length(public_key) FROM app_api_key") == "1001 KEY1001 91")
        let keyText = try String(contentsOfFile: key, encoding: .utf8)
        let body = keyText.split(separator: "\n").dropFirst().first.map(String.init) ?? "?"
        #expect(try !Self.sql(store, "SELECT hex(public_key) FROM app_api_key").isEmpty)
        #expect(!set.stdout.contains(body) && !set.stderr.contains(body))

        // Bad input: one line, a non-zero exit, the store untouched.
        let unchanged = FileManager.default.contents(atPath: store)
        let notAKey = home.path("not-a-key.pem")
        try Data("hello\n".utf8).write(to: URL(fileURLWithPath: notAKey))
        for arguments in [
            ["--api-key-file", home.path("missing.p8"), "--key-id", "K", "--issuer-id", "I"],
            ["--api-key-file", notAKey, "--key-id", "K", "--issuer-id", "I"],
            ["--api-key-file", key, "--key-id", "K"],
            ["--api-key-file", key, "--key-id", "K 1", "--issuer-id", "I"],
        ] {
            let bad = try Binary.run(["apps", "set", "1001", "--db", store] + arguments + Self.developer, home: home)
            #expect(bad.status != 0 && bad.stderr.split(separator: "\n").count == 1, "\(arguments): \(bad.stderr)")
            #expect(!bad.stderr.contains(body))
        }
        let operatorSet = try Binary.run(["apps", "set", "1001", "--api-key-file", key, "--key-id", "K", "--issuer-id", "I", "--db", store, "--role", "operator"], home: home)
        #expect(operatorSet.status != 0)
        #expect(FileManager.default.contents(atPath: store) == unchanged)
    }

    /// What Apple's library answered, call by call.
    struct Answer: Decodable {
        struct Verified: Decodable {
            var kind: String
            var ok: Bool
            var decoded: [String: JSONValue]?
            var status: String?
        }

        var ok: Bool
        var response: [String: JSONValue]?
        var pages: Int?
        var verified: [Verified]?
        var httpStatus: Int?
        var errorCode: Int?
    }

    @Test func applesLibraryCallsEveryEndpointAndVerifiesWhatComesBack() throws {
        let home = TemporaryHome()
        let store = try HardeningTests.demoStore(home)
        // Thirty more purchases for one player, so the history runs over three pages of 20.
        var inserts: [String] = []
        for index in 1...30 {
            inserts.append(
                "INSERT INTO store_transaction (id, original_transaction_id, user_id, app_id, product_id, quantity, state, failure_reason, "
                    + "environment, sid, role_id, app_order_id, ext, purchase_date, expires_date, revocation_date, revocation_reason, finished) VALUES ('20000009000000\(String(format: "%02d", index))', '20000009000000\(String(format: "%02d", index))', "
                    + "'10000001', '1001', 'com.storedesk.starvoyage.gems.300', 1, 'purchased', NULL, 'Production', 's1', 'r10000001-1', "
                    + "'G-extra-\(index)', '', \(1_790_000_000_000 + Int64(index) * 3_600_000), NULL, NULL, NULL, 1);")
        }
        let inserted = try shell("sqlite3 \(Self.quote(store)) \(Self.quote(inserts.joined(separator: " ")))")
        try #require(inserted.status == 0, "\(inserted.output)")
        let (key, issuer, der) = try Self.apiClientSetup(store, home)

        let serve = try NotificationClockTests.Serve(store: store, home: home)
        defer { serve.stop() }
        try #require(serve.port > 0, "serve did not listen: \((try? String(contentsOfFile: serve.output, encoding: .utf8)) ?? "")")

        let visible = Int(try Self.sql(
            store,
            "SELECT count(*) FROM store_transaction WHERE user_id = '10000001' AND app_id = '1001' AND state IN ('purchased', 'restored') AND environment = 'Production'"
        )) ?? 0
        let token = "7e3fb20b-4cdb-47cc-936d-99d65f608138"
        let bundle = "com.storedesk.starvoyage"
        let order = AppleOrderId.of(transactionId: "2000000100000001")
        let calls: [[String: Any]] = [
            ["call": "transaction_info", "id": "2000000100000001"],
            ["call": "history", "id": "2000000100000030", "all_pages": true],
            ["call": "history", "id": "2000000100000030", "request": ["productTypes": ["CONSUMABLE"], "sort": "DESCENDING"]],
            ["call": "statuses", "id": "2000000100000030"],
            ["call": "statuses", "id": "2000000100000030", "status": [2, 5]],
            ["call": "lookup", "id": order],
            ["call": "lookup", "id": "MK5TTTVWJH"],
            ["call": "refunds", "id": "2000000100000078"],
            ["call": "test_notification", "environment": "Sandbox"],
            ["call": "set_token", "id": "2000000100000030", "token_value": token],
            ["call": "transaction_info", "id": "2000000100000030"],
            // Extend a Subscription Renewal Date: twice in a year, the same request again changes nothing.
            ["call": "extend", "id": "2000000100000030", "days": 30, "reason": 1, "request_id": "ticket-1"],
            ["call": "extend", "id": "2000000100000030", "days": 30, "reason": 1, "request_id": "ticket-1"],
            ["call": "extend", "id": "2000000100000030", "days": 10, "reason": 3, "request_id": "ticket-2"],
            ["call": "extend", "id": "2000000100000030", "days": 5, "reason": 2, "request_id": "ticket-3"],
            ["call": "extend", "id": "2000000100000030", "days": 91, "reason": 1, "request_id": "ticket-4"],
            ["call": "extend", "id": "2000000100000030", "days": 5, "reason": 4, "request_id": "ticket-5"],
            ["call": "extend", "id": "2000000100000078", "days": 5, "reason": 1, "request_id": "ticket-6"],
            // The chain's latest transaction carries the new expiry.
            ["call": "transaction_info", "id": "2000000100000084"],
            // Refusals: Apple's statuses and numbers.
            ["call": "transaction_info", "id": "2000000100000001", "token": "expired"],
            ["call": "transaction_info", "id": "2000000100000001", "token": "other_key"],
            ["call": "transaction_info", "id": "2000000100000001", "bundle": "com.storedesk.pocketgarden"],
            ["call": "transaction_info", "id": "2000000199999999"],
            ["call": "transaction_info", "id": "bad!id"],
            ["call": "transaction_info", "id": "2000000100000002"],
            ["call": "set_token", "id": "2000000100000030", "token_value": "not-a-uuid"],
            ["call": "raw_put", "path": "/inApps/v1/transactions/2000000100000030/appAccountToken", "body": "{not json"],
            ["call": "raw_put", "path": "/inApps/v1/subscriptions/extend/2000000100000030", "body": "[1, 2"],
            // Get Notification History: the app's notifications the store holds, signed again by its chain.
            ["call": "notification_history", "request": ["startDate": 0, "endDate": 2_000_000_000_000]],
            ["call": "notification_history", "request": ["startDate": 0, "endDate": 2_000_000_000_000, "notificationType": "DID_RENEW"]],
            ["call": "notification_history", "request": ["startDate": 0, "endDate": 2_000_000_000_000, "onlyFailures": true]],
            ["call": "notification_history", "request": ["startDate": 5, "endDate": 4]],
            ["call": "notification_history",
             "request": ["startDate": 0, "endDate": 2_000_000_000_000, "notificationType": "DID_RENEW", "transactionId": "2000000100000030"]],
        ].map { call in
            var call = call
            call["bundle"] = call["bundle"] ?? bundle
            call["environment"] = call["environment"] ?? "Production"
            return call
        }
        let input = home.path("calls.json"), output = home.path("answers.json"), errors = home.path("python.err")
        try JSONSerialization.data(withJSONObject: calls).write(to: URL(fileURLWithPath: input))
        let python = try AppleLibrary.python()
        let ran = try shell(
            [python, AppleLibrary.script, "api", "http://127.0.0.1:\(serve.port)", key, "KEY1001", issuer, der, "6741000101"].map(Self.quote)
                .joined(separator: " ") + " < \(Self.quote(input)) > \(Self.quote(output)) 2> \(Self.quote(errors))")
        try #require(ran.status == 0, "\((try? String(contentsOfFile: errors, encoding: .utf8)) ?? "")")
        let answers = try JSONDecoder().decode([Answer].self, from: Data(contentsOf: URL(fileURLWithPath: output)))
        try #require(answers.count == calls.count)

        // Every signed thing that came back verifies with Apple's verifier over the store's root.
        for (index, answer) in answers.enumerated() where answer.ok {
            for item in answer.verified ?? [] { #expect(item.ok, "call \(index) \(item.kind): \(item.status ?? "")") }
        }
        func decoded(_ index: Int) -> [[String: JSONValue]] { answers[index].verified?.compactMap(\.decoded) ?? [] }

        #expect(answers[0].ok && decoded(0).first?["transactionId"] == .string("2000000100000001"))
        #expect(decoded(0).first?["bundleId"] == .string(bundle) && decoded(0).first?["type"] == .string("Consumable"))

        #expect(answers[1].ok && answers[1].pages == 3, "\(answers[1].pages ?? 0) pages")
        let history = decoded(1).compactMap { $0["transactionId"]?.string }
        #expect(history.count == visible && Set(history).count == visible && visible > 40, "\(history.count) of \(visible)")
        let dates = decoded(1).compactMap { $0["purchaseDate"]?.number }
        #expect(dates == dates.sorted())

        #expect(answers[2].ok && !decoded(2).isEmpty && decoded(2).allSatisfy { $0["type"] == .string("Consumable") })
        let descending = decoded(2).compactMap { $0["purchaseDate"]?.number }
        #expect(descending == descending.sorted(by: >))

        #expect(answers[3].ok && (answers[3].verified ?? []).map(\.kind).contains("renewal"))
        #expect(decoded(3).contains { $0["originalTransactionId"] == .string("2000000100000030") && $0["autoRenewStatus"] != nil })
        #expect(answers[4].ok)

        #expect(answers[5].ok && answers[5].response?["status"] == .number(0) && decoded(5).first?["transactionId"] == .string("2000000100000001"))
        #expect(answers[6].ok && answers[6].response?["status"] == .number(1) && decoded(6).isEmpty)

        #expect(answers[7].ok && decoded(7).contains { $0["transactionId"] == .string("2000000100000078") && $0["revocationDate"] != nil })

        #expect(answers[8].ok && decoded(8).first?["notificationType"] == .string("TEST"))

        #expect(answers[9].ok, "\(answers[9])")
        #expect(decoded(10).first?["appAccountToken"] == .string(token))

        // Extensions: 2026-12-03T10:00Z + 30 days, the same again, + 10 more; then Apple's refusals.
        let expiry = 1_796_292_000_000.0, day = 86_400_000.0
        #expect(answers[11].ok && answers[11].response?["effectiveDate"] == .number(expiry + 30 * day), "\(answers[11])")
        #expect(answers[11].response?["success"] == .bool(true) && answers[11].response?["originalTransactionId"] == .string("2000000100000030"))
        #expect(answers[12].response?["effectiveDate"] == .number(expiry + 30 * day))
        #expect(answers[13].response?["effectiveDate"] == .number(expiry + 40 * day))
        for (index, code) in [(14, 4_030_005), (15, 4_000_009), (16, 4_000_010), (17, 4_030_004)] {
            #expect(!answers[index].ok && answers[index].errorCode == code, "call \(index): \(answers[index])")
        }
        #expect(answers[14].httpStatus == 403 && answers[15].httpStatus == 400 && answers[17].httpStatus == 403)
        #expect(decoded(18).first?["expiresDate"] == .number(expiry + 40 * day))
        #expect(try Self.sql(store, "SELECT count(*) FROM apple_renewal_extension") == "2")

        for (index, status, code) in [(19, 401, nil), (20, 401, nil), (21, 401, nil), (22, 404, 4_040_010), (23, 400, 4_000_006), (24, 404, 4_040_010), (25, 400, 4_000_183),
            (26, 400, 4_000_000), (27, 400, 4_000_000),
        ] {
            #expect(!answers[index].ok && answers[index].httpStatus == status && answers[index].errorCode == code, "call \(index): \(answers[index])")
        }
        // Apple's notifications only: the store's record of a chain before its first (written by the
        // extension above) is never in Get Notification History.
        let notifications = Self.sqlInt(
            store,
            "SELECT count(*) FROM subscription_event e JOIN subscription s USING (original_transaction_id) WHERE s.app_id = '1001' AND e.source <> 'store record'")
        let renewals = Self.sqlInt(
            store,
            "SELECT count(*) FROM subscription_event e JOIN subscription s USING (original_transaction_id) WHERE s.app_id = '1001' AND notification_type = 'DID_RENEW' AND e.source <> 'store record'")
        #expect(Self.sqlInt(store, "SELECT count(*) FROM subscription_event WHERE source = 'store record'") > 0)
        #expect(answers[28].ok && decoded(28).count == notifications && notifications > 0, "\(decoded(28).count) of \(notifications)")
        #expect(decoded(28).allSatisfy { $0["data"]?.object?["bundleId"] == .string(bundle) })
        #expect(answers[29].ok && decoded(29).count == renewals && decoded(29).allSatisfy { $0["notificationType"] == .string("DID_RENEW") })
        #expect(answers[30].ok && decoded(30).isEmpty)
        #expect(!answers[31].ok && answers[31].httpStatus == 400 && answers[31].errorCode == 4_000_013)
        #expect(!answers[32].ok && answers[32].httpStatus == 400 && answers[32].errorCode == 4_000_019)

        // What was refused wrote nothing: one token set, two extensions, each with its audit line.
        #expect(try Self.sql(store, "SELECT group_concat(action, ' ') FROM (SELECT action FROM audit_log WHERE action LIKE 'apple.%' ORDER BY id)")
            == "apple.app_account_token.set apple.renewal.extend apple.renewal.extend")
        #expect(serve.stop() == 0)
        let log = (try? String(contentsOfFile: home.path("serve.log"), encoding: .utf8)) ?? ""
        #expect(log.contains("/inApps/v1/transactions/2000000100000001") && !log.contains("Bearer"))
    }
}

extension AppStoreServerAPITests {
    /// App 1001's API key (KEY1001, registered by a developer) and the store's root as DER, for Apple's library.
    static func apiClientSetup(_ store: String, _ home: TemporaryHome) throws -> (key: String, issuer: String, der: String) {
        let key = try p8(home, "AuthKey_KEY1001.p8")
        let issuer = "57246542-96fe-1a63-e053-0824d011072a"
        let set = try Binary.run(
            ["apps", "set", "1001", "--api-key-file", key, "--key-id", "KEY1001", "--issuer-id", issuer, "--db", store] + developer, home: home)
        try #require(set.status == 0, "\(set.stderr)")
        let pem = home.path("root.pem"), der = home.path("root.der")
        try Data(try Binary.run(["signer", "root", "--pem", "--db", store], home: home).stdout.utf8).write(to: URL(fileURLWithPath: pem))
        try #require(try shell("openssl x509 -in \(quote(pem)) -outform DER -out \(quote(der))").status == 0)
        return (key, issuer, der)
    }

    /// Runs Apple's library on `calls` against a server on `port`, with the app's key and the store's root.
    static func library(_ calls: [[String: Any]], port: Int, key: String, issuer: String, der: String, home: TemporaryHome) throws -> [Answer] {
        let calls = calls.map { call in
            var call = call
            call["bundle"] = call["bundle"] ?? "com.storedesk.starvoyage"
            call["environment"] = call["environment"] ?? "Production"
            return call
        }
        let name = UUID().uuidString
        let input = home.path("calls-\(name).json"), output = home.path("answers-\(name).json"), errors = home.path("python-\(name).err")
        try JSONSerialization.data(withJSONObject: calls).write(to: URL(fileURLWithPath: input))
        let ran = try shell(
            [try AppleLibrary.python(), AppleLibrary.script, "api", "http://127.0.0.1:\(port)", key, "KEY1001", issuer, der, "6741000101"].map(quote)
                .joined(separator: " ") + " < \(quote(input)) > \(quote(output)) 2> \(quote(errors))")
        try #require(ran.status == 0, "\((try? String(contentsOfFile: errors, encoding: .utf8)) ?? "")")
        let answers = try JSONDecoder().decode([Answer].self, from: Data(contentsOf: URL(fileURLWithPath: output)))
        try #require(answers.count == calls.count)
        return answers
    }

    /// The support desk's endpoints: Send Consumption Information answering the desk's CONSUMPTION_REQUEST,
    /// the mass extension and its status, Get App Transaction Info verified by Apple's verifier, Apple's
    /// refusals for bad bodies, and the rate limit's 429.
    @Test func applesLibraryCallsTheSupportEndpoints() throws {
        let home = TemporaryHome()
        let store = try HardeningTests.demoStore(home)
        let (key, issuer, der) = try Self.apiClientSetup(store, home)
        // The desk raises a consumption request for a consumable; the game server answers it through the API.
        let raised = try Binary.run(
            ["support", "consumption", "request", "2000000100000001", "--reason", "UNINTENDED_PURCHASE", "--db", store, "--role", "support"], home: home)
        try #require(raised.status == 0, "\(raised.stderr)")
        let entitled = Self.sqlInt(
            store, "SELECT count(*) FROM subscription WHERE app_id = '1001' AND product_id = 'com.storedesk.starvoyage.vip.monthly' AND state IN ('active', 'grace_period')")

        let serve = try NotificationClockTests.Serve(store: store, home: home)
        defer { serve.stop() }
        try #require(serve.port > 0, "serve did not listen: \((try? String(contentsOfFile: serve.output, encoding: .utf8)) ?? "")")
        let consumption: [String: Any] = [
            "customerConsented": true, "consumptionStatus": 2, "platform": 1, "sampleContentProvided": false, "deliveryStatus": 0,
            "appAccountToken": "", "accountTenure": 3, "playTime": 4, "lifetimeDollarsRefunded": 0, "lifetimeDollarsPurchased": 5, "userStatus": 1,
        ]
        func consumptionWith(_ field: String, _ value: Any) -> [String: Any] {
            var changed = consumption
            changed[field] = value
            return changed
        }
        let answers = try Self.library(
            [
                ["call": "consumption", "id": "2000000100000001", "request": consumption],
                ["call": "consumption", "id": "2000000100000001", "request": consumption],
                ["call": "consumption", "id": "2000000100000001", "request": consumptionWith("customerConsented", false)],
                ["call": "consumption", "id": "2000000100000001", "request": consumptionWith("deliveryStatus", 9)],
                ["call": "consumption", "id": "2000000100000001", "request": consumptionWith("platform", 7)],
                ["call": "consumption", "id": "2000000100000030", "request": consumption],
                ["call": "consumption", "id": "2000000199999999", "request": consumption],
                ["call": "mass_extend", "product": "com.storedesk.starvoyage.vip.monthly", "days": 7, "reason": 3, "request_id": "outage-7"],
                ["call": "mass_status", "product": "com.storedesk.starvoyage.vip.monthly", "request_id": "outage-7"],
                ["call": "mass_status", "product": "com.storedesk.starvoyage.vip.monthly", "request_id": "never-sent"],
                ["call": "mass_extend", "product": "com.storedesk.pocketgarden.plus.monthly", "days": 7, "reason": 3, "request_id": "other-app"],
                ["call": "mass_extend", "product": "com.storedesk.starvoyage.vip.monthly", "days": 91, "reason": 3, "request_id": "too-long"],
                ["call": "app_transaction", "id": "2000000100000030"],
                ["call": "app_transaction", "id": "2000000199999999"],
                ["call": "app_transaction", "id": "bad!id"],
            ], port: serve.port, key: key, issuer: issuer, der: der, home: home)
        #expect(answers[0].ok, "\(answers[0])")
        for (index, status, code) in [
            (1, 400, 4_000_000), (2, 400, 4_000_035), (3, 400, 4_000_036), (4, 400, 4_000_039), (5, 400, 4_000_043), (6, 404, 4_040_010),
            (9, 404, 4_040_009), (10, 400, 4_000_023), (11, 400, 4_000_009), (13, 404, 4_040_010), (14, 400, 4_000_006),
        ] {
            #expect(!answers[index].ok && answers[index].httpStatus == status && answers[index].errorCode == code, "call \(index): \(answers[index])")
        }
        #expect(try Self.sql(store, "SELECT answered_by || ' ' || json_extract(answer, '$.playTime') FROM apple_consumption_request") == "api key KEY1001 4")
        #expect(answers[7].ok && answers[7].response?["requestIdentifier"] == .string("outage-7"), "\(answers[7])")
        #expect(answers[7].response?["complete"] == .bool(true) && answers[7].response?["succeededCount"] == .number(Double(entitled)))
        #expect(answers[8].ok && answers[8].response?["succeededCount"] == .number(Double(entitled)) && entitled > 0)
        #expect(Self.sqlInt(store, "SELECT count(*) FROM apple_renewal_extension WHERE request_identifier = 'outage-7'") == entitled)
        #expect(Self.sqlInt(store, "SELECT count(*) FROM subscription_event WHERE notification_type = 'RENEWAL_EXTENDED' AND source = 'support'") == entitled)
        let app = try #require(answers[12].verified?.first)
        #expect(answers[12].ok && app.kind == "app_transaction" && app.ok, "\(answers[12])")
        #expect(app.decoded?["bundleId"] == .string("com.storedesk.starvoyage") && app.decoded?["receiptType"] == .string("Production"))
        #expect(app.decoded?["appAppleId"] == .number(6_741_000_101) && app.decoded?["originalPurchaseDate"] != nil)
        #expect(serve.stop() == 0)
        #expect(try Self.sql(store, "SELECT count(*) FROM audit_log WHERE action = 'apple.consumption.answer'") == "1")
        let check = try Binary.run(["check", "--db", store], home: home)
        #expect(check.status == 0, "\(check.stdout)")

        // Past the key's token bucket: 429 with errorCode 4290000, and the next second it answers again.
        let limited = try NotificationClockTests.Serve(store: store, home: home, extra: ["--api-rate-limit", "2"])
        defer { limited.stop() }
        try #require(limited.port > 0)
        let burst = try Self.library(
            [["call": "burst", "id": "2000000100000001", "times": 10]], port: limited.port, key: key, issuer: issuer, der: der, home: home)
        #expect(!burst[0].ok && burst[0].httpStatus == 429 && burst[0].errorCode == 4_290_000, "\(burst[0])")
        usleep(1_100_000)
        let after = try Self.library([["call": "transaction_info", "id": "2000000100000001"]], port: limited.port, key: key, issuer: issuer, der: der, home: home)
        #expect(after[0].ok, "\(after[0])")
        #expect(limited.stop() == 0)
    }
}

extension AppStoreServerAPITests {
    /// A mass extension's status is the store's: a serve started again on the store answers Apple's
    /// library's status request as the serve that ran it did, and a repeat of the request extends nothing.
    @Test func aMassExtensionsStatusSurvivesAServeRestart() throws {
        let home = TemporaryHome()
        let store = try HardeningTests.demoStore(home)
        let (key, issuer, der) = try Self.apiClientSetup(store, home)
        let product = "com.storedesk.starvoyage.vip.monthly"
        let first = try NotificationClockTests.Serve(store: store, home: home)
        defer { first.stop() }
        try #require(first.port > 0, "serve did not listen: \((try? String(contentsOfFile: first.output, encoding: .utf8)) ?? "")")
        let ran = try Self.library(
            [["call": "mass_extend", "product": product, "days": 5, "reason": 1, "request_id": "restart-5"]],
            port: first.port, key: key, issuer: issuer, der: der, home: home)
        #expect(ran[0].ok, "\(ran[0])")
        #expect(first.stop() == 0)
        let extended = Self.sqlInt(store, "SELECT count(*) FROM apple_renewal_extension WHERE request_identifier = 'restart-5'")
        #expect(extended > 0)

        let again = try NotificationClockTests.Serve(store: store, home: home)
        defer { again.stop() }
        try #require(again.port > 0)
        let answers = try Self.library(
            [
                ["call": "mass_status", "product": product, "request_id": "restart-5"],
                ["call": "mass_extend", "product": product, "days": 5, "reason": 1, "request_id": "restart-5"],
                ["call": "mass_status", "product": product, "request_id": "restart-5"],
                ["call": "mass_status", "product": product, "request_id": "never-sent"],
            ], port: again.port, key: key, issuer: issuer, der: der, home: home)
        for index in [0, 2] {
            #expect(answers[index].ok && answers[index].response?["requestIdentifier"] == .string("restart-5"), "\(answers[index])")
            #expect(answers[index].response?["complete"] == .bool(true) && answers[index].response?["succeededCount"] == .number(Double(extended)))
            #expect(answers[index].response?["failedCount"] == .number(0))
        }
        #expect(answers[1].ok, "\(answers[1])")
        #expect(!answers[3].ok && answers[3].httpStatus == 404 && answers[3].errorCode == 4_040_009, "\(answers[3])")
        #expect(Self.sqlInt(store, "SELECT count(*) FROM apple_renewal_extension WHERE request_identifier = 'restart-5'") == extended)
        #expect(Self.sqlInt(store, "SELECT count(*) FROM apple_mass_extension WHERE request_identifier = 'restart-5' AND requested_by = 'api key KEY1001'") == 1)
        #expect(again.stop() == 0)
        let check = try Binary.run(["check", "--db", store], home: home)
        #expect(check.status == 0, "\(check.stdout)")
    }
}

/// A JSON value as Apple's library printed it.
enum JSONValue: Decodable, Equatable, CustomStringConvertible {
    case string(String), number(Double), bool(Bool), null, array([JSONValue]), object([String: JSONValue])

    init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null } else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Double.self) { self = .number(value) }
        else if let value = try? container.decode(String.self) { self = .string(value) }
        else if let value = try? container.decode([JSONValue].self) { self = .array(value) }
        else { self = .object(try container.decode([String: JSONValue].self)) }
    }

    var string: String? { if case .string(let value) = self { value } else { nil } }
    var number: Double? { if case .number(let value) = self { value } else { nil } }
    var object: [String: JSONValue]? { if case .object(let value) = self { value } else { nil } }
    var description: String {
        switch self {
        case .string(let value): value
        case .number(let value): String(value)
        case .bool(let value): String(value)
        case .null: "null"
        case .array(let values): "\(values)"
        case .object(let values): "\(values)"
        }
    }
}

/// Apple's Python library in `.build/apple-venv` (`make apple-venv`; `make test` makes it), or `STOREDESK_APPLE_VENV`.
enum AppleLibrary {
    static let script = Binary.repository.appendingPathComponent("Tests/AppleLibrary/apple_library.py").path

    static func python() throws -> String {
        let venv = ProcessInfo.processInfo.environment["STOREDESK_APPLE_VENV"].flatMap { $0.isEmpty ? nil : $0 }
            ?? Binary.repository.appendingPathComponent(".build/apple-venv").path
        let python = venv + "/bin/python"
        guard FileManager.default.isExecutableFile(atPath: python), try shell("\(python) -c 'import appstoreserverlibrary'").status == 0 else {
            throw Missing(description: "Apple's library is not installed in \(venv): run `make apple-venv`")
        }
        return python
    }

    struct Missing: Error, CustomStringConvertible { var description: String }
}
