import Foundation
import StoreDeskCore
import StoreDeskTrust
import Testing

/// `storedesk trust add|list|remove` and signed imports through the real binary, with chains made here.
@Suite struct TrustCommandTests {
    @Test func aRootIsAddedListedUsedAndRemoved() throws {
        let home = TemporaryHome()
        let store = try SubscriptionCommandTests.seededStore(home)
        let chain = try SigningChain(name: "E2E Store")
        let root = home.path("root.pem")
        try chain.rootPEM().write(toFile: root, atomically: true, encoding: .utf8)
        let added = try storedesk(["trust", "add", root, "--db", store, "--role", "developer"], home: home)
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdout.contains("not Apple's root"))
        let event = SubscriptionEvent(
            notificationType: .subscribed, subtype: .initialBuy, notificationUUID: "e2e-1",
            signedDate: Instant(millis: 1_794_000_000_000), appAppleId: 6_741_000_101, bundleId: "com.storedesk.starvoyage",
            environment: "Production",
            transaction: TransactionInfo(
                transactionId: "99000001", originalTransactionId: "99000001", productId: "com.storedesk.starvoyage.vip.monthly",
                purchaseDate: Instant(millis: 1_794_000_000_000), expiresDate: Instant(millis: 1_796_592_000_000)))
        let file = home.path("signed.jsonl")
        try (try chain.signedNotificationLine(event) + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let imported = try storedesk(["events", "import", file, "--db", store], home: home)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("; 1 verified;"))
        let list = try jsonObject(try storedesk(["trust", "list", "--db", store, "--json"], home: home).stdout)
        let roots = try #require(list["roots"] as? [[String: Any]])
        #expect(roots.count == 1 && roots.first?["verifiedNotifications"] as? Int == 1)
        #expect(roots.first?["isAppleRootCAG3"] as? Bool == false)
        let subs = try storedesk(["subs", "99000001", "--db", store], home: home)
        #expect(subs.stdout.contains("[✓ verified (not Apple)]"))
        let removed = try storedesk(["trust", "remove", "1", "--db", store, "--role", "developer", "--json"], home: home)
        #expect(removed.status == 0, "\(removed.stderr)")
        let gone = try #require(try jsonObject(removed.stdout)["removed"] as? [String: Any])
        #expect(gone["id"] as? Int == 1 && (gone["subject"] as? String)?.contains("E2E Store Root CA") == true)
        #expect((gone["sha256"] as? String)?.count == 64 && gone["isAppleRootCAG3"] as? Bool == false)
        #expect(try storedesk(["trust", "list", "--db", store], home: home).stdout.hasPrefix("no trusted root"))
        // What it verified stays verified: it was, when imported.
        #expect(try storedesk(["subs", "99000001", "--db", store], home: home).stdout.contains("[✓ verified (not Apple)]"))
    }

    @Test func anAppLimitedToSandboxRefusesVerifiedProductionLinesUntilItTakesBoth() throws {
        let home = TemporaryHome()
        let store = try SubscriptionCommandTests.seededStore(home)
        let developer = ["--db", store, "--role", "developer"]
        let limited = try storedesk(["apps", "set", "1001", "--environment", "sandbox"] + developer, home: home)
        #expect(limited.status == 0, "\(limited.stderr)")
        let importing = ["events", "import", SubscriptionCommandTests.demoNotifications, "--db", store, "--json",
                         "--trust-root", SubscriptionCommandTests.demoRoot]
        let refused = try jsonObject(try storedesk(importing, home: home).stdout)
        let reasons = try #require(refused["lines"] as? [[String: Any]]).compactMap { $0["reason"] as? String }
        let sandboxOnly = "environment Production: app 1001 takes Sandbox only (storedesk apps set 1001 --environment both)"
        #expect(reasons.contains(sandboxOnly), "\(reasons)")
        let verifiedBefore = (refused["provenance"] as? [String: Int])?["verified"] ?? 0
        let both = try storedesk(["apps", "set", "1001", "--environment", "both"] + developer, home: home)
        #expect(both.status == 0, "\(both.stderr)")
        let taken = try jsonObject(try storedesk(importing, home: home).stdout)
        #expect(taken["rejected"] as? Int == 0)
        // What the limit refused goes in now, verified: between the two runs, the 14 of an unlimited import.
        let verifiedAfter = (taken["provenance"] as? [String: Int])?["verified"] ?? 0
        #expect(verifiedAfter > 0)
        #expect(verifiedBefore + verifiedAfter == 14)
    }

    @Test func aFileThatIsNotARootOrNotApplesLeavesTheStoreByteIdentical() throws {
        let home = TemporaryHome()
        let store = try SubscriptionCommandTests.seededStore(home)
        let text = home.path("notes.txt")
        try "not a certificate\n".write(toFile: text, atomically: true, encoding: .utf8)
        // A root that calls itself Apple's but is not.
        let impostor = home.path("AppleRootCA-G3.pem")
        try SigningChain(name: "Apple Root CA - G3").rootPEM().write(toFile: impostor, atomically: true, encoding: .utf8)
        let intermediate = home.path("intermediate.cer")
        let chain = try SigningChain(name: "E2E Intermediate")
        try Data(base64Encoded: try chain.x5c()[1])?.write(to: URL(fileURLWithPath: intermediate))
        let root = home.path("root.pem")
        try chain.rootPEM().write(toFile: root, atomically: true, encoding: .utf8)
        let cases: [(arguments: [String], message: String)] = [
            (["trust", "add", text, "--role", "developer"], "storedesk: \(text): not a certificate (DER or PEM)"),
            (["trust", "add", home.path("none.pem"), "--role", "developer"], "storedesk: \(home.path("none.pem")): no such file"),
            (["trust", "add", impostor, "--role", "developer"], "storedesk: \(impostor) is not Apple Root CA - G3: its subject is"),
            (["trust", "add", intermediate, "--role", "developer"], "storedesk: \(intermediate): not a root certificate:"),
            (["trust", "add", root], "storedesk: only a developer may change the trusted roots"),
            (["trust", "add", root, "--role", "developer", "--readonly"], "storedesk: --readonly:"),
            (["trust", "remove", "7", "--role", "developer"], "storedesk: no trusted root 7"),
        ]
        for item in cases {
            let before = SubscriptionCommandTests.bytes(store)
            let result = try storedesk(item.arguments + ["--db", store], home: home)
            #expect(result.status == 1, "\(item.arguments)")
            #expect(result.stderr.hasPrefix(item.message), "\(item.arguments): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(item.arguments)")
            #expect(SubscriptionCommandTests.bytes(store) == before, "\(item.arguments) changed the store")
        }
        let impostorResult = try storedesk(["trust", "add", impostor, "--role", "developer", "--db", store], home: home)
        #expect(impostorResult.stderr.contains("Apple's is 63:34:3A:BF:B8:9A:6A:03"))
    }
}
