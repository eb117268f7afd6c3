import Foundation
import StoreDeskCore
import StoreDeskPostgres
import StoreDeskSQLite
import StoreDeskStoreAPI
import Testing

extension ContractStores {
    /// A demo store of its own on `backend`, a whole store.
    func wholeStore(_ backend: Backend) throws -> any Store {
        switch backend {
        case .sqlite: try sqlite()
        case .postgres: try postgres()
        }
    }

    /// Another connection to the same whole store, as another process (or machine) would hold.
    static func another(_ store: any Store) throws -> any Store {
        if let postgres = store as? PostgresStore { return try PostgresStore.open(postgres.address, access: .readWrite) }
        return try AppDatabase.open(path: store.path, access: .readWrite)
    }
}

/// Subscriptions, notification imports, the clock moving past a period and the game server's ledger, on
/// both backends: the same answers as the SQLite store, and one grant an order whoever receives it.
@Suite(.serialized) struct SubscriptionsContractTests {
    static let clock = StoreContractTests.demoClock
    static let monthly = "com.storedesk.starvoyage.vip.monthly"
    static let yearly = "com.storedesk.starvoyage.vip.yearly"

    @Test(arguments: Backend.allCases) func subscriptionsReadAsTheSQLiteStoreForEveryPlayer(_ backend: Backend) throws {
        let store = try ContractStores.get().wholeStore(backend)
        let reference = try ContractStores.get().sqlite()
        for row in try reference.users(matching: UserSearch(text: "")).first(limit: 100) {
            #expect(said { try store.subscriptionRecords(userId: row.id) } == said { try reference.subscriptionRecords(userId: row.id) }, "\(row.id)")
            #expect(said { try store.subscriber(named: row.id) } == said { try reference.subscriber(named: row.id) })
        }
        #expect(said { try store.subscriptionRecords(userId: "nobody") } == said { try reference.subscriptionRecords(userId: "nobody") })
        #expect(said { try store.subscriber(named: "nobody") } == said { try reference.subscriber(named: "nobody") })
        let instants = [Self.clock, Instant(millis: Self.clock.millis - 40 * 86_400_000), Instant(millis: Self.clock.millis + 70 * 86_400_000)]
        for instant in instants {
            for state in [nil] + SubscriptionSearch.order.map(Optional.some) {
                for (text, descending) in [("", false), ("", true), ("VIP", false), ("1000000", true), ("%", false), ("zz-nothing", false)] {
                    let search = SubscriptionSearch(text: text, state: state, instant: instant, descending: descending)
                    let expected = try reference.subscriptions(search).first(limit: 500)
                    let (forward, backward) = try store.subscriptions(search).walked(limit: 3)
                    #expect(forward == expected, "\(search)")
                    #expect(backward == expected, "\(search) backwards")
                    let counts = try store.subscriptionCountsAndNextChange(search)
                    let want = try reference.subscriptionCountsAndNextChange(search)
                    #expect(counts.0 == want.0 && counts.1 == want.1, "\(search)")
                    for row in expected.prefix(3) {
                        let detail = try store.subscriptionDetail(originalTransactionId: row.id)
                        let wanted = try reference.subscriptionDetail(originalTransactionId: row.id)
                        #expect(detail?.0 == wanted?.0 && detail?.1 == wanted?.1, "\(row.id)")
                        #expect(try store.subscriber(named: row.id) == reference.subscriber(named: row.id))
                    }
                }
            }
        }
        #expect(try store.subscriptionDetail(originalTransactionId: "no-such") == nil)
        for (user, product) in [("10000001", nil), ("10000005", Self.yearly), ("nobody", nil), ("10000001", "no-such-product")] {
            #expect(
                said { try store.subscriptionDemoSetup(userId: user, productId: product, at: Self.clock) }
                    == said { try reference.subscriptionDemoSetup(userId: user, productId: product, at: Self.clock) }, "\(user)")
        }
    }

    /// A file of notifications for demo players (and one nobody owns), with a repeat, a line that is no
    /// notification and a product the catalogue does not sell.
    static func notificationsFile(_ reference: AppDatabase, in folder: URL) throws -> (path: String, players: [String]) {
        let (app, products) = try #require(try reference.appsWithProducts().first { $0.app.id == "1001" })
        let start = Instant(iso8601: "2026-02-01T08:00:00Z")!
        let players = ["10000005", "10000006", "10000010"]
        var events: [SubscriptionEvent] = []
        // One simulation an Apple ID: each player's, and a stranger's whose owner is a new player named after it.
        for (index, player) in (players.map(Optional.some) + [nil]).enumerated() {
            var sim = SubscriptionSimulation(
                app: app, products: products, start: start, firstTransactionId: 2_000_000_000_000_001 + UInt64(index) * 1_000_000,
                seed: UInt64(7 + index))
            let token = try player.map { player in
                try #require(try reference.profile(userId: player).gameAccounts.first { $0.appId == "1001" }?.appAccountToken)
            }
            let id = try sim.purchase(
                index == 3 ? Self.yearly : Self.monthly, at: Instant(iso8601: "2026-03-0\(index + 1)T08:00:00Z")!, appAccountToken: token)
            if index == 1 { try sim.startBillingProblem(id, at: Instant(iso8601: "2026-03-10T08:00:00Z")!) }
            try sim.advance(to: Self.clock)
            events += sim.timeline.events
        }
        var lines = try events.sorted { $0.signedDate < $1.signedDate }.map { try $0.jsonLine() }
        lines.insert("this is no notification", at: 1)
        lines.append(lines[0])
        let sold = try #require(lines.first { $0.contains(Self.monthly) })
        let foreign = sold.replacingOccurrences(of: Self.monthly, with: "com.example.not.sold")
        lines.append(foreign)
        let path = folder.appendingPathComponent(UUID().uuidString + ".jsonl").path
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return (path, players)
    }

    @Test(arguments: Backend.allCases) func importingTheSameFileGivesTheSameRecordsAndRefusals(_ backend: Backend) throws {
        let stores = try ContractStores.get()
        let store = try stores.wholeStore(backend)
        let reference = try stores.sqlite()
        let (path, players) = try Self.notificationsFile(reference, in: stores.folder)
        let wall = Instant(iso8601: "2026-11-22T10:00:00Z")!
        var heard: [NotificationImport.Line] = [], expectedLines: [NotificationImport.Line] = []
        let report = try store.importNotifications(
            from: NotificationFile(path: path), extraRoots: [], allowUnverified: false, source: "contract.jsonl", wallClock: wall,
            stampAt: nil, each: { heard.append($0) })
        let expected = try reference.importNotifications(
            from: NotificationFile(path: path), extraRoots: [], allowUnverified: false, source: "contract.jsonl", wallClock: wall,
            stampAt: nil, each: { expectedLines.append($0) })
        #expect(report == expected)
        #expect(heard == expectedLines)
        #expect(report.imported > 0 && report.rejected > 0 && report.skipped > 0, "\(report)")
        var owners = Set(players)
        for line in expectedLines { if let user = line.userId { owners.insert(user) } }
        for user in owners.sorted() {
            #expect(try store.subscriptionRecords(userId: user) == reference.subscriptionRecords(userId: user), "\(user)")
        }
        #expect(try store.clock() == reference.clock())
        #expect(try store.userCount() == reference.userCount())
        // The same file again: every line a repeat, nothing written.
        let again = try store.importNotifications(from: NotificationFile(path: path), source: "contract.jsonl", wallClock: wall)
        #expect(again == (try reference.importNotifications(from: NotificationFile(path: path), source: "contract.jsonl", wallClock: wall)))
        #expect(again.imported == 0)
        // A file with no notification at all is refused and leaves the store as it was.
        let empty = stores.folder.appendingPathComponent(UUID().uuidString + ".jsonl").path
        try "\n\n".write(toFile: empty, atomically: true, encoding: .utf8)
        #expect(said { try store.importNotifications(from: NotificationFile(path: empty), source: "e", wallClock: wall) }
            == said { try reference.importNotifications(from: NotificationFile(path: empty), source: "e", wallClock: wall) })
        #expect(try store.check() == [])
    }

    /// A line whose transactionId, originalTransactionId or appAccountToken holds a control character is
    /// rejected with one line saying which (the id escaped) and writes nothing: no player named after it,
    /// no chain, on either backend.
    @Test(arguments: Backend.allCases) func idsWithControlCharactersMakeNoPlayer(_ backend: Backend) throws {
        let stores = try ContractStores.get()
        let store = try stores.wholeStore(backend)
        let (app, products) = try #require(try stores.sqlite().appsWithProducts().first { $0.app.id == "1001" })
        var sim = SubscriptionSimulation(
            app: app, products: products, start: Instant(iso8601: "2026-02-01T08:00:00Z")!, firstTransactionId: 2_000_000_900_000_001,
            seed: 3)
        _ = try sim.purchase(Self.monthly, at: Instant(iso8601: "2026-03-01T08:00:00Z")!, appAccountToken: nil)
        let bought = try #require(sim.timeline.events.first)
        func edited(_ uuid: String, _ edit: (inout TransactionInfo) -> Void) throws -> String {
            var event = bought
            event.notificationUUID = uuid
            var transaction = try #require(event.transaction)
            edit(&transaction)
            event.transaction = transaction
            return try event.jsonLine()
        }
        let lines = [
            try edited("c-1") { $0.originalTransactionId = "2000000900000001\nnew users: everyone" },
            try edited("c-2") { $0.transactionId = "2000000900000001\u{1B}[2J" },
            try edited("c-3") { $0.appAccountToken = "9d2c\u{0085}e1" },
        ]
        let path = stores.folder.appendingPathComponent(UUID().uuidString + ".jsonl").path
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        let users = try store.userCount()
        var heard: [NotificationImport.Line] = []
        let report = try store.importNotifications(
            from: NotificationFile(path: path), extraRoots: [], allowUnverified: true, source: "controls.jsonl",
            wallClock: Instant(iso8601: "2026-11-22T10:00:00Z")!, stampAt: nil, each: { heard.append($0) })
        #expect(report.rejected == 3 && report.imported == 0 && report.usersCreatedCount == 0, "\(report)")
        #expect(heard.map(\.outcome.reason) == [
            "originalTransactionId '2000000900000001\\nnew users: everyone' holds a control character: an id is printable text",
            "transactionId '2000000900000001\\e[2J' holds a control character: an id is printable text",
            "appAccountToken '9d2c\\u{85}e1' holds a control character: an id is printable text",
        ])
        #expect(try store.userCount() == users)
        #expect(try store.subscriptionDetail(originalTransactionId: "2000000900000001") == nil)
        #expect(try store.check() == [])
    }

    @Test(arguments: Backend.allCases) func theClockMovingOnSettlesSubscriptionsAsTheSQLiteStoreDoes(_ backend: Backend) throws {
        let store = try ContractStores.get().wholeStore(backend)
        let reference = try ContractStores.get().sqlite()
        let search = SubscriptionSearch(state: .active, instant: Self.clock)
        let active = try reference.subscriptions(search).first(limit: 500).map(\.subscription)
        let ending = try #require(active.min { $0.expiresDate < $1.expiresDate })
        #expect(ending.state == .active)
        // Past the period's end (and past the grace and retry that may follow): both write the row again.
        for later in [ending.expiresDate.adding(.days(1)), ending.expiresDate.adding(.days(90))] {
            try store.remember(clock: later)
            try reference.remember(clock: later)
            #expect(try store.clock() == reference.clock())
            #expect(try store.subscriptionRecords(userId: ending.userId) == reference.subscriptionRecords(userId: ending.userId))
        }
        let settled = try #require(try store.subscriptionRecords(userId: ending.userId).rows.first { $0.id == ending.id })
        #expect(settled.state != .active)
        // A write that stamps later moves the clock and settles too.
        let stamp = ending.expiresDate.adding(.days(400))
        try store.recordAudit(AuditEntry(at: stamp, actor: "li.na", role: "support", action: "note", subject: "x", detail: "y"))
        try reference.recordAudit(AuditEntry(at: stamp, actor: "li.na", role: "support", action: "note", subject: "x", detail: "y"))
        for row in try reference.users(matching: UserSearch(text: "")).first(limit: 100) {
            #expect(try store.subscriptionRecords(userId: row.id) == reference.subscriptionRecords(userId: row.id), "\(row.id)")
        }
        #expect(try store.check() == [])
    }

    /// A genuine App Store payment callback for `order` of app 1001.
    static func callback(_ store: any Store, order: String, at instant: Instant) throws -> ReceivedCallback {
        let (app, products) = try #require(try store.appsWithProducts().first { $0.app.id == "1001" })
        var fields = [
            "order_id": order, "payment": "appstore", "user_id": "10000001", "client_id": "1001", "app_id": "s1",
            "role_id": "r1", "product_id": Self.monthly, "timestamp": "1795161600",
        ]
        fields["sign"] = CallbackSignature.sign(fields: fields, appKey: app.appKey)
        let body = fields.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "&")
        return ReceivedCallback(
            app: app, products: products, verification: CallbackSignature.verify(body: body, appKey: app.appKey), body: body,
            peer: "127.0.0.1", receivedAt: instant)
    }

    @Test(arguments: Backend.allCases) func oneOrderIsGrantedOnceWhicheverLedgerReceivesIt(_ backend: Backend) async throws {
        let store = try ContractStores.get().wholeStore(backend)
        let other = try ContractStores.another(store)
        let first = try store.openCallbackLedger(), second = try other.openCallbackLedger()
        defer {
            first.close()
            second.close()
        }
        for round in 0..<20 {
            let order = "900000\(round)"
            let callback = try Self.callback(store, order: order, at: first.now)
            async let a = first.record(callback)
            async let b = second.record(callback)
            let outcomes = [try await a, try await b].map { decision -> String in
                switch decision.outcome {
                case .grant: "granted"
                case .duplicate: "duplicate"
                case .reject: "rejected"
                }
            }
            #expect(outcomes.sorted() == ["duplicate", "granted"], "\(order)")
            #expect([try await a, try await b].allSatisfy { $0.reply == GrantRule.successReply })
        }
        // The same order again on either: a repeat.
        let again = try await first.record(try Self.callback(store, order: "9000000", at: first.now))
        if case .duplicate = again.outcome {} else { Issue.record("a repeat was \(again.outcome)") }
        // A batch with the same order twice, and new orders: each new order granted once.
        let batch = try ["9100000", "9100000", "9100001"].map { try Self.callback(store, order: $0, at: second.now) }
        let decisions = try await withThrowingTaskGroup(of: GrantDecision.self) { group in
            for callback in batch { group.addTask { try await second.record(callback) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(decisions.filter { $0.grant != nil }.count == 2)
        let grants = try store.gameServerGrants()
        #expect(grants.count == 22)
        #expect(Set(grants.map(\.orderId)).count == 22)
        let counts = try store.gameServerCallbackCounts()
        #expect(counts.granted == 22 && counts.duplicate == 22, "\(counts)")
        #expect(try other.gameServerGrants() == grants)
        #expect(try store.check() == [])
    }
}
