import Foundation
import GRDB
import StoreDeskCore
import StoreDeskStoreAPI
import Testing

@testable import StoreDeskSQLite

/// `2026-04-05T08:00:00Z` from `"04-05"`; a full ISO-8601 text is itself.
func at(_ text: String) -> Instant {
    Instant(iso8601: text.count == 5 ? "2026-\(text)T08:00:00Z" : text.count == 11 ? "2026-\(text):00Z" : text)
        ?? Instant(millis: 0)
}

/// One player's subscription story, told through the simulator on the demo catalogue, and the state the
/// store must report at given instants once the notifications are imported, in any order.
struct ImportStory: Sendable, CustomTestStringConvertible {
    var name: String
    /// The demo player whose game account carries the token the purchase is made with.
    var userId: String
    var token: String
    var script: @Sendable (inout SubscriptionSimulation, String) throws -> String
    var expectations: [(at: String, state: SubscriptionState, expires: String, product: String)]

    var testDescription: String { name }

    static let monthly = "com.storedesk.starvoyage.vip.monthly"
    static let yearly = "com.storedesk.starvoyage.vip.yearly"

    /// The story's notifications, as Apple would send them, up to the demo store's clock.
    func run(_ demo: DemoDatasetLoader.Contents) throws -> (SubscriptionSimulation, String) {
        let app = try #require(demo.apps.first { $0.id == "1001" })
        var sim = SubscriptionSimulation(app: app, products: demo.products, start: at("02-01"), seed: 11)
        let id = try script(&sim, token)
        try sim.advance(to: demo.meta.clock)
        return (sim, id)
    }
}

let importStories: [ImportStory] = [
    ImportStory(
        name: "grace period, then recovery", userId: "10000005", token: "f9799841-8536-4392-b508-f7579bb701f7",
        script: { sim, token in
            let id = try sim.purchase(ImportStory.monthly, at: at("03-01"), appAccountToken: token)
            try sim.startBillingProblem(id, at: at("03-20"))
            try sim.resolveBillingProblem(id, at: at("04-10"))
            return id
        },
        expectations: [
            ("03-31", .active, "04-01", ImportStory.monthly), ("04-05", .gracePeriod, "04-01", ImportStory.monthly),
            ("04-10", .active, "05-01", ImportStory.monthly), ("11-20", .active, "12-01", ImportStory.monthly),
        ]),
    ImportStory(
        name: "grace period, then billing retry, then expiry", userId: "10000006",
        token: "2b631e93-0a30-4eaa-bacb-6e8f54e5994e",
        script: { sim, token in
            let id = try sim.purchase(ImportStory.monthly, at: at("03-01"), appAccountToken: token)
            try sim.startBillingProblem(id, at: at("03-10"))
            return id
        },
        expectations: [
            ("04-16", .gracePeriod, "04-01", ImportStory.monthly), ("04-17", .billingRetry, "04-01", ImportStory.monthly),
            ("05-31T07:59", .billingRetry, "04-01", ImportStory.monthly), ("05-31", .expired, "04-01", ImportStory.monthly),
            ("11-20", .expired, "04-01", ImportStory.monthly),
        ]),
    ImportStory(
        name: "refund during the grace period", userId: "10000010", token: "ca30630b-d6b8-47b5-8290-b05d0c0b132d",
        script: { sim, token in
            let id = try sim.purchase(ImportStory.monthly, at: at("03-01"), appAccountToken: token)
            try sim.startBillingProblem(id, at: at("03-02"))
            try sim.refund(id, at: at("04-05"), reason: .appIssue)
            return id
        },
        expectations: [
            ("04-03", .gracePeriod, "04-01", ImportStory.monthly), ("04-05", .revoked, "04-01", ImportStory.monthly),
            ("11-20", .revoked, "04-01", ImportStory.monthly),
        ]),
    ImportStory(
        name: "upgrade at once, downgrade at the next renewal", userId: "10000017",
        token: "73c71bca-ee6e-481d-9b53-dd6e1173247e",
        script: { sim, token in
            let id = try sim.purchase(ImportStory.monthly, at: at("03-01"), appAccountToken: token)
            try sim.upgrade(id, to: ImportStory.yearly, at: at("03-15"))
            try sim.downgrade(id, to: ImportStory.monthly, at: at("04-01"))
            return id
        },
        expectations: [
            ("03-10", .active, "04-01", ImportStory.monthly),
            ("03-15", .active, "2027-03-15T08:00:00Z", ImportStory.yearly),
            ("11-20", .active, "2027-03-15T08:00:00Z", ImportStory.yearly),
        ]),
    ImportStory(
        name: "an introductory free trial converts to paid", userId: "10000030",
        token: "f5cdc9ce-7016-4a98-a40d-ae4b9935a003",
        script: { sim, token in
            try sim.purchase(ImportStory.monthly, at: at("10-01"), offer: .freeTrial(.week), appAccountToken: token)
        },
        expectations: [
            ("10-05", .active, "10-08", ImportStory.monthly), ("10-09", .active, "11-08", ImportStory.monthly),
            ("11-20", .active, "12-08", ImportStory.monthly),
        ]),
]

@Suite struct SubscriptionImportTests {
    static func demoStore() throws -> (AppDatabase, DemoDatasetLoader.Contents) {
        let store = try AppDatabase.inMemory()
        let demo = try Fixtures.demo()
        try store.write { try DemoDatasetLoader.insert(demo, into: $0) }
        return (store, demo)
    }

    static func lines(_ text: String) -> SubscriptionEventLines { SubscriptionEvent.decodeJSONLines(text) }

    static func importing(_ text: String, into store: AppDatabase) throws -> NotificationImport.Report {
        try store.importNotifications(lines(text), source: "test.jsonl", wallClock: at("2026-11-22T10:00:00Z"))
    }

    static func row(_ store: AppDatabase, _ id: String) throws -> Subscription? {
        try store.reader.read { try Subscription.fetchOne($0, key: id) }
    }

    @Test(arguments: importStories)
    func eventSequencesGiveTheExpectedStateWhateverTheArrivalOrder(_ story: ImportStory) throws {
        let demo = try Fixtures.demo()
        let (sim, id) = try story.run(demo)
        let lines = try sim.timeline.events.map { try $0.jsonLine() }
        var rng = SeededGenerator(seed: 3)
        let arrivals = [lines, lines.reversed(), lines.shuffled(using: &rng) + lines.prefix(2) + lines.suffix(1)]
        var rows: [Subscription] = []
        for arrival in arrivals {
            // Given the demo store, when the notifications arrive in this order (repeats included)
            let (store, _) = try Self.demoStore()
            let report = try Self.importing(arrival.joined(separator: "\n"), into: store)
            // Then each is imported once, the repeats are skipped, and nothing is rejected
            #expect(report.imported == lines.count)
            #expect(report.skipped == arrival.count - lines.count)
            #expect(report.rejected == 0)
            // And the player who owns the token owns the subscription, in the state the events' dates say
            let row = try #require(try Self.row(store, id))
            #expect(row.userId == story.userId)
            rows.append(row)
            let records = try store.subscriptionRecords(userId: story.userId)
            for expected in story.expectations {
                let instant = at(expected.at)
                let info = records.snapshot(at: instant).subscription(originalTransactionId: id)
                let context = Comment(rawValue: "\(story.name) at \(expected.at)")
                #expect(info?.state == expected.state, context)
                #expect(info?.expiresDate == at(expected.expires), context)
                #expect(info?.productId == expected.product, context)
                #expect(info == sim.snapshot(at: instant).subscription(originalTransactionId: id), context)
            }
            #expect(try store.check() == [])
        }
        #expect(Set(rows).count == 1, "the arrival order changed the stored row")
        let last = try #require(story.expectations.last)
        #expect(rows.first?.state == last.state)
    }

    @Test func aDowngradeWaitsForTheNextRenewal() throws {
        let demo = try Fixtures.demo()
        let story = try #require(importStories.first { $0.name.contains("downgrade") })
        let (sim, id) = try story.run(demo)
        let (store, _) = try Self.demoStore()
        _ = try Self.importing(try sim.timeline.events.map { try $0.jsonLine() }.joined(separator: "\n"), into: store)
        let info = try store.subscriptionRecords(userId: story.userId).snapshot(at: demo.meta.clock)
            .subscription(originalTransactionId: id)
        #expect(info?.productId == ImportStory.yearly)
        #expect(info?.pendingProductId == ImportStory.monthly)
        #expect(sim.timeline.entries(for: id).map(\.name).contains("DID_CHANGE_RENEWAL_PREF/DOWNGRADE"))
    }

    /// A decoded notification line for the demo catalogue, written out by hand.
    static func line(
        _ type: String, _ subtype: String? = nil, uuid: String, signed: String, original: String,
        transaction: String? = nil, product: String = ImportStory.monthly, bundle: String = "com.storedesk.starvoyage",
        purchased: String, expires: String, token: String? = nil
    ) -> String {
        let tokenField = token.map { ",\"appAccountToken\":\"\($0)\"" } ?? ""
        let subtypeField = subtype.map { ",\"subtype\":\"\($0)\"" } ?? ""
        return """
            {"notificationType":"\(type)"\(subtypeField),"notificationUUID":"\(uuid)","signedDate":"\(at(signed).iso8601)",\
            "data":{"bundleId":"\(bundle)","environment":"Production","transactionInfo":{"transactionId":"\(transaction ?? original)",\
            "originalTransactionId":"\(original)","productId":"\(product)","purchaseDate":\(at(purchased).millis),\
            "originalPurchaseDate":\(at(purchased).millis),"expiresDate":\(at(expires).millis)\(tokenField)}}}
            """
    }

    @Test func eachBadLineIsReportedByNumberAndLeavesNoTrace() throws {
        let (store, demo) = try Self.demoStore()
        let usersBefore = try store.userCount()
        let eventsBefore = try store.subscriptionEventCount()
        let good = Self.line("SUBSCRIBED", "INITIAL_BUY", uuid: "good-1", signed: "11-01", original: "77001", purchased: "11-01", expires: "12-01")
        let text = [
            good,
            "this is not json",
            #"{"notificationType":"DID_RENEW","signedDate":1}"#,
            #"{"signedPayload":"abc"}"#,
            Self.line("SUBSCRIBED", uuid: "bad-product", signed: "11-01", original: "77002", product: "com.nope.vip", purchased: "11-01", expires: "12-01"),
            Self.line("SUBSCRIBED", uuid: "late", signed: "12-01", original: "77003", purchased: "12-01", expires: "2027-01-01T08:00:00Z"),
            Self.line("SUBSCRIBED", uuid: "wrong-app", signed: "11-01", original: "77004", bundle: "com.example.other", purchased: "11-01", expires: "12-01"),
            #"{"notificationType":"TEST","notificationUUID":"test-1","signedDate":1790000000000}"#,
            Self.line("REFUND", uuid: "gems", signed: "11-01", original: "77005", product: "com.storedesk.starvoyage.gems.60", purchased: "11-01", expires: "12-01"),
            "",
            good,
        ].joined(separator: "\n")
        let report = try Self.importing(text, into: store)
        let outcomes = report.lines.map { "\($0.line) \($0.outcome.name)" }
        #expect(outcomes == [
            "1 imported", "2 rejected", "3 rejected", "4 rejected", "5 rejected", "6 rejected", "7 rejected", "8 skipped",
            "9 skipped", "11 skipped",
        ])
        #expect((report.imported, report.skipped, report.rejected) == (1, 3, 6))
        let reasons = Dictionary(uniqueKeysWithValues: report.lines.map { ($0.line, $0.outcome.reason ?? "") })
        #expect(reasons[2]?.hasPrefix("not a JSON object") == true)
        #expect(reasons[3] == "missing field 'notificationUUID'")
        #expect(reasons[4]?.hasPrefix("malformed JWS") == true)
        #expect(reasons[5] == "unknown product 'com.nope.vip': add it with storedesk catalog import FILE.storekit --app APP")
        #expect(
            reasons[6] == "signed 2026-12-01T08:00:00Z, in the future: after both the store's clock "
                + "\(demo.meta.clock.iso8601) and the wall clock 2026-11-22T10:00:00Z")
        #expect(reasons[7] == "bundleId 'com.example.other' is not app 1001's (com.storedesk.starvoyage)")
        #expect(reasons[11] == "repeats notification good-1 of line 1")
        // Only the good line left anything: one notification, and one new player named after its chain.
        #expect(try store.subscriptionEventCount() == eventsBefore + 1)
        #expect(try store.userCount() == usersBefore + 1)
        #expect(report.usersCreated == ["ot-77001"])
        let owner = try #require(try store.user(id: "ot-77001"))
        #expect(owner.name == "77001")
        #expect(try Self.row(store, "77002") == nil)
        #expect(try store.check() == [])
    }

    /// More rows than one page of the clock's settling (512) are left behind when a later line moves the
    /// clock: every one is written again as it stands at the new clock, none skipped between pages.
    @Test func aMovedClockSettlesEveryRowItLeftBehindPageAfterPage() throws {
        // Given the demo store and 1,100 chains bought just after its clock, running out on 11-21 at midnight
        let (store, _) = try Self.demoStore()
        let count = SubscriptionSettling.pageSize * 2 + 76
        var lines = (0..<count).map { i in
            Self.line("SUBSCRIBED", "INITIAL_BUY", uuid: "page-\(i)", signed: "11-20T09:00", original: String(79_000 + i),
                      purchased: "11-20T09:00", expires: "11-21T00:00")
        }
        // When the last line of the same file is signed after they ran out
        lines.append(Self.line("SUBSCRIBED", "INITIAL_BUY", uuid: "later", signed: "11-21T09:30", original: "78999",
                               purchased: "11-21T09:30", expires: "12-21T09:30"))
        let report = try Self.importing(lines.joined(separator: "\n"), into: store)
        #expect((report.imported, report.rejected) == (count + 1, 0))
        // Then not one of the 1,100 rows is still stored as active, and `check` finds nothing stale
        let stillActive = try store.reader.read {
            try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM subscription WHERE original_transaction_id BETWEEN '79000' AND '79999' AND state = 'active'")
        }
        #expect(stillActive == 0)
        #expect(try Self.row(store, "79000")?.state == Self.row(store, String(79_000 + count - 1))?.state)
        #expect(try Self.row(store, "78999")?.state == .active)
        #expect(try store.check() == [])
    }

    /// The players an import makes are indexed for search at its end, a slice of statements at a time:
    /// the first and the last of more than one slice are found, the index is whole, and a player made
    /// after the import is indexed again by the trigger.
    @Test func everyPlayerAnImportMakesIsFoundBySearchSliceAfterSlice() throws {
        let (store, _) = try Self.demoStore()
        let count = SQLiteImportRows.DeferredUserSearch.indexSlice + 104
        let text = (0..<count).map { i in
            Self.line("SUBSCRIBED", "INITIAL_BUY", uuid: "player-\(i)", signed: "11-20T09:00", original: String(81_000 + i),
                      purchased: "11-20T09:00", expires: "12-20T09:00")
        }.joined(separator: "\n")
        let report = try Self.importing(text, into: store)
        #expect(report.usersCreatedCount == count)
        #expect(try store.searchUsers("81000", limit: 5).map(\.id) == ["ot-81000"])
        #expect(try store.searchUsers(String(81_000 + count - 1), limit: 5).map(\.id) == ["ot-\(81_000 + count - 1)"])
        try store.write { db in
            try db.execute(sql: "INSERT INTO user_search(user_search) VALUES('integrity-check')")
            try db.execute(sql: "INSERT INTO user(id, name, site, adult_type, fcm, authoriz_state, safety, client_id, created_at) VALUES ('after-import', '后来者', 0, 0, 0, 0, 0, '', 0)")
        }
        #expect(try store.searchUsers("后来者", limit: 5).map(\.id) == ["after-import"])
    }

    @Test func realNotificationsSignedAfterTheStoresClockMoveItForward() throws {
        // Given the demo store, its clock at 2026-11-20T08:00Z, imported on 2026-11-22T10:00Z by the wall clock
        let (store, demo) = try Self.demoStore()
        #expect(try store.clock() == demo.meta.clock)
        // When a chain that lapsed yesterday and one bought yesterday come in (signed after the store's clock)
        let text = [
            Self.line("SUBSCRIBED", "INITIAL_BUY", uuid: "lapsing", signed: "10-21", original: "78001", purchased: "10-21",
                      expires: "11-21T00:00"),
            Self.line("SUBSCRIBED", "INITIAL_BUY", uuid: "yesterday", signed: "11-21T09:30", original: "78002",
                      purchased: "11-21T09:30", expires: "12-21T09:30"),
        ].joined(separator: "\n")
        let report = try Self.importing(text, into: store)
        // Then both are in and the clock moved to the latest signedDate
        #expect((report.imported, report.rejected) == (2, 0))
        #expect(try store.clock() == at("11-21T09:30"))
        // And every chain imported is folded at that clock: the first one has expired by then
        #expect(try Self.row(store, "78001")?.state == .expired)
        #expect(try Self.row(store, "78002")?.state == .active)
        // And a hand-written row whose grace period ended before the new clock (10000019's, 11-21T06:00)
        // is written again as it stands there, so `check` finds nothing stale
        #expect(try Self.row(store, "2000000100000037")?.state == .billingRetry)
        #expect(try store.check() == [])

        // When a notification signed after the wall clock comes in
        let future = Self.line("SUBSCRIBED", "INITIAL_BUY", uuid: "tomorrow", signed: "11-23", original: "78003",
                               purchased: "11-23", expires: "12-23")
        let refused = try Self.importing(future, into: store)
        // Then it is refused, naming both clocks, and the clock stays where it was
        #expect(
            refused.lines.first?.outcome.reason == "signed 2026-11-23T08:00:00Z, in the future: after both the store's "
                + "clock 2026-11-21T09:30:00Z and the wall clock 2026-11-22T10:00:00Z")
        #expect(try store.clock() == at("11-21T09:30"))
        #expect(try Self.row(store, "78003") == nil)

        // And notifications older than the clock leave it alone
        let older = Self.line("SUBSCRIBED", "INITIAL_BUY", uuid: "older", signed: "11-01", original: "78004",
                              purchased: "11-01", expires: "12-01")
        #expect(try Self.importing(older, into: store).imported == 1)
        #expect(try store.clock() == at("11-21T09:30"))
    }

    @Test func aRefundKeepsApplesReasonBesideItsKind() throws {
        // Given a refund Apple made for an issue in the app
        let demo = try Fixtures.demo()
        let app = try #require(demo.apps.first { $0.id == "1001" })
        var sim = SubscriptionSimulation(app: app, products: demo.products, start: at("10-01"), seed: 5)
        let id = try sim.purchase(ImportStory.monthly, at: at("10-01"), appAccountToken: nil)
        try sim.refund(id, at: at("10-05"), reason: .appIssue)
        let (store, _) = try Self.demoStore()
        _ = try Self.importing(try sim.timeline.events.map { try $0.jsonLine() }.joined(separator: "\n"), into: store)
        // Then the row keeps the kind where it always was, and Apple's reason beside it
        let row = try #require(try Self.row(store, id))
        #expect(row.revocationReason == "refund")
        #expect(row.appleRevocationReason == 1)
        // And the row read alone says why, as the notification does
        #expect(row.info(at: at("10-06"))?.revocationReason == .appIssue)
        #expect(row.info(at: at("10-06"))?.revocationReason == sim.snapshot(at: at("10-06")).subscription(originalTransactionId: id)?.revocationReason)
    }

    @Test func aNotificationBelongsToTheTokenThenTheChainsOwnerThenANewPlayer() throws {
        let (store, _) = try Self.demoStore()
        // The demo's row for 2000000100000043 belongs to 10000013; its first purchase 2000000100000030 to 10000001.
        try store.write { try $0.execute(sql: "DELETE FROM subscription WHERE original_transaction_id = '2000000100000030'") }
        let text = [
            Self.line("DID_RENEW", uuid: "o-1", signed: "11-10", original: "2000000100000043", transaction: "t-1", purchased: "11-10", expires: "12-10"),
            Self.line("DID_RENEW", uuid: "o-2", signed: "11-03", original: "2000000100000030", transaction: "t-2", purchased: "11-03", expires: "12-03"),
            Self.line("SUBSCRIBED", uuid: "o-3", signed: "11-05", original: "88001", purchased: "11-05", expires: "12-05"),
            Self.line("DID_RENEW", uuid: "o-4", signed: "11-19", original: "88001", transaction: "t-4", purchased: "11-19", expires: "12-19"),
        ].joined(separator: "\n")
        let report = try Self.importing(text, into: store)
        #expect(report.lines.map(\.userId) == ["10000013", "10000001", "ot-88001", "ot-88001"])
        #expect(report.usersCreated == ["ot-88001"])
        #expect(try Self.row(store, "2000000100000043")?.state == .active)
        // A token names its player even over the chain's owner: the subscription moves to them.
        let token = Self.line(
            "DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED", uuid: "o-5", signed: "11-19", original: "88001", transaction: "t-4",
            purchased: "11-19", expires: "12-19", token: "F9799841-8536-4392-B508-F7579BB701F7")
        let moved = try Self.importing(token, into: store)
        #expect(moved.lines.first?.userId == "10000005")
        #expect(try Self.row(store, "88001")?.userId == "10000005")
        #expect(try Self.row(store, "88001")?.autoRenew == false)
        #expect(try store.check() == [])
    }

    @Test func aLineTheStoreRefusesIsRolledBackWhole() throws {
        let (store, _) = try Self.demoStore()
        try store.write { db in
            try db.execute(sql: """
                CREATE TRIGGER refuse_99001 BEFORE INSERT ON subscription WHEN new.original_transaction_id = '99001'
                BEGIN SELECT RAISE(ABORT, 'refused by the test'); END
                """)
        }
        let users = try store.userCount()
        let text = [
            Self.line("SUBSCRIBED", uuid: "r-1", signed: "11-05", original: "99001", purchased: "11-05", expires: "12-05"),
            Self.line("SUBSCRIBED", uuid: "r-2", signed: "11-05", original: "99002", purchased: "11-05", expires: "12-05"),
        ].joined(separator: "\n")
        let report = try Self.importing(text, into: store)
        #expect(report.lines.map(\.outcome) == [.rejected("the store refused it: refused by the test"), .imported])
        // The refused line made a player and a notification before its row failed: both are gone.
        #expect(try store.user(id: "ot-99001") == nil)
        #expect(try store.user(id: "ot-99002") != nil)
        #expect(try store.userCount() == users + 1)
        #expect(try store.reader.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM subscription_event WHERE notification_uuid = 'r-1'") } == 0)
        #expect(report.usersCreated == ["ot-99002"])
    }

    /// Lines go in a few hundred under one savepoint; a line the store refuses in the middle of a later
    /// batch (a renewal of a chain begun in an earlier one) is rejected alone, and the store ends as the
    /// same file without that line leaves it: every other line in, the chain's later lines folded on.
    @Test func aRefusedLineInALongFileIsRejectedAloneAndTheRestIsAsWithoutIt() throws {
        let months = ["06-10", "07-10", "08-10", "09-10"]
        var lines: [String] = []
        for step in 0..<3 {
            for chain in 0..<200 {
                let original = "77\(1000 + chain)"
                lines.append(
                    Self.line(
                        step == 0 ? "SUBSCRIBED" : "DID_RENEW", uuid: "b-\(chain)-\(step)", signed: months[step], original: original,
                        transaction: "\(original)-\(step)", purchased: months[step], expires: months[step + 1]))
            }
        }
        let refused = 200 + 150  // chain 771150's renewal of July, in the second batch
        let (store, _) = try Self.demoStore()
        try store.write { db in
            try db.execute(
                sql: """
                    CREATE TRIGGER refuse_771150 BEFORE UPDATE ON subscription
                    WHEN new.original_transaction_id = '771150' AND new.purchase_date = \(at("07-10").millis)
                    BEGIN SELECT RAISE(ABORT, 'refused by the test'); END
                    """)
        }
        let report = try Self.importing(lines.joined(separator: "\n"), into: store)
        #expect(report.rejected == 1)
        #expect(report.imported == 599)
        #expect(report.lines[refused].outcome == .rejected("the store refused it: refused by the test"))
        #expect(report.lines[refused].line == refused + 1)
        #expect(report.usersCreatedCount == 200)
        #expect(report.subscriptionsWritten == 200)
        #expect(report.usersCreated == (0..<NotificationImport.Report.namedUsers).map { "ot-77\(1000 + $0)" })

        let (without, _) = try Self.demoStore()
        var kept = lines
        kept.remove(at: refused)
        let alone = try Self.importing(kept.joined(separator: "\n"), into: without)
        #expect(alone.imported == 599)
        func contents(_ store: AppDatabase) throws -> [[String]] {
            try store.reader.read { db in
                try [
                    "SELECT * FROM subscription WHERE original_transaction_id LIKE '771%' ORDER BY 1",
                    "SELECT notification_uuid, original_transaction_id, signed_date, payload FROM subscription_event ORDER BY 1",
                    "SELECT id, name, created_at FROM user ORDER BY id",
                ].map { sql in try Row.fetchAll(db, sql: sql).map(\.description) }
            }
        }
        #expect(try contents(store) == contents(without))
        #expect(try Self.row(store, "771150")?.purchaseDate == at("08-10"))
        #expect(try store.check() == [])
    }

    /// A repeat names the line it repeats from the store's own row (`source_line`), however far back
    /// and whichever batch it was written in; a notification an earlier import brought is named as such.
    @Test func aRepeatFarDownTheFileNamesItsLineAndOneFromAnEarlierImportSaysSo() throws {
        let (store, _) = try Self.demoStore()
        var lines: [String] = []
        for chain in 0..<600 {
            lines.append(
                Self.line(
                    "SUBSCRIBED", uuid: "far-\(chain)", signed: "06-10", original: "78\(1000 + chain)", purchased: "06-10",
                    expires: "07-10"))
        }
        lines.append(lines[2])
        let first = try Self.importing(lines.joined(separator: "\n"), into: store)
        #expect(first.imported == 600)
        #expect(first.lines.last?.outcome == .skipped("repeats notification far-2 of line 3"))
        let stored = try store.reader.read {
            try Int.fetchOne($0, sql: "SELECT source_line FROM subscription_event WHERE notification_uuid = 'far-599'")
        }
        #expect(stored == 600)
        let again = try Self.importing(lines[5], into: store)
        #expect(again.lines.first?.outcome == .skipped("notification far-5 is already in the store"))
        #expect(try store.check() == [])
    }

    @Test func importingTheSameFileAgainSkipsEveryLineAndLeavesTheFileAlone() throws {
        let folder = TemporaryFolder()
        let path = folder.path("demo.sqlite")
        let store = try Fixtures.demoStore(at: path)
        let demoLines = try Fixtures.demo().notifications
        let before = Fixtures.checksum(path)
        let report = try store.importNotifications(demoLines, source: "notifications.jsonl", wallClock: at("11-22"))
        #expect(report.imported == 0)
        #expect(report.skipped == demoLines.entries.count)
        #expect(report.lines.allSatisfy { $0.outcome.reason?.contains("already in the store") == true })
        #expect(Fixtures.checksum(path) == before)
    }

    @Test func aFileThatIsNoNotificationsLeavesTheStoreUntouched() throws {
        let folder = TemporaryFolder()
        let path = folder.path("demo.sqlite")
        let store = try Fixtures.demoStore(at: path)
        let binary = folder.path("photo.png")
        try Data([0x89, 0x50, 0x4E, 0x47, 0xFF, 0xFE, 0x00, 0x01]).write(to: URL(fileURLWithPath: binary))
        let csv = folder.path("export.csv")
        try "uuid,type\n1,DID_RENEW\n".write(toFile: csv, atomically: true, encoding: .utf8)
        #expect(throws: StoreError.dataFile(path: folder.path("none.jsonl"), message: "missing, unreadable or not a regular file")) {
            try NotificationFile(path: folder.path("none.jsonl"))
        }
        #expect(throws: StoreError.dataFile(path: folder.path(""), message: "missing, unreadable or not a regular file")) {
            try NotificationFile(path: folder.path(""))
        }
        let before = Fixtures.checksum(path)
        #expect(throws: StoreError.dataFile(path: binary, message: "no line is an App Store notification (line 1: the line is not UTF-8 text)")) {
            try store.importNotifications(from: NotificationFile(path: binary), source: "photo.png", wallClock: at("11-22"))
        }
        do {
            _ = try store.importNotifications(from: NotificationFile(path: csv), source: "export.csv", wallClock: at("11-22"))
            Issue.record("a CSV file was read as notifications")
        } catch let error as StoreError {
            #expect(error.description.hasPrefix("\(csv): no line is an App Store notification (line 1: not a JSON object"))
            #expect(!error.description.contains("\n"))
        }
        #expect(Fixtures.checksum(path) == before)
    }

    @Test func aFileOfBlankLinesOrNothingIsRefusedAndLeavesTheStoreUntouched() throws {
        let folder = TemporaryFolder()
        let path = folder.path("demo.sqlite")
        let store = try Fixtures.demoStore(at: path)
        let blank = folder.path("blank.jsonl")
        try "\n   \n\t\r\n\n".write(toFile: blank, atomically: true, encoding: .utf8)
        let empty = folder.path("empty.jsonl")
        try Data().write(to: URL(fileURLWithPath: empty))
        let before = Fixtures.checksum(path)
        for file in [blank, empty] {
            #expect(throws: StoreError.dataFile(path: file, message: NotificationImport.noLineMessage)) {
                try store.importNotifications(from: NotificationFile(path: file), source: "blank.jsonl", wallClock: at("11-22"))
            }
        }
        #expect(NotificationImport.noLineMessage == "no line is an App Store notification (the file is empty or holds only blank lines)")
        #expect(Fixtures.checksum(path) == before)
    }

    @Test func theDemoNotificationsAreImportedWithTheDemo() throws {
        let (store, demo) = try Self.demoStore()
        #expect(demo.notifications.failures.isEmpty)
        #expect(try store.subscriptionEventCount() == Set(demo.notifications.events.map(\.notificationUUID)).count)
        #expect(try store.check() == [])
        let clock = demo.meta.clock
        let states: [(String, String, SubscriptionState)] = [
            ("10000005", "2000000100000201", .active),  // grace, then recovery
            ("10000007", "2000000100000211", .expired),  // billing retry, then expiry
            ("10000008", "2000000100000221", .revoked),  // refund (signed by the demo chain)
            ("10000006", "2000000100000231", .active),  // upgrade, then a downgrade waiting for renewal
            ("10000036", "2000000100000241", .active),  // a free trial converted, then auto-renew off
        ]
        for (user, original, state) in states {
            let records = try store.subscriptionRecords(userId: user)
            #expect(records.snapshot(at: clock).subscription(originalTransactionId: original)?.state == state, "\(user)")
            #expect(try Self.row(store, original)?.state == state, "\(user)")
        }
        let refund = try store.subscriptionRecords(userId: "10000008").events.first { $0.notificationType == .refund }
        // The demo's signed lines are verified against the demo's own root (Data/Demo/trust-root.pem), which
        // the demo store trusts; the chain the demo left decoded stays marked decoded.
        #expect(refund?.provenance == .verified)
        #expect(refund?.signer?.rootSHA256 == demo.trustRoots.first?.sha256)
        #expect(refund?.signer?.isApple == false)
        #expect(try store.trustRoots().map(\.sha256) == demo.trustRoots.map(\.sha256))
        let decoded = try store.subscriptionRecords(userId: "10000036").events
        #expect(!decoded.isEmpty && decoded.allSatisfy { $0.provenance == .decodedJSON })
        let names = SubscriptionTimeline(events: try store.subscriptionRecords(userId: "10000005").events).entries.map(\.name)
        #expect(names == [
            "SUBSCRIBED/INITIAL_BUY", "DID_RENEW", "DID_FAIL_TO_RENEW/GRACE_PERIOD", "DID_RENEW/BILLING_RECOVERY", "DID_RENEW",
        ])
    }

    /// The stored rows and the notifications behind them tell one story: a row played forward from the
    /// store's clock answers as the notifications do, and every hand-written demo row is what its own
    /// projection says at the clock.
    @Test func rowsAgreeWithTheirNotificationsFromTheClockOn() throws {
        let (store, demo) = try Self.demoStore()
        let rows = try store.reader.read { try Subscription.fetchAll($0) }
        let withEvents = Set(demo.notifications.events.compactMap(\.originalTransactionId))
        let timeline = SubscriptionTimeline(events: demo.notifications.events)
        for row in rows {
            let atClock = try #require(row.info(at: demo.meta.clock))
            #expect(atClock.subscription(userId: row.userId, appId: row.appId) == row, "\(row.id)")
            guard withEvents.contains(row.id) else { continue }
            for days in [0, 5, 12, 20, 45, 70, 400] {
                let instant = demo.meta.clock.adding(.days(Int64(days)))
                let fromEvents = timeline.snapshot(at: instant).subscription(originalTransactionId: row.id)
                #expect(row.info(at: instant)?.state == fromEvents?.state, "\(row.id) +\(days)d")
                #expect(row.info(at: instant)?.expiresDate == fromEvents?.expiresDate, "\(row.id) +\(days)d")
            }
        }
    }
}
