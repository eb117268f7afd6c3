import Foundation
import GRDB
import StoreDeskCore
import Testing

@testable import StoreDeskSQLite

/// A StoreKit configuration built at test time for app 2001 ("星尘"): one product of each type, a group
/// of two levels, an offer of each kind, Chinese names, a key no Xcode writes. `change` edits the
/// object before it is written, so a test can make the next version of the file.
enum StoreKitFileBuilder {
    static let bundleId = "com.example.xingchen"
    static let monthly = "com.example.xingchen.vip.monthly"

    static func object() -> [String: Any] {
        func names(_ zh: String, _ en: String) -> [[String: Any]] {
            [["locale": "zh_Hans", "displayName": zh, "description": zh + "说明"], ["locale": "en_US", "displayName": en, "description": ""]]
        }
        func product(_ id: String, _ type: String, _ price: String, _ zh: String, _ en: String) -> [String: Any] {
            ["productID": id, "type": type, "displayPrice": price, "familyShareable": false, "internalID": "ID-" + id,
             "referenceName": en, "localizations": names(zh, en)]
        }
        func offer(_ mode: String, _ period: String, price: String? = nil, extra: [String: Any] = [:]) -> [String: Any] {
            var offer: [String: Any] = ["paymentMode": mode, "subscriptionPeriod": period, "internalID": "O-\(mode)-\(period)"]
            if let price { offer["displayPrice"] = price }
            return offer.merging(extra) { $1 }
        }
        var monthly = product(monthly, "RecurringSubscription", "30", "月度会员", "Monthly VIP")
        monthly["groupNumber"] = 2
        monthly["recurringSubscriptionPeriod"] = "P1M"
        monthly["subscriptionGroupID"] = "G1"
        monthly["familyShareable"] = true
        monthly["introductoryOffer"] = offer("free", "P1W")
        monthly["adHocOffers"] = [offer("payAsYouGo", "P1M", price: "15", extra: ["offerID": "half", "numberOfPeriods": 2])]
        monthly["codeOffers"] = [offer("payUpFront", "P3M", price: "60", extra: ["eligibility": ["new"], "isStackable": true])]
        monthly["winbackOffers"] = [offer("free", "P1M", extra: ["offerID": "comeback", "isEligible": true])]
        var yearly = product("com.example.xingchen.vip.yearly", "RecurringSubscription", "298", "年度会员", "Yearly VIP")
        yearly["groupNumber"] = 1
        yearly["recurringSubscriptionPeriod"] = "P1Y"
        yearly["introductoryOffer"] = NSNull()
        return [
            "identifier": "ABCD0001",
            "version": ["major": 4, "minor": 0],
            "products": [
                product("com.example.xingchen.gems.60", "Consumable", "6", "60 星钻", "60 Gems"),
                product("com.example.xingchen.skin", "NonConsumable", "68", "星舰皮肤", "Ship Skin"),
            ],
            "nonRenewingSubscriptions": [product("com.example.xingchen.pass", "NonRenewingSubscription", "98", "月卡", "Month Pass")],
            "subscriptionGroups": [
                ["id": "G1", "name": "VIP", "localizations": [["locale": "zh_Hans", "displayName": "会员", "description": ""]],
                 "subscriptions": [monthly, yearly]],
            ],
            "settings": ["_storefront": "CHN", "_locale": "zh_Hans", "_timeRate": 13, "_askToBuyEnabled": true, "_newSwitch": 1],
        ]
    }

    static func data(_ change: (inout [String: Any]) -> Void = { _ in }) throws -> Data {
        var object = object()
        change(&object)
        return try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
    }

    static func configuration(_ change: (inout [String: Any]) -> Void = { _ in }) throws -> StoreKitConfiguration {
        try StoreKitConfiguration.read(data(change))
    }
}

@Suite struct CatalogueStoreTests {
    static let developer = StaffMember(name: "wei.dev", role: .developer)
    static let now = at("2026-11-22T10:00:00Z")

    /// The demo store with app 2001 added for the file.
    static func store(at path: String? = nil) throws -> AppDatabase {
        let store = try path.map { try Fixtures.demoStore(at: $0) } ?? {
            let store = try AppDatabase.inMemory()
            try store.write { try DemoDatasetLoader.insert(Fixtures.demo(), into: $0) }
            return store
        }()
        try store.addApp(
            App(id: "2001", name: "星尘", bundleId: StoreKitFileBuilder.bundleId, appKey: "0123456789abcdef", currencyPerYuan: 10,
                restoreOwnership: .transfer, gracePeriodDays: 16),
            by: developer, at: now)
        return store
    }

    @Test func eachFileProductBecomesTheProductRowTheRestOfStoreDeskUses() throws {
        let store = try Self.store()
        let file = try StoreKitFileBuilder.configuration()
        let report = try store.importCatalogue(file, appId: "2001", source: "Products.storekit", by: Self.developer, at: Self.now)
        #expect(report.added.count == 5 && report.updated.isEmpty && report.unchanged.isEmpty)
        #expect(report.unknownKeys == ["settings._newSwitch"])
        #expect(report.currency == "CNY")
        let products = try store.reader.read { try Product.fetchAll($0, sql: "SELECT * FROM product WHERE app_id = '2001' ORDER BY id") }
        #expect(products == [
            Product(id: "com.example.xingchen.gems.60", appId: "2001", name: "60 星钻", type: .consumable, priceCents: 600, currency: "CNY"),
            Product(id: "com.example.xingchen.pass", appId: "2001", name: "月卡", type: .nonRenewing, priceCents: 9800, currency: "CNY"),
            Product(id: "com.example.xingchen.skin", appId: "2001", name: "星舰皮肤", type: .nonConsumable, priceCents: 6800, currency: "CNY"),
            Product(
                id: StoreKitFileBuilder.monthly, appId: "2001", name: "月度会员", type: .autoRenewable, priceCents: 3000, currency: "CNY",
                subscriptionGroup: "G1", period: .oneMonth),
            Product(
                id: "com.example.xingchen.vip.yearly", appId: "2001", name: "年度会员", type: .autoRenewable, priceCents: 29800,
                currency: "CNY", subscriptionGroup: "G1", period: .oneYear),
        ])
        // Every detail of the file reads back as it went in.
        let catalogue = try store.catalogue(appId: "2001")
        #expect(catalogue.entries.map(\.details) == file.products.map { Optional($0) })
        #expect(catalogue.groups == file.groups)
        #expect(catalogue.subscriptions(inGroup: "G1").map(\.product.id) == ["com.example.xingchen.vip.yearly", StoreKitFileBuilder.monthly])
        #expect(catalogue.source?.settings == file.settings)
        #expect(catalogue.source?.file == "Products.storekit")
        // The file's settings reach the simulators.
        #expect(try store.paymentCatalogue().storeKitTesting == ["2001": StoreKitPurchaseTesting(askToBuy: true, failTransactions: false)])
        #expect(try store.storeKitTimeRate(appId: "2001")?.timeRate == .monthEvery5Minutes)
        #expect(try store.storeKitTimeRate(appId: "1001") == nil)
        let audit = try store.reader.read { try AuditEntry.fetchAll($0, sql: "SELECT * FROM audit_log WHERE action = 'catalog.import'") }
        #expect(audit.map(\.detail) == ["Products.storekit (StoreKit 4.0): \(report.summary)"])
        #expect(try store.check().isEmpty)
    }

    @Test func importingAgainUpdatesWhatChangedAndKeepsWhatTheFileDropped() throws {
        let store = try Self.store()
        _ = try store.importCatalogue(try StoreKitFileBuilder.configuration(), appId: "2001", source: "a.storekit", by: Self.developer, at: Self.now)
        let same = try store.importCatalogue(try StoreKitFileBuilder.configuration(), appId: "2001", source: "a.storekit", by: Self.developer, at: Self.now)
        #expect(same.unchanged.count == 5 && same.added.isEmpty && same.updated.isEmpty && same.notInFile.isEmpty)
        // The next version: the skin costs more, the pass is gone, a new pack, the monthly loses its offers.
        let next = try StoreKitFileBuilder.configuration { file in
            var products = file["products"] as? [[String: Any]] ?? []
            products[1]["displayPrice"] = "88"
            products.append(["productID": "com.example.xingchen.gems.300", "type": "Consumable", "displayPrice": "30"])
            file["products"] = products
            file["nonRenewingSubscriptions"] = [[String: Any]]()
            var groups = file["subscriptionGroups"] as? [[String: Any]] ?? []
            var subscriptions = groups[0]["subscriptions"] as? [[String: Any]] ?? []
            subscriptions[0]["adHocOffers"] = [[String: Any]]()
            groups[0]["subscriptions"] = subscriptions
            file["subscriptionGroups"] = groups
        }
        let report = try store.importCatalogue(next, appId: "2001", source: "b.storekit", by: Self.developer, at: Self.now)
        #expect(report.added == ["com.example.xingchen.gems.300"])
        #expect(report.updated.sorted() == ["com.example.xingchen.skin", StoreKitFileBuilder.monthly])
        #expect(report.unchanged.sorted() == ["com.example.xingchen.gems.60", "com.example.xingchen.vip.yearly"])
        #expect(report.notInFile == ["com.example.xingchen.pass"])
        let catalogue = try store.catalogue(appId: "2001")
        #expect(catalogue.entries.first { $0.product.id == "com.example.xingchen.skin" }?.product.priceCents == 8800)
        // The dropped product stays (purchases may refer to it) without the file's details.
        let pass = try #require(catalogue.entries.first { $0.product.id == "com.example.xingchen.pass" })
        #expect(pass.details == nil)
        let monthly = try #require(catalogue.entries.first { $0.product.id == StoreKitFileBuilder.monthly })
        #expect(monthly.details?.subscription?.offers.map(\.type) == [.introductory, .offerCode, .winBack])
        #expect(catalogue.source?.file == "b.storekit")
    }

    @Test func aRealNotificationForAnImportedProductImports() throws {
        let store = try Self.store()
        let line = SubscriptionImportTests.line(
            "SUBSCRIBED", "INITIAL_BUY", uuid: "a7d1c0de-0000-4000-8000-000000000001", signed: "11-01", original: "470000000000001",
            product: StoreKitFileBuilder.monthly, bundle: StoreKitFileBuilder.bundleId, purchased: "11-01", expires: "12-01")
        let before = try SubscriptionImportTests.importing(line, into: store)
        #expect(before.lines.first?.outcome == .rejected("unknown product '\(StoreKitFileBuilder.monthly)': add it with storedesk catalog import FILE.storekit --app APP"))
        _ = try store.importCatalogue(try StoreKitFileBuilder.configuration(), appId: "2001", source: "a.storekit", by: Self.developer, at: Self.now)
        let after = try SubscriptionImportTests.importing(line, into: store)
        #expect(after.imported == 1, "\(after.lines)")
        let row = try #require(try SubscriptionImportTests.row(store, "470000000000001"))
        #expect(row.appId == "2001" && row.groupId == "G1" && row.productId == StoreKitFileBuilder.monthly)
    }

    /// Each refusal leaves the store file byte for byte as it was.
    @Test func refusalsWriteNothing() throws {
        let folder = TemporaryFolder()
        let path = folder.path("store.sqlite")
        let store = try Self.store(at: path)
        let file = try StoreKitFileBuilder.configuration()
        try store.close()
        let before = Fixtures.checksum(path)
        let database = try AppDatabase.open(path: path, access: .readWrite)
        #expect(throws: StoreError.self) {
            try database.importCatalogue(file, appId: "9999", source: "a.storekit", by: Self.developer, at: Self.now)
        }
        #expect(throws: StoreError.invalidArgument("only a developer may change an app's catalogue (li (support))")) {
            try database.importCatalogue(
                file, appId: "2001", source: "a.storekit", by: StaffMember(name: "li", role: .support), at: Self.now)
        }
        // A product id the demo's app 1001 already has.
        let taken = try StoreKitFileBuilder.configuration { file in
            var products = file["products"] as? [[String: Any]] ?? []
            products[0]["productID"] = "com.storedesk.starvoyage.gems.60"
            file["products"] = products
        }
        #expect(throws: StoreError.self) {
            try database.importCatalogue(taken, appId: "2001", source: "a.storekit", by: Self.developer, at: Self.now)
        }
        do {
            _ = try database.importCatalogue(taken, appId: "2001", source: "a.storekit", by: Self.developer, at: Self.now)
        } catch {
            #expect("\(error)".hasPrefix("product 'com.storedesk.starvoyage.gems.60' already belongs to app 1001 (星海征途)"))
        }
        try database.close()
        #expect(Fixtures.checksum(path) == before)
        let readOnly = try AppDatabase.open(path: path, access: .readOnly)
        #expect(throws: StoreError.self) {
            try readOnly.importCatalogue(file, appId: "2001", source: "a.storekit", by: Self.developer, at: Self.now)
        }
    }

    @Test func aStoreWithoutTheCatalogueTablesUpgradesAndKeepsItsProducts() throws {
        let folder = TemporaryFolder()
        let path = folder.path("v12.sqlite")
        let queue = try DatabaseQueue(path: path)
        try SQLiteMigrations.migrator.migrate(queue, upTo: "v12-app-callback-url")
        try queue.write { db in
            try db.execute(sql: """
                INSERT INTO app (id, name, bundle_id, app_key, currency_per_yuan, restore_ownership, grace_period_days)
                VALUES ('7', 'g', 'com.example.g', 'k', 1, 'keep', 0);
                INSERT INTO product (id, app_id, name, type, price_cents, currency) VALUES ('p', '7', 'P', 'consumable', 100, 'CNY');
                """)
        }
        try queue.close()
        let store = try AppDatabase.open(path: path, access: .readWrite, migrate: true)
        let catalogue = try store.catalogue(appId: "7")
        #expect(catalogue.source == nil)
        #expect(catalogue.entries.map(\.product.id) == ["p"])
        #expect(catalogue.entries.first?.details == nil)
        #expect(try store.check().isEmpty)
    }

    @Test func appsAreAddedAndChangedByDevelopersWithAnAuditLineAndTheKeyMasked() throws {
        let store = try Self.store()
        var settings = AppSettings()
        settings.appKey = "fedcba9876543210"
        settings.callbackURL = .some("https://game.example/callback")
        settings.environments = .sandbox
        let change = try #require(try store.updateApp(id: "2001", settings, by: Self.developer, at: Self.now))
        #expect(change.new.callbackURL == "https://game.example/callback")
        #expect(try store.updateApp(id: "2001", settings, by: Self.developer, at: Self.now) == nil)
        let audit = try store.reader.read { try AuditEntry.fetchAll($0, sql: "SELECT * FROM audit_log WHERE subject = 'app 2001' ORDER BY id") }
        #expect(audit.map(\.action) == ["app.add", "app.set"])
        #expect(audit.allSatisfy { !$0.detail.contains("0123456789abcdef") && !$0.detail.contains("fedcba9876543210") })
        #expect(audit[1].detail == "app key 0123****ef → fedc****10; environment both → sandbox; callback url none → https://game.example/callback")
        #expect(throws: StoreError.self) {
            try store.addApp(change.new, by: Self.developer, at: Self.now)
        }
        #expect(throws: StoreError.invalidArgument("only a developer may change an app's settings (op (operator))")) {
            try store.updateApp(id: "2001", settings, by: StaffMember(name: "op", role: .operator), at: Self.now)
        }
        #expect(throws: StoreError.self) { try store.updateApp(id: "nope", settings, by: Self.developer, at: Self.now) }
    }
}
