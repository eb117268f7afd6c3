import Foundation
import GRDB
import StoreDeskCore
import StoreDeskTrust
import Testing

@testable import StoreDeskSQLite

/// Trusted roots in the store, and signed notifications imported through them.
@Suite struct TrustStoreTests {
    static let developer = StaffMember(name: "zhao.dev", role: .developer)
    static let now = Instant(millis: 1_795_000_000_000)

    /// A demo store (its own root trusted) and a chain of our own, its root not yet trusted.
    static func store() throws -> (AppDatabase, SigningChain) {
        let store = try AppDatabase.inMemory()
        try store.write { try DemoDatasetLoader.insert(try Fixtures.demo(), into: $0) }
        return (store, try SigningChain(name: "Store Test"))
    }

    /// A real-looking notification for the demo catalogue (app 1001, Production), signed by `chain`.
    static func line(_ chain: SigningChain, uuid: String, original: String, signedDate: Instant = Instant(millis: 1_794_000_000_000))
        throws -> String
    {
        let event = SubscriptionEvent(
            notificationType: .subscribed, subtype: .initialBuy, notificationUUID: uuid, signedDate: signedDate,
            appAppleId: 6_741_000_101, bundleId: "com.storedesk.starvoyage", environment: "Production",
            transaction: TransactionInfo(
                transactionId: original, originalTransactionId: original, productId: "com.storedesk.starvoyage.vip.monthly",
                purchaseDate: signedDate, originalPurchaseDate: signedDate,
                expiresDate: Instant(millis: signedDate.millis + 30 * 86_400_000)))
        return try chain.signedNotificationLine(event)
    }

    static func importing(_ lines: [String], into store: AppDatabase, roots: [TrustedRoot] = [], allowUnverified: Bool = false)
        throws -> (NotificationImport.Report, [NotificationImport.Line])
    {
        var heard: [NotificationImport.Line] = []
        let report = try store.importNotifications(
            from: NotificationFile(data: Data(lines.joined(separator: "\r\n").utf8), name: "signed.jsonl"), extraRoots: roots,
            allowUnverified: allowUnverified, source: "signed.jsonl", wallClock: now
        ) { heard.append($0) }
        return (report, heard)
    }

    @Test func onlyADeveloperChangesTheRootsAndEachChangeIsAudited() throws {
        let (store, chain) = try Self.store()
        let root = try TrustedRoot(chain.root)
        #expect(throws: StoreError.invalidArgument("only a developer may change the trusted roots (chen.ops (operator)): use --role developer")) {
            try store.addTrustRoot(root, by: StaffMember(name: "chen.ops", role: .operator), at: Self.now)
        }
        let stored = try store.addTrustRoot(root, by: Self.developer, at: Self.now)
        #expect(stored.id == 2)  // the demo's root is 1
        #expect(throws: StoreError.self) { try store.addTrustRoot(root, by: Self.developer, at: Self.now) }
        #expect(try store.trustRoots().map(\.sha256).last == root.sha256)
        #expect(throws: StoreError.invalidArgument("no trusted root 9: `storedesk trust list` shows their ids")) {
            try store.removeTrustRoot("9", by: Self.developer, at: Self.now)
        }
        let removed = try store.removeTrustRoot(String(root.sha256.prefix(12)), by: Self.developer, at: Self.now)
        #expect(removed.sha256 == root.sha256)
        let actions = try store.reader.read {
            try String.fetchAll($0, sql: "SELECT action FROM audit_log WHERE action LIKE 'trust.%' ORDER BY id")
        }
        #expect(actions == ["trust.root.add", "trust.root.remove"])
    }

    @Test func signedLinesVerifyAgainstTheStoresRootsAndKeepWhoSignedThem() throws {
        let (store, chain) = try Self.store()
        try store.addTrustRoot(try TrustedRoot(chain.root), by: Self.developer, at: Self.now)
        let good = try Self.line(chain, uuid: "s-1", original: "77001")
        // The same line with its payload changed: the signature no longer matches.
        var parts = try #require(try JSONSerialization.jsonObject(with: Data(good.utf8)) as? [String: String])["signedPayload"]?
            .split(separator: ".").map(String.init) ?? []
        let payload = try #require(UnverifiedJWS.base64URLDecode(parts[1]))
        parts[1] = UnverifiedJWS.base64URLEncode(Data(String(decoding: payload, as: UTF8.self).replacingOccurrences(of: "s-1", with: "s-2").utf8))
        let forged = "{\"signedPayload\":\"\(parts.joined(separator: "."))\"}"
        let (report, lines) = try Self.importing([good, forged], into: store)
        #expect((report.imported, report.rejected) == (1, 1))
        #expect(lines.map(\.outcome) == [.imported, .rejected("signedPayload: the ES256 signature does not match the leaf's key")])
        #expect(lines.last?.notificationUUID == "s-2")
        let event = try #require(try store.subscriptionRecords(userId: "ot-77001").events.first)
        #expect(event.provenance == .verified)
        #expect(event.signer?.rootSubject == chain.root.subject.description)
        #expect(event.signer?.leafSubject == chain.leaf.subject.description)
        #expect(try store.trustRootUses().last?.verifiedNotifications == 1)
        #expect(try store.check() == [])
    }

    @Test func withoutARootSignedLinesAreRefusedUnlessAllowedAndThenMarkedUnverified() throws {
        let (store, chain) = try Self.store()
        let (refused, _) = try Self.importing([try Self.line(chain, uuid: "u-1", original: "77002")], into: store)
        #expect(refused.firstRejection?.outcome == .rejected("signedPayload: the chain does not lead to a trusted root: x5c[1] ('\(chain.intermediate.subject)') was issued by none of the 1 trusted root (x5c[2] is never trusted for being in the header)"))
        // A root for this run only verifies it, and is not kept.
        let (once, _) = try Self.importing([try Self.line(chain, uuid: "u-1", original: "77002")], into: store,
                                           roots: [try TrustedRoot(chain.root)])
        #expect(once.provenance == [.verified: 1])
        #expect(try store.trustRoots().count == 1)
        // A store with no root at all refuses signed lines, unless the operator takes them unverified.
        let bare = try AppDatabase.inMemory()
        try bare.write { db in
            var demo = try Fixtures.demo()
            demo.trustRoots = []
            demo.notificationsFile = Data()
            try DemoDatasetLoader.insert(demo, into: db)
        }
        let signed = try Self.line(chain, uuid: "u-3", original: "77003")
        let (noRoot, _) = try Self.importing([signed], into: bare)
        #expect(noRoot.firstRejection?.outcome == .rejected(NotificationTrust.noTrustedRoot))
        let (allowed, _) = try Self.importing([signed], into: bare, allowUnverified: true)
        #expect(allowed.provenance == [.unverifiedJWS: 1])
        #expect(try bare.subscriptionRecords(userId: "ot-77003").events.first?.provenance == .unverifiedJWS)
    }

    @Test func aBigFileStreamsWithFewUsersNamedAndChainsVerifiedOnce() throws {
        let (store, chain) = try Self.store()
        let lines = try (0..<1_200).map { index in try Self.line(chain, uuid: "b-\(index)", original: "880\(index / 3)") }
        let (report, heard) = try Self.importing(lines, into: store, roots: [try TrustedRoot(chain.root)])
        #expect(report.imported == 1_200)
        #expect(report.lines.isEmpty)  // counted, not kept
        #expect(heard.count == 1_200 && heard.map(\.line) == Array(1...1_200))
        #expect(report.usersCreatedCount == 400)
        #expect(report.usersCreated.count == NotificationImport.Report.namedUsers)
        #expect(report.newUsersSummary == "new users: ot-8800, ot-8801, ot-8802, ot-8803, ot-8804 and 395 more")
        #expect(report.subscriptionsWritten == 400)
        #expect(try store.check() == [])
    }
}

@Suite struct TrustMigrationTests {
    /// A store made before v11a keeps its notifications; a signed one stays marked unverified (it was never
    /// verified), and it trusts no root until one is added.
    @Test func upgradingAV8StoreKeepsItsNotificationsAndTrustsNoRoot() throws {
        let queue = try DatabaseQueue()
        try SQLiteMigrations.migrator.migrate(queue, upTo: "v8-subscription-apple-revocation-reason")
        try queue.write { db in
            try db.execute(sql: """
                INSERT INTO subscription_event (notification_uuid, original_transaction_id, notification_type, signed_date,
                  provenance, payload, source, imported_at)
                VALUES ('n-1', '1', 'SUBSCRIBED', 1, 'unverified_jws', '{"notificationType":"SUBSCRIBED"}', 'old.jsonl', 2),
                       ('n-2', '1', 'DID_RENEW', 3, 'decoded_json', '{"notificationType":"DID_RENEW"}', 'old.jsonl', 4)
                """)
        }
        try SQLiteMigrations.migrator.migrate(queue)
        let rows = try queue.read {
            try Row.fetchAll($0, sql: "SELECT notification_uuid, provenance, root_sha256, source FROM subscription_event ORDER BY 1")
        }
        #expect(rows.map { $0["provenance"] as String } == ["unverified_jws", "decoded_json"])
        #expect(rows.allSatisfy { ($0["root_sha256"] as String?) == nil && $0["source"] as String == "old.jsonl" })
        #expect(try queue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM trust_root") } == 0)
        // A verified row must name its signer; no other row may.
        #expect(throws: DatabaseError.self) {
            try queue.write { try $0.execute(sql: "UPDATE subscription_event SET provenance = 'verified' WHERE notification_uuid = 'n-1'") }
        }
        let plan = try queue.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN SELECT 1 FROM subscription_event WHERE original_transaction_id = '1'")
                .map { $0["detail"] as String }
        }
        #expect(plan.allSatisfy { !$0.hasPrefix("SCAN") })
    }
}
