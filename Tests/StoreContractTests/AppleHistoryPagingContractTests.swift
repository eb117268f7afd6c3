import Foundation
import GRDB
import StoreDeskCore
import StoreDeskPostgres
import StoreDeskSQLite
import StoreDeskStoreAPI
import Testing

/// Get Transaction History, Get Refund History and Get Transaction Info read in SQL (`appStoreSlice`) on
/// both backends, page by page, against the definition over the whole customer (`AppStoreServerAPI.history`
/// and `refunds` over `appStoreCustomer`): filters combined, both sorts, the keyset across pages of rows
/// with equal dates, the revoked filter, a page boundary exactly at 20, the last page's hasMore false.
/// Player 10000001 of app 1001 gets 40 visible transactions after the demo's (three a minute, ids out of
/// their insertion order, every fourth a renewal of the demo's subscription 2000000100000030, every
/// seventh revoked) and six Apple would not show (being bought, failed, Sandbox).
@Suite(.serialized) struct AppleHistoryPagingContractTests {
    static let base: Int64 = 1_795_000_000_000
    static let products = [
        "com.storedesk.starvoyage.gems.60", "com.storedesk.starvoyage.seasonpass.s1", "com.storedesk.starvoyage.pass.30d",
        "com.storedesk.starvoyage.vip.monthly",
    ]
    static let now = Instant(millis: StoreContractTests.demoClock.millis + 1_000)

    static func id(_ index: Int) -> String { "29000000000" + String(format: "%03d", (index * 37) % 1000) }

    /// The demo store with the player's extra transactions, as SQLite and as PostgreSQL.
    static func stores() throws -> (sqlite: AppDatabase, postgres: PostgresStore) {
        let stores = try ContractStores.get()
        let sqlite = try stores.sqlite()
        try DatabaseQueue(path: sqlite.path).write { db in
            for index in 0..<46 {
                let product = products[index % 4]
                let date = base + Int64(index / 3) * 60_000
                let revoked = index < 40 && index % 7 == 0
                let state = index < 40 ? "purchased" : ["purchasing", "failed", "deferred", "purchased", "purchased", "restored"][index - 40]
                let environment = index < 43 ? "Production" : "Sandbox"
                try db.execute(
                    sql: """
                        INSERT INTO store_transaction (id, original_transaction_id, user_id, app_id, product_id, quantity, state, failure_reason,
                          environment, sid, role_id, app_order_id, ext, purchase_date, expires_date, revocation_date, revocation_reason, finished)
                        VALUES (?, ?, '10000001', '1001', ?, 1, ?, NULL, ?, 's1', 'r10000001-1', ?, '', ?, ?, ?, ?, 1)
                        """,
                    arguments: [
                        id(index), index % 4 == 3 ? "2000000100000030" : id(index), product, state, environment, "PG\(index)", date,
                        index % 4 >= 2 ? date + 30 * 86_400_000 : nil, revoked ? date + 86_400_000 : nil,
                        revoked ? (index % 14 == 0 ? "family_sharing" : "refund") : nil,
                    ])
            }
        }
        let postgres = try PostgresStore.open(try stores.database(), access: .create)
        _ = try postgres.load(from: sqlite)
        return (sqlite, postgres)
    }

    static func query(_ items: [(String, String)]) throws -> AppStoreHistoryQuery {
        try AppStoreHistoryQuery(items: items.map { (name: $0.0, value: $0.1) })
    }

    /// Every page of `query` read in SQL from `store`, each beside the page the whole customer gives.
    static func walk(
        _ store: any AppStoreServerStore, _ customer: AppStoreCustomer, _ query: AppStoreHistoryQuery, asked: String = "2000000100000030"
    ) throws -> [(sql: AppStorePage, whole: AppStorePage)] {
        var pages: [(sql: AppStorePage, whole: AppStorePage)] = []
        var query = query
        repeat {
            let slice = try #require(try store.appStoreSlice(transactionId: asked, .history(query), limit: AppStoreServerAPI.pageSize + 1))
            pages.append((AppStoreServerAPI.history(slice, query: query, at: now), AppStoreServerAPI.history(customer, query: query, at: now)))
            query.revision = pages.last?.sql.revision
        } while pages.last?.sql.hasMore == true && pages.count < 10
        return pages
    }

    @Test(arguments: Backend.allCases) func historyPagesInSQLAsTheWholeCustomerPages(_ backend: Backend) throws {
        let (sqlite, postgres) = try Self.stores()
        let store: any AppStoreServerStore = backend == .sqlite ? sqlite : postgres
        let customer = try #require(try sqlite.appStoreCustomer(transactionId: "2000000100000030"))
        let start = String(Self.base), end = String(Self.base + 5 * 60_000)
        let queries: [[(String, String)]] = [
            [], [("sort", "DESCENDING")], [("startDate", start)], [("startDate", start), ("sort", "DESCENDING")],
            [("startDate", start), ("endDate", end), ("sort", "DESCENDING")],
            [("productType", "CONSUMABLE"), ("productType", "NON_RENEWABLE"), ("revoked", "false")],
            [("revoked", "True"), ("sort", "DESCENDING")], [("revoked", "true"), ("startDate", start)],
            [("productId", "com.storedesk.starvoyage.vip.monthly"), ("subscriptionGroupIdentifier", "starvoyage.vip")],
            [("subscriptionGroupIdentifier", "starvoyage.vip"), ("sort", "DESCENDING"), ("endDate", end)],
            [("inAppOwnershipType", "FAMILY_SHARED")],
            [("inAppOwnershipType", "PURCHASED"), ("productType", "AUTO_RENEWABLE"), ("sort", "DESCENDING")],
            [("productId", "com.storedesk.starvoyage.gems.60"), ("productId", "com.storedesk.starvoyage.seasonpass.s1"), ("startDate", start)],
            [("subscriptionGroupIdentifier", "no.such.group")],
            [("revision", "R\(Self.base + 4 * 60_000).\(Self.id(13))"), ("startDate", start)],
            [("revision", "R\(Self.base + 4 * 60_000).\(Self.id(13))"), ("sort", "DESCENDING")],
        ]
        for items in queries {
            let pages = try Self.walk(store, customer, try Self.query(items))
            for (number, page) in pages.enumerated() {
                #expect(page.sql == page.whole, "\(items) page \(number)")
            }
            #expect(pages.last?.sql.hasMore == false, "\(items)")
            let ids = pages.flatMap { $0.sql.payloads.map(\.transactionId) }
            #expect(Set(ids).count == ids.count, "\(items): a row twice")
        }
        // Every visible row after the demo's: exactly two pages of 20, the boundary inside three rows of one
        // minute, the second page's hasMore false, its revision its last row's place.
        let pages = try Self.walk(store, customer, try Self.query([("startDate", start)]))
        #expect(pages.map { $0.sql.payloads.count } == [20, 20] && pages.map(\.sql.hasMore) == [true, false])
        let dates = pages.flatMap { $0.sql.payloads.compactMap(\.purchaseDate) }
        #expect(dates[19] == dates[20] && dates == dates.sorted())
        let last = try #require(pages.last?.sql.payloads.last)
        #expect(pages.last?.sql.revision == AppStoreRevision(at: try #require(last.purchaseDate), id: try #require(last.transactionId)))
        // Asking after the last page: nothing, no more, the revision where it was.
        var after = try Self.query([("startDate", start)])
        after.revision = pages.last?.sql.revision
        let empty = try #require(try store.appStoreSlice(transactionId: "2000000100000030", .history(after), limit: 21))
        #expect(empty.rows.isEmpty && AppStoreServerAPI.history(empty, query: after, at: Self.now).revision == after.revision)
        // Exactly 20 rows: one page, no more.
        let twenty = try Self.walk(
            store, customer, try Self.query([("startDate", start), ("productType", "CONSUMABLE"), ("productType", "NON_CONSUMABLE")]))
        #expect(twenty.map { $0.sql.payloads.count } == [20] && twenty.map(\.sql.hasMore) == [false] && twenty[0].sql == twenty[0].whole)
        // Revoked rows only, newest first: each revoked, in order.
        let revoked = try Self.walk(store, customer, try Self.query([("revoked", "true"), ("startDate", start), ("sort", "DESCENDING")]))
        #expect(revoked.flatMap { $0.sql.payloads.map(\.transactionId) } == stride(from: 35, through: 0, by: -7).map(Self.id))
        // The renewals carry their original's purchase date and the chain's subscription.
        let renewal = try #require(pages.flatMap { $0.sql.payloads }.first { $0.transactionId == Self.id(3) })
        #expect(renewal.originalTransactionId == "2000000100000030" && renewal.originalPurchaseDate == Instant(millis: 1_780_480_800_000))
    }

    @Test(arguments: Backend.allCases) func refundsAndOneTransactionReadInSQLAsTheWholeCustomerReads(_ backend: Backend) throws {
        let (sqlite, postgres) = try Self.stores()
        let store: any AppStoreServerStore = backend == .sqlite ? sqlite : postgres
        let customer = try #require(try sqlite.appStoreCustomer(transactionId: Self.id(5)))
        // From the start and after each refund: the page the whole customer gives.
        let all = AppStoreServerAPI.refunds(customer, revision: nil, at: Self.now)
        #expect(all.payloads.map(\.transactionId) == stride(from: 0, through: 35, by: 7).map(Self.id) && !all.hasMore)
        let revisions: [AppStoreRevision?] = [nil] + all.payloads.map {
            AppStoreRevision(at: $0.revocationDate ?? $0.purchaseDate ?? Instant(millis: 0), id: $0.transactionId ?? "")
        }
        for revision in revisions {
            let slice = try #require(try store.appStoreSlice(transactionId: Self.id(5), .refunds(revision), limit: AppStoreServerAPI.pageSize + 1))
            #expect(
                AppStoreServerAPI.refunds(slice, revision: revision, at: Self.now) == AppStoreServerAPI.refunds(customer, revision: revision, at: Self.now),
                "\(revision?.token ?? "start")")
        }
        for id in [Self.id(3), Self.id(7), Self.id(40), Self.id(44), "2000000100000030", "2000000100000084", "2000000100000004"] {
            let one = try #require(try store.appStoreTransaction(transactionId: id))
            let whole = try #require(try sqlite.appStoreCustomer(transactionId: id))
            #expect(
                said { try AppStoreServerAPI.transaction(one, at: Self.now) } == said { try AppStoreServerAPI.transaction(whole, at: Self.now) },
                "\(id)")
            #expect(one.purchases.count <= 2 && one.environment == whole.environment && one.app == whole.app)
        }
        #expect(try store.appStoreTransaction(transactionId: "no-such") == nil)
        #expect(try store.appStoreSlice(transactionId: "no-such", .history(AppStoreHistoryQuery()), limit: 21) == nil)
    }

    /// SQLite seeks each page on its index, in its order: no scan of the player's rows, no sort.
    @Test func sqliteSeeksEachPageOnItsIndex() throws {
        let (sqlite, _) = try Self.stores()
        let asked = try #require(try sqlite.appStoreCustomer(transactionId: "2000000100000030")).purchases[0].transaction
        let revision = AppStoreRevision(at: Instant(millis: Self.base), id: Self.id(1))
        var query = try Self.query([("productType", "CONSUMABLE"), ("revoked", "false"), ("startDate", String(Self.base))])
        query.revision = revision
        var descending = query
        descending.descending = true
        for (read, index) in [
            (AppStoreSliceRead.history(query), "transaction_by_customer"), (.history(descending), "transaction_by_customer"),
            (.refunds(revision), "transaction_revoked_by_customer"),
        ] {
            let statement = try #require(AppStoreSlicePlan.rows(read, asked: asked, limit: 21))
            let plan = try DatabaseQueue(path: sqlite.path).read { db in
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + statement.sql, arguments: StatementArguments(statement.arguments.map { value in
                    switch value {
                    case .text(let text): text as any DatabaseValueConvertible
                    case .integer(let number): number
                    }
                })).map { $0["detail"] as String }
            }
            #expect(plan.first?.hasPrefix("SEARCH t USING INDEX \(index) (app_id=? AND user_id=?") == true, "\(plan)")
            #expect(!plan.contains { $0.contains("TEMP B-TREE") || $0.hasPrefix("SCAN") }, "\(plan)")
        }
    }

    @Test(arguments: Backend.allCases) func massExtensionStatusesAreKeptOnceAndReadBack(_ backend: Backend) throws {
        let store = try AppleAPIContractTests.store(backend)
        let product = "com.storedesk.starvoyage.vip.monthly"
        let first = MassRenewalExtensionStatus("outage-7", completed: Self.now, succeeded: 4, failed: 1)
        #expect(try store.massExtension(appId: "1001", productId: product, requestIdentifier: "outage-7") == nil)
        #expect(try store.keepMassExtension(first, appId: "1001", productId: product, actor: .apiKey("K")) == first)
        var second = first
        second.succeededCount = 9
        second.completed = Instant(millis: Self.now.millis + 5_000)
        #expect(try store.keepMassExtension(second, appId: "1001", productId: product, actor: .apiKey("K")) == first)
        #expect(try store.massExtension(appId: "1001", productId: product, requestIdentifier: "outage-7") == first)
        let another = try ContractStores.another(store)
        #expect(try (another as? any AppStoreServerStore)?.massExtension(appId: "1001", productId: product, requestIdentifier: "outage-7") == first)
        #expect(try store.massExtension(appId: "1002", productId: product, requestIdentifier: "outage-7") == nil)
        #expect(try store.massExtension(appId: "1001", productId: "other", requestIdentifier: "outage-7") == nil)
        // Stamped on the store's time line: never before its clock.
        var early = first
        early.requestIdentifier = "early"
        early.completed = Instant(millis: 0)
        let kept = try store.keepMassExtension(early, appId: "1001", productId: product, actor: .apiKey("K"))
        #expect(kept.completed >= StoreContractTests.demoClock)
    }
}
