import Foundation
import StoreDeskCore
import StoreDeskPostgres
import StoreDeskSQLite
import StoreDeskStoreAPI
import Testing

/// The areas these contract files test beside the console's: apps and catalogues, trusted roots, `check`,
/// the time line, player lookup, the restore desk's commands and the audit log as commands read it.
typealias CommandsContractStore = ContractStore & AppsStore & CatalogueStore & TrustRootStore & StoreChecking & StoreTimeLine
    & PlayerLookup & RestoreDeskStore & AuditLogStore

extension ContractStores {
    /// A demo store of its own on `backend`, with the commands' areas.
    func commandsStore(_ backend: Backend) throws -> any CommandsContractStore {
        switch backend {
        case .sqlite: try sqlite()
        case .postgres: try postgres()
        }
    }
}

/// What a call answered, or its refusal, as one comparable line.
func said<T>(_ body: () throws -> T) -> String {
    do { return "ok \(try body())" } catch { return "refused: \(error)" }
}

/// Apps and their catalogues on both backends: the same reads of the demo store, and writes that decide,
/// refuse and audit as the SQLite store does.
@Suite(.serialized) struct AppsContractTests {
    static let developer = StaffMember(name: "zhao.dev", role: .developer)
    static let support = StaffMember(name: "li.na", role: .support)
    static let at = Instant(millis: StoreContractTests.demoClock.millis + 60_000)

    @Test(arguments: Backend.allCases) func appsAndCataloguesReadAsTheSQLiteStore(_ backend: Backend) throws {
        let store = try ContractStores.get().commandsStore(backend)
        let reference = try ContractStores.get().sqlite()
        #expect(try store.appOverviews() == reference.appOverviews())
        for id in ["1001", "1002", "1003", "9"] {
            #expect(try store.app(id: id) == reference.app(id: id), "\(id)")
            #expect(said { try store.appOverview(id: id) } == said { try reference.appOverview(id: id) }, "\(id)")
            #expect(said { try store.catalogue(appId: id) } == said { try reference.catalogue(appId: id) }, "\(id)")
            #expect(try store.storeKitTimeRate(appId: id) == reference.storeKitTimeRate(appId: id), "\(id)")
        }
        let expected = try reference.appsWithProducts()
        let got = try store.appsWithProducts()
        #expect(got.map(\.app) == expected.map(\.app))
        #expect(got.map(\.products) == expected.map(\.products))
        for product in expected.flatMap(\.products) {
            #expect(try store.product(id: product.id) == product)
        }
        #expect(try store.product(id: "no-such") == nil)
    }

    @Test(arguments: Backend.allCases) func appWritesDecideRefuseAndAuditAsTheSQLiteStore(_ backend: Backend) throws {
        let store = try ContractStores.get().commandsStore(backend)
        let reference = try ContractStores.get().sqlite()
        let new = App(
            id: "2001", name: "星尘", bundleId: "com.example.xingchen", appKey: "0123456789ABCDEF0123456789ABCDEF", currencyPerYuan: 10,
            restoreOwnership: .keep, gracePeriodDays: 16, appleAppId: 6_444_000_001, environments: .sandbox,
            callbackURL: "https://game.example.com/pay")
        let adds: [(App, StaffMember)] = [(new, Self.support), (new, Self.developer), (new, Self.developer)]
        for (app, staff) in adds {
            #expect(said { try store.addApp(app, by: staff, at: Self.at) } == said { try reference.addApp(app, by: staff, at: Self.at) }, "\(staff.role)")
        }
        var rename = AppSettings()
        rename.name = "星尘 2"
        rename.callbackURL = .some(nil)
        rename.gracePeriodDays = 3
        var nothing = AppSettings()
        nothing.name = "星尘 2"
        let updates: [(String, AppSettings, StaffMember)] = [
            ("2001", rename, Self.support), ("2001", rename, Self.developer), ("2001", nothing, Self.developer), ("9", rename, Self.developer),
        ]
        for (id, settings, staff) in updates {
            let expected = said { try reference.updateApp(id: id, settings, by: staff, at: Self.at).map { "\($0.old) -> \($0.new)" } }
            #expect(said { try store.updateApp(id: id, settings, by: staff, at: Self.at).map { "\($0.old) -> \($0.new)" } } == expected, "\(id) \(staff.role)")
        }
        #expect(try store.appOverviews() == reference.appOverviews())
        #expect(try store.auditEntries(action: "app", limit: 10).map(Self.line) == reference.auditEntries(action: "app", limit: 10).map(Self.line))
    }

    @Test(arguments: Backend.allCases) func catalogueImportsDecideRefuseAndAuditAsTheSQLiteStore(_ backend: Backend) throws {
        let store = try ContractStores.get().commandsStore(backend)
        let reference = try ContractStores.get().sqlite()
        let file = try StoreKitFile.configuration()
        let cheaper = try StoreKitFile.configuration(price: "3", dropSkin: true)
        let taken = try StoreKitFile.configuration(productId: try #require(try reference.catalogue(appId: "1002").entries.first?.product.id))
        let imports: [(StoreKitConfiguration, String, StaffMember)] = [
            (file, "1001", Self.support), (file, "9", Self.developer), (file, "1001", Self.developer), (file, "1001", Self.developer),
            (cheaper, "1001", Self.developer), (taken, "1001", Self.developer),
        ]
        for (index, (configuration, app, staff)) in imports.enumerated() {
            let source = "contract-\(index).storekit"
            let expected = said { try reference.importCatalogue(configuration, appId: app, source: source, by: staff, at: Self.at) }
            let got = said { try store.importCatalogue(configuration, appId: app, source: source, by: staff, at: Self.at) }
            #expect(got == expected, "import \(index)")
        }
        for id in ["1001", "1002"] {
            #expect(try store.catalogue(appId: id) == reference.catalogue(appId: id), "\(id)")
            #expect(try store.storeKitTimeRate(appId: id) == reference.storeKitTimeRate(appId: id), "\(id)")
        }
        #expect(try store.appOverviews() == reference.appOverviews())
        #expect(
            try store.auditEntries(action: "catalog", limit: 10).map(Self.line) == reference.auditEntries(action: "catalog", limit: 10).map(Self.line))
    }

    static func line(_ entry: AuditEntry) -> String { "\(entry.at.millis) \(entry.actor) \(entry.role) \(entry.action) \(entry.subject): \(entry.detail)" }
}

/// A small StoreKit configuration for app 1001: a consumable, a non-consumable and a subscription group
/// with an introductory offer, Chinese names, settings that change the time rate.
enum StoreKitFile {
    static func configuration(price: String = "6", dropSkin: Bool = false, productId: String = "com.example.xinghai.gems.60") throws
        -> StoreKitConfiguration
    {
        func product(_ id: String, _ type: String, _ price: String, _ name: String) -> [String: Any] {
            [
                "productID": id, "type": type, "displayPrice": price, "familyShareable": false, "internalID": "ID-" + id, "referenceName": id,
                "localizations": [["locale": "zh_Hans", "displayName": name, "description": name + "说明"]],
            ]
        }
        var monthly = product("com.example.xinghai.vip.monthly", "RecurringSubscription", "30", "月度会员")
        monthly["groupNumber"] = 1
        monthly["recurringSubscriptionPeriod"] = "P1M"
        monthly["subscriptionGroupID"] = "G1"
        monthly["introductoryOffer"] = ["paymentMode": "free", "subscriptionPeriod": "P1W", "internalID": "O-free"]
        var products = [product(productId, "Consumable", price, "60 星钻")]
        if !dropSkin { products.append(product("com.example.xinghai.skin", "NonConsumable", "68", "星舰皮肤")) }
        let object: [String: Any] = [
            "identifier": "CONTRACT1", "version": ["major": 4, "minor": 0], "products": products,
            "subscriptionGroups": [["id": "G1", "name": "VIP", "localizations": [], "subscriptions": [monthly]]],
            "settings": ["_storefront": "CHN", "_locale": "zh_Hans", "_timeRate": 13, "_failTransactionsEnabled": true],
        ]
        return try StoreKitConfiguration.read(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
    }
}
