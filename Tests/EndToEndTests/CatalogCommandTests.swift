import Foundation
import Testing

/// `storedesk catalog import|show` through the real binary, on StoreKit files written here.
@Suite struct CatalogCommandTests {
    static let developer = ["--role", "developer", "--as", "wei.dev"]
    static let monthly = "com.example.longmai.vip.monthly"

    /// A small Xcode-layout file for app 2001: a consumable, a non-consumable, a non-renewing pass and a
    /// group of two auto-renewables with offers of each kind, Chinese names first, one key no Xcode writes.
    static func storeKitText(monthlyPrice: String = "30") -> String {
        func product(_ id: String, _ type: String, _ price: String, _ name: String, extra: String = "") -> String {
            """
            {\(extra) "displayPrice" : "\(price)", "familyShareable" : false, "internalID" : "\(id.suffix(8))",
              "localizations" : [ { "description" : "", "displayName" : "\(name)", "locale" : "zh_Hans" },
                                  { "description" : "", "displayName" : "\(id)", "locale" : "en_US" } ],
              "productID" : "\(id)", "referenceName" : "\(id)", "type" : "\(type)" }
            """
        }
        let monthly = product(
            Self.monthly, "RecurringSubscription", monthlyPrice, "龙脉月卡会员",
            extra: """
                "adHocOffers" : [ { "displayPrice" : "15", "internalID" : "A1", "numberOfPeriods" : 2, "offerID" : "half",
                  "paymentMode" : "payAsYouGo", "referenceName" : "half", "subscriptionPeriod" : "P1M" } ],
                "codeOffers" : [ { "eligibility" : [ "new" ], "internalID" : "C1", "isStackable" : true, "paymentMode" : "free",
                  "referenceName" : "code", "subscriptionPeriod" : "P2W" } ],
                "winbackOffers" : [ { "displayPrice" : "40", "internalID" : "W1", "isEligible" : true, "offerID" : "back",
                  "paymentMode" : "payUpFront", "referenceName" : "back", "subscriptionPeriod" : "P2M" } ],
                "introductoryOffer" : { "internalID" : "I1", "paymentMode" : "free", "subscriptionPeriod" : "P1W" },
                "groupNumber" : 2, "recurringSubscriptionPeriod" : "P1M", "subscriptionGroupID" : "LM01", "newXcodeKey" : 1,
                """)
        let yearly = product(
            "com.example.longmai.vip.yearly", "RecurringSubscription", "298", "龙脉年卡会员",
            extra: "\"groupNumber\" : 1, \"recurringSubscriptionPeriod\" : \"P1Y\", \"introductoryOffer\" : null,")
        return """
            {
              "identifier" : "LM000001",
              "nonRenewingSubscriptions" : [ \(product("com.example.longmai.pass", "NonRenewingSubscription", "45", "通行证")) ],
              "products" : [ \(product("com.example.longmai.jade.60", "Consumable", "6", "60 玉")),
                             \(product("com.example.longmai.map", "NonConsumable", "12", "藏宝图")) ],
              "settings" : { "_askToBuyEnabled" : false, "_failTransactionsEnabled" : true, "_locale" : "zh_Hans",
                             "_storefront" : "CHN", "_timeRate" : 13 },
              "subscriptionGroups" : [ { "id" : "LM01", "localizations" : [ ], "name" : "龙脉会员",
                                         "subscriptions" : [ \(monthly), \(yearly) ] } ],
              "version" : { "major" : 4, "minor" : 0 }
            }

            """
    }

    /// The demo store with app 2001 (bundle com.example.longmai), and the store's path.
    static func storeWithApp(_ home: TemporaryHome) throws -> String {
        let key = home.path("app.key")
        try Data("longmai-app-key-0001\n".utf8).write(to: URL(fileURLWithPath: key))
        let add = try Binary.run(
            ["apps", "add", "2001", "--name", "龙脉", "--bundle-id", "com.example.longmai", "--app-key-file", key] + Self.developer,
            home: home)
        #expect(add.status == 0, "\(add.stderr)")
        return home.defaultStore
    }

    static func write(_ text: String, _ name: String, in home: TemporaryHome) throws -> String {
        let path = home.path(name)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func object(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func importShowAndImportAgain() throws {
        let home = TemporaryHome()
        let store = try Self.storeWithApp(home)
        let file = try Self.write(Self.storeKitText(), "LongMai.storekit", in: home)
        let first = try Binary.run(["catalog", "import", file, "--app", "2001", "--json"] + Self.developer, home: home)
        #expect(first.status == 0, "\(first.stderr)")
        let report = try Self.object(first.stdout)
        #expect(Set(report.keys) == [
            "app", "file", "store", "identifier", "version", "storefront", "currency", "products", "groups", "offers", "locales",
            "applied_settings", "unknown_keys", "not_kept", "notes",
        ])
        #expect(report["store"] as? String == store)
        #expect(report["currency"] as? String == "CNY")
        let products = try #require(report["products"] as? [String: [String]])
        #expect(products["added"]?.count == 5)
        #expect(report["offers"] as? [String: Int] == ["introductory": 1, "promotional": 1, "offer_code": 1, "win_back": 1])
        #expect(report["unknown_keys"] as? [String] == ["subscriptionGroups[0].subscriptions[0].newXcodeKey"])
        #expect(report["locales"] as? [String] == ["en_US", "zh_Hans"])
        #expect((report["applied_settings"] as? [String])?.count == 2)

        let again = try Binary.run(["catalog", "import", file, "--app", "2001"] + Self.developer, home: home)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.contains("5 products (0 added, 0 updated, 5 unchanged), 1 group, 4 offers; 1 unknown key skipped"))
        #expect(again.stdout.contains("skipped    unknown key subscriptionGroups[0].subscriptions[0].newXcodeKey"))
        let cheaper = try Self.write(Self.storeKitText(monthlyPrice: "25"), "LongMai-2.storekit", in: home)
        let update = try Binary.run(["catalog", "import", cheaper, "--app", "2001", "--json"] + Self.developer, home: home)
        #expect((try Self.object(update.stdout)["products"] as? [String: [String]])?["updated"] == [Self.monthly])

        let show = try Binary.run(["catalog", "show", "--app", "2001", "--json"], home: home)
        #expect(show.status == 0, "\(show.stderr)")
        let catalogue = try Self.object(show.stdout)
        #expect(Set(catalogue.keys) == ["app", "source", "settings", "groups", "products"])
        let settings = try #require(catalogue["settings"] as? [String: Any])
        #expect(settings["time_rate"] as? Int == 13)
        #expect(settings["storedesk_time_rate"] as? String == "1 month every 5m 0s")
        #expect(settings["fail_transactions"] as? Bool == true)
        let groups = try #require(catalogue["groups"] as? [[String: Any]])
        #expect(groups.first?["subscriptions"] as? [String] == ["com.example.longmai.vip.yearly", Self.monthly])
        let rows = try #require(catalogue["products"] as? [[String: Any]])
        let monthlyRow = try #require(rows.first { $0["id"] as? String == Self.monthly })
        #expect(monthlyRow["name"] as? String == "龙脉月卡会员")
        #expect(monthlyRow["price"] as? String == "¥25.00")
        #expect(monthlyRow["from_file"] as? Bool == true)
        let subscription = try #require(monthlyRow["subscription"] as? [String: Any])
        #expect(subscription["level"] as? Int == 2)
        let offers = try #require(subscription["offers"] as? [[String: Any]])
        #expect(offers.map { $0["type"] as? String } == ["introductory", "promotional", "offer_code", "win_back"])
        #expect(offers.map { $0["payment_mode"] as? String } == ["free_trial", "pay_as_you_go", "free_trial", "pay_up_front"])
        let text = try Binary.run(["catalog", "show", "--app", "2001"], home: home)
        #expect(text.stdout.contains("subscription group LM01 \"龙脉会员\""))
        #expect(text.stdout.contains("promotional half: 15 each 1 month for 2 periods"))
        let apps = try Binary.run(["apps", "show", "2001", "--json"], home: home)
        #expect((try Self.object(apps.stdout)["catalogue"] as? [String: Any])?["file"] as? String == "LongMai-2.storekit")
    }

    /// A Japanese storefront's yen have no minor unit: "120" in the file is shown "JPY 120", as the App
    /// Store shows it, not "JPY 120.00" nor a hundredfold price (¥ stays CNY's symbol).
    @Test func yenPricesShowWithoutDecimals() throws {
        let home = TemporaryHome()
        _ = try Self.storeWithApp(home)
        let text = Self.storeKitText(monthlyPrice: "120").replacingOccurrences(of: "\"CHN\"", with: "\"JPN\"")
        let file = try Self.write(text, "LongMai-JP.storekit", in: home)
        let imported = try Binary.run(["catalog", "import", file, "--app", "2001", "--json"] + Self.developer, home: home)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(try Self.object(imported.stdout)["currency"] as? String == "JPY")
        let show = try Binary.run(["catalog", "show", "--app", "2001", "--json"], home: home)
        let rows = try #require(try Self.object(show.stdout)["products"] as? [[String: Any]])
        let prices = Dictionary(uniqueKeysWithValues: rows.compactMap { row in
            (row["id"] as? String).map { ($0, row["price"] as? String ?? "") }
        })
        #expect(prices[Self.monthly] == "JPY 120")
        #expect(prices["com.example.longmai.jade.60"] == "JPY 6")
        #expect(prices["com.example.longmai.vip.yearly"] == "JPY 298")
        let plain = try Binary.run(["catalog", "show", "--app", "2001"], home: home)
        #expect(plain.stdout.contains("JPY 120"))
        #expect(!plain.stdout.contains("JPY 120.00") && !plain.stdout.contains("12000"))
    }

    @Test func aRealNotificationForAnImportedProductImports() throws {
        let home = TemporaryHome()
        _ = try Self.storeWithApp(home)
        let line = """
            {"notificationType":"SUBSCRIBED","subtype":"INITIAL_BUY","notificationUUID":"5f1e8d2a-1111-4aaa-8bbb-000000000001",\
            "signedDate":1792000000000,"version":"2.0","data":{"bundleId":"com.example.longmai","environment":"Sandbox",\
            "transactionInfo":{"transactionId":"480000000000001","originalTransactionId":"480000000000001",\
            "productId":"\(Self.monthly)","bundleId":"com.example.longmai","purchaseDate":1792000000000,\
            "originalPurchaseDate":1792000000000,"expiresDate":1794600000000,"type":"Auto-Renewable Subscription",\
            "environment":"Sandbox","price":30000,"currency":"CNY"}}}

            """
        let notifications = try Self.write(line, "real.jsonl", in: home)
        let before = try Binary.run(["events", "import", notifications], home: home)
        #expect(before.status == 2)
        #expect(before.stderr.contains("unknown product '\(Self.monthly)'"))
        let file = try Self.write(Self.storeKitText(), "LongMai.storekit", in: home)
        #expect(try Binary.run(["catalog", "import", file, "--app", "2001"] + Self.developer, home: home).status == 0)
        let after = try Binary.run(["events", "import", notifications, "--json"], home: home)
        #expect(after.status == 0, "\(after.stdout)\(after.stderr)")
        #expect(try Self.object(after.stdout)["imported"] as? Int == 1)
        let subs = try Binary.run(["subs", "ot-480000000000001", "--json"], home: home)
        #expect(subs.status == 0, "\(subs.stderr)")
        #expect(subs.stdout.contains(Self.monthly))
    }

    /// Without --rate, a demo subscription runs at the time rate of its app's StoreKit file (13: a month
    /// every 5 minutes), as Xcode's test session would; --rate still wins.
    @Test func aDemoSubscriptionRunsAtTheFilesTimeRate() throws {
        let home = TemporaryHome()
        _ = try Self.storeWithApp(home)
        let file = try Self.write(Self.storeKitText(), "LongMai.storekit", in: home)
        #expect(try Binary.run(["catalog", "import", file, "--app", "2001"] + Self.developer, home: home).status == 0)
        let demo = ["events", "simulate", "10000002", "--product", Self.monthly, "--for", "60", "--json"] + Self.developer
        let byFile = try Binary.run(demo, home: home)
        #expect(byFile.status == 0, "\(byFile.stderr)")
        #expect(try Self.object(byFile.stdout)["rate"] as? String == "1 month every 5m 0s")
        let byOption = try Binary.run(demo.map { $0 == "10000002" ? "10000003" : $0 } + ["--rate", "30s"], home: home)
        #expect(byOption.status == 0, "\(byOption.stderr)")
        #expect(try Self.object(byOption.stdout)["rate"] as? String == "1 month every 30s")
    }

    @Test func badFilesAndMissingAppsLeaveTheStoreByteForByte() throws {
        let home = TemporaryHome()
        let store = try Self.storeWithApp(home)
        let before = AppsCommandTests.bytes(store)
        let good = try Self.write(Self.storeKitText(), "good.storekit", in: home)
        let notJSON = try Self.write("this is not json {", "notjson.storekit", in: home)
        let otherJSON = try Self.write("{\"name\": \"package\", \"version\": \"1.0.0\"}", "package.storekit", in: home)
        let noIds = try Self.write(
            "{\"version\": {\"major\": 4, \"minor\": 0}, \"products\": [{\"type\": \"Consumable\", \"displayPrice\": \"1\"}]}",
            "noids.storekit", in: home)
        let cases: [([String], String)] = [
            (["catalog", "import", notJSON, "--app", "2001"] + Self.developer, "\(notJSON) is not JSON ("),
            (["catalog", "import", otherJSON, "--app", "2001"] + Self.developer,
             "\(otherJSON) is not a StoreKit configuration: \"version\" is not an object"),
            (["catalog", "import", noIds, "--app", "2001"] + Self.developer, "\(noIds): products[0]: productID is missing"),
            (["catalog", "import", good, "--app", "2999"] + Self.developer, "no app with id '2999' (known: 1001, 1002, 1003, 2001)"),
            (["catalog", "import", good, "--app", "2001"], "only a developer may change an app's catalogue ("),
            (["catalog", "import", home.path("missing.storekit"), "--app", "2001"] + Self.developer,
             "\(home.path("missing.storekit")): no such file"),
            (["catalog", "import", home.url.path, "--app", "2001"] + Self.developer, "\(home.url.path) is a directory"),
            (["catalog", "show", "--app", "2999"], "no app with id '2999'"),
        ]
        for (arguments, message) in cases {
            let run = try Binary.run(arguments, home: home)
            #expect(run.status == 1, "\(arguments)")
            #expect(run.stderr.hasPrefix("storedesk: " + message), "\(arguments): \(run.stderr)")
            #expect(run.stderr.filter { $0 == "\n" }.count == 1, "\(arguments): \(run.stderr)")
            #expect(AppsCommandTests.bytes(store) == before, "\(arguments)")
        }
    }

    /// The shared samples, when `../shared/storekit-samples` is there, import through the binary, and
    /// import again without a change; the hand-written invalid one is refused.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: sampleFolder + "/README.md"), "no ../shared/storekit-samples here"))
    func everySharedSampleImports() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.sampleFolder).filter { $0.hasSuffix(".storekit") }.sorted()
        #expect(names.count == 12)
        for name in names {
            let home = TemporaryHome()
            _ = try Self.storeWithApp(home)
            let run = try Binary.run(["catalog", "import", Self.sampleFolder + "/" + name, "--app", "2001"] + Self.developer, home: home)
            if name.hasPrefix("12-") {
                #expect(run.status == 1 && run.stderr.contains("is not a StoreKit configuration"), "\(name)")
            } else {
                #expect(run.status == 0, "\(name): \(run.stderr)")
                #expect(run.stdout.hasPrefix("imported \(name)"), "\(name)")
                let again = try Binary.run(
                    ["catalog", "import", Self.sampleFolder + "/" + name, "--app", "2001", "--json"] + Self.developer, home: home)
                let products = try #require(try Self.object(again.stdout)["products"] as? [String: [String]], "\(name)")
                #expect(products["added"] == [] && products["updated"] == [] && products["unchanged"]?.isEmpty == false, "\(name)")
                let check = try Binary.run(["check"], home: home)
                #expect(check.status == 0, "\(name): \(check.stdout)")
            }
        }
    }

    static let sampleFolder: String = {
        if let folder = ProcessInfo.processInfo.environment["STOREDESK_STOREKIT_SAMPLES"] { return folder }
        // Beside the repository only: a fresh clone elsewhere (CI, a user's machine) runs without them.
        return Binary.repository.deletingLastPathComponent().appendingPathComponent("shared/storekit-samples").path
    }()
}
