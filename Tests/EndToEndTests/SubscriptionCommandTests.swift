import Foundation
import Testing

/// Runs the real binary through `shell` (posix_spawn and files, never pipes), stdout and stderr apart.
func storedesk(_ arguments: [String], home: TemporaryHome) throws -> Binary.Result {
    func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }
    let errors = home.path("stderr-" + UUID().uuidString)
    defer { try? FileManager.default.removeItem(atPath: errors) }
    let environment = [
        "HOME=" + quoted(home.url.path), "XDG_DATA_HOME=" + quoted(home.path("data")),
        "XDG_CONFIG_HOME=" + quoted(home.path("config")), "LANG=C.UTF-8", "TZ=UTC",
    ]
    let command = "env " + environment.joined(separator: " ") + " " + quoted(Binary.path) + " "
        + arguments.map(quoted).joined(separator: " ") + " 2>" + quoted(errors)
    let (status, output) = try shell(command)
    return Binary.Result(status: status, stdout: output, stderr: (try? String(contentsOfFile: errors, encoding: .utf8)) ?? "")
}

func jsonObject(_ text: String) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
}

/// `storedesk events import` and `storedesk subs` through the real binary.
@Suite struct SubscriptionCommandTests {
    static let demoNotifications = Binary.repository.appendingPathComponent("Data/Demo/notifications.jsonl").path

    static func seededStore(_ home: TemporaryHome, _ name: String = "seeded.sqlite") throws -> String {
        let path = home.path(name)
        let seeded = try storedesk(["seed", "--users", "30", "--seed", "8", "--db", path], home: home)
        #expect(seeded.status == 0, "\(seeded.stderr)")
        return path
    }

    static func bytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

    static let demoRoot = Binary.repository.appendingPathComponent("Data/Demo/trust-root.pem").path

    @Test func importingTheDemoNotificationsIntoASeededStore() throws {
        let home = TemporaryHome()
        let store = try Self.seededStore(home)
        // A seeded store trusts no root: the demo's signed lines are refused, its decoded chain goes in.
        let bare = try storedesk(["events", "import", Self.demoNotifications, "--db", store, "--json"], home: home)
        #expect(bare.status == 2, "\(bare.stderr)")
        let refused = try jsonObject(bare.stdout)
        #expect((refused["imported"] as? Int, refused["rejected"] as? Int) == (3, 15))
        let reasons = try #require(refused["lines"] as? [[String: Any]]).compactMap { $0["reason"] as? String }
        #expect(reasons.allSatisfy { $0 == "no trusted root: add Apple Root CA G3 with storedesk trust add" })
        #expect(refused["provenance"] as? [String: Int] == ["decoded_json": 3])
        // With the demo's root for this run, every signed line verifies.
        let first = try storedesk(
            ["events", "import", Self.demoNotifications, "--db", store, "--json", "--trust-root", Self.demoRoot], home: home)
        #expect(first.status == 0, "\(first.stderr)")
        let report = try jsonObject(first.stdout)
        #expect(report["imported"] as? Int == 14)
        #expect(report["skipped"] as? Int == 4)
        #expect(report["rejected"] as? Int == 0)
        #expect(report["provenance"] as? [String: Int] == ["verified": 14])
        // Nobody in a seeded store holds the demo's tokens: each chain gets a player named after it.
        #expect(report["usersCreatedCount"] as? Int == 4)
        let lines = try #require(report["lines"] as? [[String: Any]])
        #expect(lines.count == 18)
        #expect(lines.last?["outcome"] as? String == "skipped")
        #expect((lines.last?["reason"] as? String)?.hasPrefix("repeats notification") == true)
        #expect(lines.first?["userId"] as? String == "ot-2000000100000201")
        // The root was for that run only: the store still trusts none.
        #expect(try storedesk(["trust", "list", "--db", store], home: home).stdout.hasPrefix("no trusted root"))
        // Again: every line is already there, and the store is still clean.
        let again = try storedesk(["events", "import", Self.demoNotifications, "--db", store, "--trust-root", Self.demoRoot], home: home)
        #expect(again.status == 0)
        #expect(again.stdout.hasSuffix("imported 0, skipped 18, rejected 0 (\(Self.demoNotifications) → \(store))\n"))
        #expect(try storedesk(["check", "--db", store], home: home).status == 0)
        let subs = try storedesk(["subs", "2000000100000231", "--db", store, "--json"], home: home)
        #expect(subs.status == 0, "\(subs.stderr)")
        let state = try jsonObject(subs.stdout)
        #expect((state["user"] as? [String: Any])?["id"] as? String == "ot-2000000100000231")
        #expect(state["unlocked"] as? Bool == true)
        #expect(state["currentExpiresDate"] as? String == "2027-11-02T13:00:00Z")
        let latest = try #require(state["latest"] as? [String: Any])
        #expect(latest["productId"] as? String == "com.storedesk.starvoyage.vip.yearly")
        #expect(latest["autoRenewProductId"] as? String == "com.storedesk.starvoyage.vip.monthly")
        let events = try #require(state["events"] as? [[String: Any]])
        #expect(events.allSatisfy { $0["verified"] as? Bool == true && $0["provenance"] as? String == "verified" })
        let signer = try #require(events.first?["signer"] as? [String: Any])
        #expect(signer["rootSubject"] as? String == "O=StoreDesk Demo,CN=StoreDesk Demo Root CA")
        #expect(signer["rootIsAppleRootCAG3"] as? Bool == false)
        #expect((signer["leafSerial"] as? String)?.isEmpty == false)
    }

    @Test func subsAnswersAtTheStoresClockOrAnyInstant() throws {
        let home = TemporaryHome()
        let grace = try storedesk(["subs", "10000013", "--json", "--product", "com.storedesk.starvoyage.vip.monthly"], home: home)
        #expect(grace.status == 0, "\(grace.stderr)")
        let now = try jsonObject(grace.stdout)
        #expect(now["at"] as? String == "2026-11-20T08:00:00Z")
        #expect(now["unlocked"] as? Bool == true)
        #expect(now["inGracePeriod"] as? Bool == true)
        #expect(now["gracePeriodExpiresDate"] as? String == "2026-11-26T12:00:00Z")
        #expect(now["currentExpiresDate"] as? String == "2026-11-10T12:00:00Z")
        #expect(now["originalTransactionDate"] as? String == "2026-08-10T12:00:00Z")
        let groups = try #require(now["groups"] as? [[String: Any]])
        #expect(groups.count == 1)
        #expect(groups.first?["subscriptionGroupIdentifier"] as? String == "starvoyage.vip")
        #expect(groups.first?["status"] as? Int == 4)
        #expect((now["product"] as? [String: Any])?["valid"] as? Bool == true)
        // A week later the grace period is over: billing retry, no access.
        let later = try jsonObject(try storedesk(["subs", "10000013", "--json", "--at", "2026-11-27T00:00:00Z"], home: home).stdout)
        #expect(later["unlocked"] as? Bool == false)
        #expect((later["groups"] as? [[String: Any]])?.first?["status"] as? Int == 3)
        #expect(later["product"] is NSNull)
        // Before the first purchase there is nothing.
        let before = try jsonObject(try storedesk(["subs", "10000013", "--json", "--at", "2026-08-01"], home: home).stdout)
        #expect((before["all"] as? [Any])?.isEmpty == true)
        #expect(before["currentExpiresDate"] is NSNull)
        // An original transaction id names its owner; a refund is status 5, from an unverified signed line.
        let refund = try jsonObject(try storedesk(["subs", "2000000100000221", "--json"], home: home).stdout)
        #expect((refund["user"] as? [String: Any])?["id"] as? String == "10000008")
        #expect((refund["groups"] as? [[String: Any]])?.first?["status"] as? Int == 5)
        let events = try #require(refund["events"] as? [[String: Any]])
        #expect(events.map { $0["name"] as? String } == ["SUBSCRIBED/INITIAL_BUY", "REFUND"])
        #expect(events.last?["provenance"] as? String == "verified")
        #expect(events.last?["verified"] as? Bool == true)
        #expect((events.last?["trust"] as? String)?.hasSuffix("under 'O=StoreDesk Demo,CN=StoreDesk Demo Root CA' (not Apple's root)") == true)
        // The demo's unsigned chain is marked decoded.
        let decoded = try jsonObject(try storedesk(["subs", "2000000100000241", "--json"], home: home).stdout)
        #expect((decoded["events"] as? [[String: Any]])?.allSatisfy { $0["provenance"] as? String == "decoded_json" && $0["signer"] is NSNull } == true)
        // Read aloud.
        let text = try storedesk(["subs", "10000013"], home: home)
        #expect(text.stdout.contains("grace period ends Thursday 26 November 2026, 12:00 UTC (in 6 days)"))
        #expect(text.stdout.contains("groups            starvoyage.vip: grace period (4)"))
        let timeline = try storedesk(["subs", "10000005"], home: home)
        #expect(timeline.stdout.contains("DID_FAIL_TO_RENEW/GRACE_PERIOD  renewal failed; access kept in the billing grace period"))
    }

    @Test func aFileWithBadLinesImportsTheRestAndExitsTwo() throws {
        let home = TemporaryHome()
        let store = try Self.seededStore(home)
        let demo = try String(contentsOfFile: Self.demoNotifications, encoding: .utf8).split(separator: "\n")
        let file = home.path("mixed.jsonl")
        try ([String(demo[14]), "{\"notificationType\": ", String(demo[15]), "[1, 2, 3]"].joined(separator: "\r\n") + "\r\n")
            .write(toFile: file, atomically: true, encoding: .utf8)
        let result = try storedesk(["events", "import", file, "--db", store], home: home)
        #expect(result.status == 2)
        #expect(result.stdout == "imported 2, skipped 0, rejected 2 (\(file) → \(store)); 2 decoded; new users: ot-2000000100000241\n")
        let errors = result.stderr.split(separator: "\n")
        #expect(errors.count == 2)
        #expect(errors.first?.hasPrefix("storedesk: \(file):2: not a JSON object") == true)
        #expect(errors.last == "storedesk: \(file):4: the line is not a JSON object")
        #expect(try storedesk(["check", "--db", store], home: home).status == 0)
        let json = try storedesk(["events", "import", file, "--db", store, "--json"], home: home)
        #expect(json.status == 2)
        let report = try jsonObject(json.stdout)
        #expect((report["imported"] as? Int, report["skipped"] as? Int, report["rejected"] as? Int) == (0, 2, 2))
    }

    /// A real notification for the seeded catalogue, signed at `signed` (ISO-8601), bought then for a month.
    static func notification(uuid: String, original: String, signed: String, expires: String) -> String {
        """
        {"notificationType":"SUBSCRIBED","subtype":"INITIAL_BUY","notificationUUID":"\(uuid)","signedDate":"\(signed)",\
        "data":{"bundleId":"com.storedesk.starvoyage","environment":"Production","transactionInfo":\
        {"transactionId":"\(original)","originalTransactionId":"\(original)","productId":"com.storedesk.starvoyage.vip.monthly",\
        "purchaseDate":"\(signed)","originalPurchaseDate":"\(signed)","expiresDate":"\(expires)"}}}
        """
    }

    @Test func notificationsSignedSinceTheStoresClockAreImportedAndMoveIt() throws {
        let home = TemporaryHome()
        let store = try Self.seededStore(home)
        // The seeded store's clock stays at 2026-11-20T08:00Z; this was signed after it, before the wall clock.
        let file = home.path("yesterday.jsonl")
        try Self.notification(uuid: "real-1", original: "2000000900000001", signed: "2026-11-20T09:30:00Z", expires: "2026-12-20T09:30:00Z")
            .write(toFile: file, atomically: true, encoding: .utf8)
        let result = try storedesk(["events", "import", file, "--db", store], home: home)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty)
        #expect(result.stdout.hasPrefix("imported 1, skipped 0, rejected 0"))
        // The store's clock moved up to it: `subs` answers there, with the subscription active.
        let subs = try jsonObject(try storedesk(["subs", "2000000900000001", "--db", store, "--json"], home: home).stdout)
        #expect(subs["at"] as? String == "2026-11-20T09:30:00Z")
        #expect(subs["unlocked"] as? Bool == true)
        #expect(try storedesk(["check", "--db", store], home: home).status == 0)
    }

    @Test func aNotificationSignedAfterTheWallClockIsRejectedAndLeavesTheStoreAsItWas() throws {
        let home = TemporaryHome()
        let store = try Self.seededStore(home)
        let file = home.path("future.jsonl")
        let past = Self.notification(uuid: "old", original: "2000000900000002", signed: "2026-11-19T08:00:00Z", expires: "2026-12-19T08:00:00Z")
        let future = Self.notification(uuid: "future", original: "2000000900000003", signed: "2099-01-01T00:00:00Z", expires: "2099-02-01T00:00:00Z")
        // Line 1 is already in the store after a first import; line 2 comes from the future.
        try past.write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try storedesk(["events", "import", file, "--db", store], home: home).status == 0)
        try (past + "\n" + future + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let before = Self.bytes(store)
        let result = try storedesk(["events", "import", file, "--db", store], home: home)
        #expect(result.status == 2)
        #expect(result.stdout.hasPrefix("line 1 skipped: notification old is already in the store\nimported 0, skipped 1, rejected 1"))
        #expect(
            result.stderr.hasPrefix(
                "storedesk: \(file):2: signed 2099-01-01T00:00:00Z, in the future: after both the store's clock "
                    + "2026-11-20T08:00:00Z and the wall clock 20"),
            "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(Self.bytes(store) == before, "a rejected import changed the store")
    }

    @Test func badInputGivesOneLineAndLeavesTheStoreByteIdentical() throws {
        let home = TemporaryHome()
        let store = try Self.seededStore(home)
        let png = home.path("photo.png")
        try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0xFF, 0xFE]).write(to: URL(fileURLWithPath: png))
        let csv = home.path("export.csv")
        try "notification,date\nDID_RENEW,2026-11-01\n".write(toFile: csv, atomically: true, encoding: .utf8)
        let refused = home.path("refused.jsonl")
        // Three readable (decoded) lines, each for a product this store does not sell: nothing to write.
        let demo = try String(contentsOfFile: Self.demoNotifications, encoding: .utf8).split(separator: "\n")[14..<17]
        try demo.joined(separator: "\n").replacingOccurrences(of: "com.storedesk.", with: "com.elsewhere.")
            .write(toFile: refused, atomically: true, encoding: .utf8)
        let missing = home.path("missing.jsonl")
        let blank = home.path("blank.jsonl")
        try "\n  \r\n\n".write(toFile: blank, atomically: true, encoding: .utf8)
        let cases: [(arguments: [String], status: Int32, message: String)] = [
            (["events", "import", missing], 1, "storedesk: \(missing): missing, unreadable or not a regular file"),
            (["events", "import", png], 1, "storedesk: \(png): no line is an App Store notification (line 1: the line is not UTF-8 text)"),
            (["events", "import", csv], 1, "storedesk: \(csv): no line is an App Store notification (line 1: not a JSON object"),
            (["events", "import", blank], 1,
             "storedesk: \(blank): no line is an App Store notification (the file is empty or holds only blank lines)"),
            (["events", "import", home.url.path], 1, "storedesk: \(home.url.path): missing, unreadable or not a regular file"),
            (["events", "import", csv, "--trust-root", png], 1, "storedesk: \(png): not a certificate (DER or PEM)"),
            (["events", "import", refused], 2, "storedesk: \(refused):1: unknown product 'com.elsewhere.pocketgarden.plus.monthly'"),
            (["subs", "nobody"], 1, "storedesk: no user or original transaction id 'nobody'"),
            (["subs", "10000013", "--at", "yesterday"], 1,
             "storedesk: --at must be an ISO-8601 date such as 2026-11-20T08:00:00Z, got 'yesterday'"),
            (["subs", "10000013", "--product", "com.nope"], 1, "storedesk: --product 'com.nope' is not in the store's catalogue"),
        ]
        for item in cases {
            let before = Self.bytes(store)
            let result = try storedesk(item.arguments + ["--db", store], home: home)
            #expect(result.status == item.status, "\(item.arguments)")
            #expect(result.stderr.hasPrefix(item.message), "\(item.arguments): \(result.stderr)")
            if item.status == 1 { #expect(result.stderr.split(separator: "\n").count == 1, "\(item.arguments)") }
            #expect(Self.bytes(store) == before, "\(item.arguments) changed the store")
        }
    }

    @Test func checkFindsAccessOnARefundedSubscription() throws {
        let home = TemporaryHome()
        #expect(try storedesk(["check"], home: home).status == 0)
        let store = home.defaultStore
        try shell("sqlite3 '\(store)' \"UPDATE subscription SET state = 'active' WHERE original_transaction_id = '2000000100000221'\"")
        let result = try storedesk(["check", "--json"], home: home)
        #expect(result.status == 1)
        let violations = try #require(try jsonObject(result.stdout)["violations"] as? [[String: Any]])
        #expect(violations.map { $0["kind"] as? String } == ["subscription_entitled_after_revocation"])
    }

    /// Another process imports notifications while the console shows the Subscriptions screen: the new
    /// subscriptions appear, grouped by state, with their timeline, in the theme's colours.
    @Test func theConsoleShowsImportedSubscriptionsLive() throws {
        let home = TemporaryHome()
        let store = try Self.seededStore(home)
        let env = "HOME=\(home.url.path) XDG_DATA_HOME=\(home.url.path)/data XDG_CONFIG_HOME=\(home.url.path)/config TERM=tmux-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 TZ=UTC USER=e2e"
        let tmux = try ConsoleInTmuxTests.Tmux(
            width: 120, height: 40, command: "env \(env) \(Binary.path) --db \(store) --refresh 0.3; sleep 30")
        try tmux.waitFor("Profile")
        try tmux.keys(":")
        try tmux.literal("subscriptions")
        try tmux.keys("Enter")
        try tmux.waitFor("Subscriptions ·")
        try tmux.keys("/")
        try tmux.literal("2000000100000231")
        try tmux.waitFor("no subscription matches")
        let imported = try storedesk(
            ["events", "import", Self.demoNotifications, "--db", store, "--trust-root", Self.demoRoot], home: home)
        #expect(imported.status == 0, "\(imported.stderr)")
        var screen = try tmux.waitFor("vip.yearly")
        try tmux.keys("Enter")
        // The timeline bar above the facts: the detail scrolls down to the last notifications.
        try tmux.waitFor("store clock")
        try tmux.keys("Tab")
        for _ in 0..<6 { try tmux.keys("j") }
        // The names are cut at the pane's edge (date, trust mark and name are wider than 56 columns).
        screen = try tmux.waitFor("DID_CHANGE_RENEWAL_PREF/D")
        #expect(screen.contains("● active"))
        #expect(screen.contains("renews 2027-11-02 as vip.monthly"))
        #expect(screen.contains("DID_CHANGE_RENEWAL_PREF/U"))
        // The badge has a style of its own: an escape sequence starts right before the bullet.
        let coloured = try tmux.capture(colours: true)
        let badge = coloured.split(separator: "\n").first { $0.contains("● active") && $0.contains("vip.yearly") && !$0.contains("2027") }
        #expect(badge?.contains("m● active") == true, "\(String(describing: badge))")
        try tmux.keys("q")
    }
}
