import Foundation
import StoreDeskCore
import Testing

/// A StoreKit configuration written for these tests, in Xcode's layout: every product type, every offer
/// kind in every payment mode, Chinese and English localizations, the three settings StoreDesk applies,
/// and keys no Xcode writes (which must be reported and skipped).
enum OwnStoreKitFile {
    static let text = """
        {
          "futureTopLevel" : true,
          "identifier" : "5D0E5C01",
          "nonRenewingSubscriptions" : [
            {
              "displayPrice" : "98",
              "familyShareable" : false,
              "internalID" : "9EAFF001",
              "localizations" : [
                {
                  "description" : "三十天畅玩通行证",
                  "displayName" : "月卡",
                  "locale" : "zh_Hans"
                },
                {
                  "description" : "A thirty-day pass",
                  "displayName" : "Month Pass",
                  "locale" : "en_US"
                }
              ],
              "productID" : "com.example.xinghai.pass.30d",
              "referenceName" : "30-day pass",
              "type" : "NonRenewingSubscription"
            }
          ],
          "products" : [
            {
              "displayPrice" : "6",
              "familyShareable" : false,
              "internalID" : "00000001",
              "localizations" : [
                {
                  "description" : "六十颗星钻",
                  "displayName" : "60 星钻",
                  "locale" : "zh_Hans"
                }
              ],
              "productID" : "com.example.xinghai.gems.60",
              "referenceName" : null,
              "type" : "Consumable"
            },
            {
              "displayPrice" : "68.00",
              "familyShareable" : true,
              "internalID" : "00000002",
              "localizations" : [
                {
                  "description" : "永久解锁星舰皮肤",
                  "displayName" : "星舰皮肤",
                  "locale" : "zh_Hans"
                },
                {
                  "description" : "Unlocks the starship skin",
                  "displayName" : "Starship Skin",
                  "locale" : "en_US",
                  "pronunciation" : "star-ship"
                }
              ],
              "productID" : "com.example.xinghai.skin.starship",
              "referenceName" : "Starship skin",
              "type" : "NonConsumable"
            }
          ],
          "settings" : {
            "_askToBuyEnabled" : true,
            "_billingGracePeriodEnabled" : true,
            "_compatibilityTimeRate" : {
              "3" : 6
            },
            "_failTransactionsEnabled" : true,
            "_interruptedPurchasesEnabled" : false,
            "_locale" : "zh_Hans",
            "_storefront" : "CHN",
            "_storeKitErrors" : [
              {
                "current" : {
                  "index" : 1,
                  "type" : "purchase"
                },
                "enabled" : true,
                "name" : "Purchase"
              }
            ],
            "_timeRate" : 15
          },
          "subscriptionGroups" : [
            {
              "id" : "A1B2C3D4",
              "localizations" : [
                {
                  "description" : "",
                  "displayName" : "星海会员",
                  "locale" : "zh_Hans"
                }
              ],
              "name" : "VIP",
              "subscriptions" : [
                {
                  "adHocOffers" : [
                    {
                      "displayPrice" : "15",
                      "internalID" : "0FF00001",
                      "numberOfPeriods" : 2,
                      "offerID" : "vip.comeback.half",
                      "paymentMode" : "payAsYouGo",
                      "referenceName" : "Come back at half price",
                      "subscriptionPeriod" : "P1M"
                    },
                    {
                      "displayPrice" : "60",
                      "internalID" : "0FF00002",
                      "offerID" : "vip.upfront.quarter",
                      "paymentMode" : "payUpFront",
                      "referenceName" : "A quarter up front",
                      "subscriptionPeriod" : "P3M"
                    },
                    {
                      "internalID" : "0FF00003",
                      "offerID" : "vip.free.week",
                      "paymentMode" : "free",
                      "referenceName" : "A free week",
                      "subscriptionPeriod" : "P1W"
                    }
                  ],
                  "codeOffers" : [
                    {
                      "eligibility" : [
                        "new",
                        "expired"
                      ],
                      "internalID" : "C0DE0001",
                      "isStackable" : false,
                      "paymentMode" : "payUpFront",
                      "displayPrice" : "45",
                      "referenceName" : "Spring festival code",
                      "subscriptionPeriod" : "P2M"
                    },
                    {
                      "eligibility" : [
                        "existing"
                      ],
                      "internalID" : "C0DE0002",
                      "isStackable" : true,
                      "paymentMode" : "free",
                      "referenceName" : "Friends code",
                      "subscriptionPeriod" : "P2W"
                    },
                    {
                      "eligibility" : [
                        "new",
                        "existing",
                        "expired"
                      ],
                      "displayPrice" : "12",
                      "internalID" : "C0DE0003",
                      "isStackable" : true,
                      "numberOfPeriods" : 3,
                      "paymentMode" : "payAsYouGo",
                      "referenceName" : "Three cheap months",
                      "subscriptionPeriod" : "P1M"
                    }
                  ],
                  "displayPrice" : "30",
                  "familyShareable" : true,
                  "groupNumber" : 2,
                  "internalID" : "5B000001",
                  "introductoryOffer" : {
                    "internalID" : "1A000001",
                    "paymentMode" : "free",
                    "subscriptionPeriod" : "P3D"
                  },
                  "localizations" : [
                    {
                      "description" : "每月双倍星钻",
                      "displayName" : "星海月度会员",
                      "locale" : "zh_Hans"
                    },
                    {
                      "description" : "Double gems every month",
                      "displayName" : "Monthly VIP",
                      "locale" : "en_US"
                    }
                  ],
                  "productID" : "com.example.xinghai.vip.monthly",
                  "recurringSubscriptionPeriod" : "P1M",
                  "referenceName" : "VIP monthly",
                  "subscriptionGroupID" : "A1B2C3D4",
                  "type" : "RecurringSubscription",
                  "winbackOffers" : [
                    {
                      "displayPrice" : "18",
                      "internalID" : "B0CC0001",
                      "isEligible" : true,
                      "numberOfPeriods" : 1,
                      "offerID" : "vip.winback.month",
                      "paymentMode" : "payAsYouGo",
                      "referenceName" : "Win back",
                      "subscriptionPeriod" : "P1M"
                    },
                    {
                      "internalID" : "B0CC0002",
                      "isEligible" : false,
                      "offerID" : "vip.winback.free",
                      "paymentMode" : "free",
                      "referenceName" : "Win back free",
                      "subscriptionPeriod" : "P1W"
                    },
                    {
                      "displayPrice" : "50",
                      "internalID" : "B0CC0003",
                      "isEligible" : true,
                      "offerID" : "vip.winback.upfront",
                      "paymentMode" : "payUpFront",
                      "referenceName" : "Win back up front",
                      "subscriptionPeriod" : "P2M"
                    }
                  ]
                },
                {
                  "adHocOffers" : [

                  ],
                  "billingPlans" : [
                    {
                      "billingPlanType" : "BILLED_UPFRONT",
                      "commitmentDisplayPrice" : "298",
                      "displayPrice" : "298",
                      "internalID" : "5B000002_BILLED_UPFRONT",
                      "isEnabled" : true
                    },
                    {
                      "billingPlanType" : "MONTHLY",
                      "commitmentDisplayPrice" : "300.00",
                      "displayPrice" : "25",
                      "internalID" : "5B000002_MONTHLY",
                      "isEnabled" : false
                    }
                  ],
                  "codeOffers" : [

                  ],
                  "displayPrice" : "298",
                  "familyShareable" : false,
                  "groupNumber" : 1,
                  "internalID" : "5B000002",
                  "introductoryOffer" : {
                    "billingPlanType" : "BILLED_UPFRONT",
                    "displayPrice" : "98",
                    "internalID" : "1A000002",
                    "numberOfPeriods" : 1,
                    "paymentMode" : "payUpFront",
                    "subscriptionPeriod" : "P6M"
                  },
                  "introductoryOffers" : [
                    {
                      "billingPlanType" : "BILLED_UPFRONT",
                      "displayPrice" : "98",
                      "internalID" : "1A000002",
                      "numberOfPeriods" : 1,
                      "paymentMode" : "payUpFront",
                      "subscriptionPeriod" : "P6M"
                    }
                  ],
                  "localizations" : [
                    {
                      "description" : "全年会员",
                      "displayName" : "星海年度会员",
                      "locale" : "zh_Hans"
                    }
                  ],
                  "productID" : "com.example.xinghai.vip.yearly",
                  "recurringSubscriptionPeriod" : "P1Y",
                  "referenceName" : "VIP yearly",
                  "subscriptionGroupID" : "A1B2C3D4",
                  "type" : "RecurringSubscription",
                  "upgradePath" : "none",
                  "winbackOffers" : [

                  ]
                },
                {
                  "adHocOffers" : [

                  ],
                  "displayPrice" : "12",
                  "familyShareable" : false,
                  "groupNumber" : 3,
                  "internalID" : "5B000003",
                  "introductoryOffer" : {
                    "displayPrice" : "1",
                    "internalID" : "1A000003",
                    "numberOfPeriods" : 4,
                    "paymentMode" : "payAsYouGo",
                    "subscriptionPeriod" : "P1W"
                  },
                  "localizations" : [
                    {
                      "description" : "每周会员",
                      "displayName" : "星海周卡",
                      "locale" : "zh_Hans"
                    }
                  ],
                  "productID" : "com.example.xinghai.vip.weekly",
                  "recurringSubscriptionPeriod" : "P1W",
                  "referenceName" : "VIP weekly",
                  "subscriptionGroupID" : "A1B2C3D4",
                  "type" : "RecurringSubscription"
                }
              ]
            }
          ],
          "subscriptionOffersKeyPair" : {
            "id" : "5509FCF1",
            "privateKey" : "MIGTAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBHkwdwIBAQQgSECRETSECRETSECRET"
          },
          "version" : {
            "major" : 4,
            "minor" : 0,
            "patch" : 1
          }
        }

        """

    static var data: Data { Data(text.utf8) }
}

@Suite struct StoreKitConfigurationTests {
    @Test func everyProductTypeWithItsTermsAndChineseNames() throws {
        let file = try StoreKitConfiguration.read(OwnStoreKitFile.data)
        #expect(file.identifier == "5D0E5C01")
        #expect(file.version == .init(major: 4, minor: 0))
        #expect(file.products.map(\.id) == [
            "com.example.xinghai.gems.60", "com.example.xinghai.skin.starship", "com.example.xinghai.pass.30d",
            "com.example.xinghai.vip.monthly", "com.example.xinghai.vip.yearly", "com.example.xinghai.vip.weekly",
        ])
        #expect(file.products.map(\.type) == [.consumable, .nonConsumable, .nonRenewing, .autoRenewable, .autoRenewable, .autoRenewable])
        #expect(file.products.map(\.price.cents) == [600, 6800, 9800, 3000, 29800, 1200])
        #expect(file.products.map(\.familyShareable) == [false, true, false, true, false, false])
        #expect(file.products[0].referenceName == nil)
        #expect(file.products[0].displayName(preferring: "zh_Hans") == "60 星钻")
        #expect(file.products[1].displayName(preferring: "en_US") == "Starship Skin")
        #expect(file.products[2].localizations == [
            CatalogueLocalization(locale: "zh_Hans", displayName: "月卡", description: "三十天畅玩通行证"),
            CatalogueLocalization(locale: "en_US", displayName: "Month Pass", description: "A thirty-day pass"),
        ])
        #expect(file.products[2].subscription == nil)
        #expect(file.groups == [
            CatalogueGroup(
                id: "A1B2C3D4", name: "VIP",
                localizations: [CatalogueLocalization(locale: "zh_Hans", displayName: "星海会员", description: "")]),
        ])
        let levels = file.products.compactMap { $0.subscription.map { "\($0.groupId) \($0.level) \($0.period.rawValue)" } }
        #expect(levels == ["A1B2C3D4 2 P1M", "A1B2C3D4 1 P1Y", "A1B2C3D4 3 P1W"])
    }

    @Test func everyOfferKindInEveryPaymentMode() throws {
        let file = try StoreKitConfiguration.read(OwnStoreKitFile.data)
        let offers = file.products.flatMap { $0.subscription?.offers ?? [] }
        var seen: Set<String> = []
        for offer in offers { seen.insert("\(offer.typeName) \(offer.paymentMode)") }
        for kind in ["introductory", "promotional", "offer code", "win-back"] {
            for mode in ["FREE_TRIAL", "PAY_AS_YOU_GO", "PAY_UP_FRONT"] {
                #expect(seen.contains("\(kind) \(mode)"), "no \(kind) offer in \(mode)")
            }
        }
        let monthly = try #require(file.products[3].subscription)
        #expect(monthly.offers.map(\.typeName) == [
            "introductory", "promotional", "promotional", "promotional", "offer code", "offer code", "offer code",
            "win-back", "win-back", "win-back",
        ])
        #expect(monthly.offers[0].terms == "free for 3 days")
        #expect(monthly.offers[1] == CatalogueOffer(
            type: .promotional, offerId: "vip.comeback.half", referenceName: "Come back at half price", internalId: "0FF00001",
            paymentMode: .payAsYouGo, period: .month, periodCount: 2, price: CataloguePrice("15")))
        #expect(monthly.offers[1].terms == "15 each 1 month for 2 periods")
        #expect(monthly.offers[4].eligibility == [.new, .expired])
        #expect(monthly.offers[4].stackable == false)
        #expect(monthly.offers[8].eligible == false)
        #expect(monthly.offers[1].subscriptionOffer == .payAsYouGo(.month, periods: 2, priceCents: 1500, type: .promotional, id: "vip.comeback.half"))
        // The repeated introductory offer of format 5.0 files is one offer.
        let yearly = try #require(file.products[4].subscription)
        #expect(yearly.offers.count == 1)
        #expect(yearly.offers[0].terms == "98 up front for 6 months")
        #expect(yearly.billingPlans.map(\.type) == ["BILLED_UPFRONT", "MONTHLY"])
        #expect(yearly.billingPlans[1].commitmentPrice?.cents == 30000)
        #expect(yearly.billingPlans[1].enabled == false)
    }

    @Test func theSettingsStoreDeskAppliesAndThoseItKeeps() throws {
        let settings = try StoreKitConfiguration.read(OwnStoreKitFile.data).settings
        #expect(settings.askToBuy && settings.failTransactions && settings.billingGracePeriod)
        #expect(settings.timeRate == StoreKitTimeRate(rawValue: 15))
        #expect(settings.storeDeskTimeRate == .monthEvery30Seconds)
        #expect(settings.compatibilityTimeRates == [6])
        #expect(settings.locale == "zh_Hans")
        #expect(settings.currency == "CNY")
        #expect(settings.enabledErrors == ["Purchase"])
    }

    @Test func unknownKeysAreReportedWithTheirPathAndTheKeyPairIsNotKept() throws {
        let file = try StoreKitConfiguration.read(OwnStoreKitFile.data)
        #expect(file.unknownKeys.sorted() == [
            "futureTopLevel", "products[1].localizations[1].pronunciation", "settings._interruptedPurchasesEnabled",
            "subscriptionGroups[0].subscriptions[1].upgradePath", "version.patch",
        ])
        #expect(file.notKept.count == 1)
        #expect(file.notKept.allSatisfy { !$0.contains("SECRET") })
    }

    @Test(arguments: [
        ("{\"version\": {\"major\": 1", "is not JSON"),
        ("hello", "is not JSON"),
        ("[1, 2]", "is not a StoreKit configuration: the file holds an array, not an object"),
        ("\"text\"", "is not a StoreKit configuration: the file holds a string, not an object"),
        ("{\"products\": []}", "is not a StoreKit configuration: it has no \"version\""),
        ("{\"version\": 1, \"products\": []}", "is not a StoreKit configuration: \"version\" is not an object"),
        ("{\"version\": {\"major\": 4, \"minor\": 0}}", "is not a StoreKit configuration: it has none of"),
        ("{\"version\": {\"major\": 4}, \"products\": [{\"type\": \"Consumable\", \"displayPrice\": \"1\"}]}",
         "products[0]: productID is missing"),
        ("{\"version\": {\"major\": 4}, \"products\": [{\"productID\": \"\", \"type\": \"Consumable\", \"displayPrice\": \"1\"}]}",
         "products[0].productID: is empty"),
        ("{\"version\": {\"major\": 4}, \"products\": [{\"productID\": \"a\", \"type\": \"Consumable\", \"displayPrice\": \"1,99\"}]}",
         "products[0].displayPrice: \"1,99\" is not a price"),
        ("{\"version\": {\"major\": 4}, \"products\": [{\"productID\": \"a\", \"type\": \"nonConsumable\", \"displayPrice\": \"1\"}]}",
         "products[0].type: \"nonConsumable\" is not a StoreKit product type"),
        ("{\"version\": {\"major\": 4}, \"products\": [{\"productID\": \"a\", \"type\": \"NonRenewingSubscription\", \"displayPrice\": \"1\"}]}",
         "products[0].type: a NonRenewingSubscription belongs in nonRenewingSubscriptions, not products"),
        ("{\"version\": {\"major\": 4}, \"products\": [{\"productID\": \"a\", \"type\": \"Consumable\", \"displayPrice\": 1}]}",
         "products[0].displayPrice: expected a string"),
        ("{\"version\": {\"major\": 4}, \"products\": [{\"productID\": \"a\", \"type\": \"Consumable\", \"displayPrice\": \"1\"}, {\"productID\": \"a\", \"type\": \"NonConsumable\", \"displayPrice\": \"2\"}]}",
         "products[1].productID: \"a\" is also the id of products[0]"),
        ("{\"version\": {\"major\": 4}, \"subscriptionGroups\": [{\"id\": \"g\", \"subscriptions\": [{\"productID\": \"s\", \"type\": \"RecurringSubscription\", \"displayPrice\": \"1\", \"groupNumber\": 1, \"recurringSubscriptionPeriod\": \"P5D\"}]}]}",
         "subscriptionGroups[0].subscriptions[0].recurringSubscriptionPeriod: \"P5D\" is not an auto-renewable period"),
        ("{\"version\": {\"major\": 4}, \"subscriptionGroups\": [{\"id\": \"g\", \"subscriptions\": [{\"productID\": \"s\", \"type\": \"RecurringSubscription\", \"displayPrice\": \"1\", \"groupNumber\": 1, \"recurringSubscriptionPeriod\": \"P1M\", \"subscriptionGroupID\": \"h\"}]}]}",
         "subscriptionGroups[0].subscriptions[0].subscriptionGroupID: \"h\" is not its group's id \"g\""),
        ("{\"version\": {\"major\": 4}, \"subscriptionGroups\": [{\"id\": \"g\", \"subscriptions\": [{\"productID\": \"s\", \"type\": \"RecurringSubscription\", \"displayPrice\": \"1\", \"groupNumber\": 1, \"recurringSubscriptionPeriod\": \"P1M\", \"adHocOffers\": [{\"paymentMode\": \"payAsYouGo\", \"subscriptionPeriod\": \"P1M\"}]}]}]}",
         "subscriptionGroups[0].subscriptions[0].adHocOffers[0].displayPrice: a payAsYouGo offer needs a price"),
    ])
    func badFilesSayWhatIsWrongInOneLine(text: String, expected: String) {
        do {
            _ = try StoreKitConfiguration.read(Data(text.utf8))
            Issue.record("read \(text)")
        } catch {
            #expect(error.description.hasPrefix(expected), "\(error.description)")
            #expect(!error.description.contains("\n"))
        }
    }

    @Test func pricesAsStoreKitWritesThem() {
        #expect(CataloguePrice("0.99")?.cents == 99)
        #expect(CataloguePrice("29")?.cents == 2900)
        #expect(CataloguePrice("0.5")?.cents == 50)
        #expect(CataloguePrice("6.00")?.cents == 600)
        #expect(CataloguePrice("6.000")?.cents == 600)
        for bad in ["", "1,99", "-1", "1.999", ".5", "5.", "1e3", " 1", "１"] { #expect(CataloguePrice(bad) == nil, "\(bad)") }
    }

    @Test func storeKitTimeRatesAsStoreDeskRunsThem() {
        #expect(StoreKitTimeRate(rawValue: 0).timeRate == .realTime)
        #expect(StoreKitTimeRate(rawValue: 13).timeRate == .monthEvery5Minutes)
        #expect(StoreKitTimeRate(rawValue: 6).timeRate == .monthEvery30Seconds)
        #expect(StoreKitTimeRate(rawValue: 1003).isPerRenewal)
        #expect(StoreKitTimeRate(rawValue: 7).timeRate == nil)
        // An unknown rate falls back to the file's compatibility rate.
        let settings = StoreKitSettings(timeRate: StoreKitTimeRate(rawValue: 7), compatibilityTimeRates: [13])
        #expect(settings.storeDeskTimeRate == .monthEvery5Minutes)
    }
}

/// The shared samples (`../shared/storekit-samples`), when that folder is there: every Xcode-written file
/// reads, and the hand-written invalid one is refused in one line.
@Suite struct StoreKitSampleTests {
    static let folder: URL? = {
        let candidates: [String?] = [
            ProcessInfo.processInfo.environment["STOREDESK_STOREKIT_SAMPLES"],
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../shared/storekit-samples").path,
        ]
        return candidates.compactMap { $0 }.map { URL(fileURLWithPath: $0).standardizedFileURL }
            .first { FileManager.default.fileExists(atPath: $0.appendingPathComponent("README.md").path) }
    }()

    static var samples: [String] {
        guard let folder else { return [] }
        return ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0.hasSuffix(".storekit") }.sorted()
    }

    @Test(.enabled(if: folder != nil, "no ../shared/storekit-samples here"))
    func everySampleReadsAndTheInvalidOneIsRefused() throws {
        let folder = try #require(Self.folder)
        #expect(Self.samples.count == 12)
        for name in Self.samples {
            let data = try Data(contentsOf: folder.appendingPathComponent(name))
            if name.hasPrefix("12-") {
                #expect(throws: StoreKitFileError.self) { try StoreKitConfiguration.read(data) }
                continue
            }
            let file = try StoreKitConfiguration.read(data)
            #expect(!file.products.isEmpty, "\(name)")
            #expect(file.unknownKeys.isEmpty, "\(name): \(file.unknownKeys)")
            #expect(file.products.allSatisfy { $0.price.cents > 0 }, "\(name)")
        }
    }

    @Test(.enabled(if: folder != nil, "no ../shared/storekit-samples here"))
    func whatEachSampleIsChosenForReadsAsSuch() throws {
        let folder = try #require(Self.folder)
        func read(_ prefix: String) throws -> StoreKitConfiguration {
            let name = try #require(Self.samples.first { $0.hasPrefix(prefix) })
            return try StoreKitConfiguration.read(Data(contentsOf: folder.appendingPathComponent(name)))
        }
        let oldest = try read("01-")
        #expect(oldest.identifier == nil && oldest.version.description == "1.0")
        #expect(oldest.products.filter { $0.familyShareable }.count == 2)
        let askToBuy = try read("03-")
        #expect(askToBuy.settings.askToBuy && askToBuy.settings.billingIssues)
        #expect(askToBuy.products.filter { $0.referenceName == nil }.count == 8)
        let levels = try read("04-")
        #expect(levels.products.compactMap(\.subscription?.level) == [1, 2, 3])
        #expect(levels.settings.timeRate?.rawValue == 15)
        #expect(levels.notKept.contains { $0.hasPrefix("subscriptionOffersKeyPair") })
        let winBack = try read("07-")
        #expect(winBack.products.flatMap { $0.subscription?.offers ?? [] }.contains { $0.type == .winBack && $0.eligible == true })
        let chinese = try read("08-")
        #expect(chinese.settings.currency == "CNY")
        #expect(chinese.products.filter { $0.type == .nonRenewing }.map { $0.displayName(preferring: "zh_Hans") }
            == ["专业版1年", "专业版1月", "专业版7天使用许可"])
        let synced = try read("09-")
        #expect(synced.settings.appStoreAppId == "6756042988")
        #expect(synced.settings.lastSynchronized?.iso8601.hasPrefix("2025-12-29") == true)
        let newest = try read("11-")
        #expect(newest.version.description == "6.3")
        #expect(newest.products.contains { $0.subscription?.billingPlans.contains { $0.type == "MONTHLY" && !$0.enabled } == true })
    }
}

/// An app's StoreKit settings in the payment simulator: every purchase of that app asks to buy or fails,
/// and the other apps' purchases go exactly as they would without them.
@Suite struct StoreKitPurchaseTestingTests {
    static let other = App(
        id: "2002", name: "Other", bundleId: "com.example.other", appKey: "other-app-key-0123", currencyPerYuan: 10,
        restoreOwnership: .transfer, gracePeriodDays: 0)
    static let products = [
        Product(id: "mine.gems", appId: "2001", name: "Gems", type: .consumable, priceCents: 600, currency: "CNY"),
        Product(id: "other.gems", appId: "2002", name: "Gems", type: .consumable, priceCents: 600, currency: "CNY"),
    ]

    static func run(_ testing: [String: StoreKitPurchaseTesting]) -> [PaymentEvent] {
        var mine = other
        mine.id = "2001"
        var simulation = PaymentSimulation(
            PaymentSimulation.Configuration(
                seconds: 60, rate: 5, seed: 3, start: Instant(millis: 1_700_000_000_000), accounts: PaymentSimulationTests.accounts((1...20).map { "u\($0)" }, apps: [mine, other]),
                apps: [mine, other], products: products, malformedShare: 0, storeKitTesting: testing))
        return simulation.runCollecting().flatMap(\.events)
    }

    static func kinds(_ events: [PaymentEvent], app prefix: String) -> [String: [PaymentEvent.Kind]] {
        let ids = Set(events.filter { $0.detail.contains(prefix) }.map(\.transactionId))
        return Dictionary(grouping: events.filter { ids.contains($0.transactionId) }, by: \.transactionId).mapValues { $0.map(\.kind) }
    }

    @Test(arguments: [
        (StoreKitPurchaseTesting(askToBuy: true, failTransactions: false), PaymentEvent.Kind.deferred),
        (StoreKitPurchaseTesting(askToBuy: false, failTransactions: true), PaymentEvent.Kind.failed),
    ])
    func everyPurchaseOfTheAppFollowsItsFile(testing: StoreKitPurchaseTesting, kind: PaymentEvent.Kind) {
        let plain = Self.run([:])
        let tested = Self.run(["2001": testing])
        // Purchases that reached the App Store and were settled by the end of the run.
        let mine = Self.kinds(tested, app: "mine.gems").filter { $0.value.first == .purchasing && $0.value.count > 1 }
        #expect(mine.count > 30)
        #expect(mine.values.allSatisfy { $0.contains(kind) }, "\(mine.values.filter { !$0.contains(kind) }.prefix(3))")
        #expect(Self.kinds(plain, app: "mine.gems").values.contains { !$0.contains(kind) })
        #expect(Self.kinds(tested, app: "other.gems") == Self.kinds(plain, app: "other.gems"))
    }
}

/// The checks `apps add|set` run on each value before the store is opened.
@Suite struct AppSettingsTests {
    @Test func callbackURLsAreHttpOrHttpsWithAHostAndNoCredentials() throws {
        for good in ["http://127.0.0.1:8080/cb", "https://game.example/pay?x=1", "http://[::1]:9000/", "https://a-b.example.com"] {
            #expect(try AppSettings.parseCallbackURL(good) == good)
        }
        #expect(try AppSettings.parseCallbackURL("") == nil)
        for bad in ["game.example/cb", "ftp://x/", "http://", "http://-bad.example/", "http://x:0/", "http://a@b/",
                    "https://x/#frag", "http://x/\u{7}", "http://[::1/"] {
            #expect(throws: AppSettingError.self, "\(bad)") { try AppSettings.parseCallbackURL(bad) }
        }
    }

    @Test func anAppKeyIsOneLineAndNeverRepeatedInAnError() throws {
        #expect(try AppSettings.parseAppKey("abcdefgh12\r\n", source: "f") == "abcdefgh12")
        #expect(try AppSettings.parseAppKey("abcdefgh12", source: "f") == "abcdefgh12")
        for bad in ["abc def gh12\n", "abcdefgh\n\n", "key\u{0}withnul", String(repeating: "k", count: 257)] {
            do {
                _ = try AppSettings.parseAppKey(bad, source: "key.txt")
                Issue.record("took \(bad.debugDescription)")
            } catch {
                #expect(error.description.hasPrefix("key.txt"))
                #expect(!error.description.contains(bad.trimmingCharacters(in: .whitespacesAndNewlines)))
            }
        }
    }

    @Test func settingsApplyOnlyWhatWasGivenAndNameEachChange() throws {
        let app = App(
            id: "1", name: "A", bundleId: "com.example.a", appKey: "0123456789abcdef", currencyPerYuan: 10,
            restoreOwnership: .transfer, gracePeriodDays: 0, appleAppId: 42, callbackURL: "http://a.example/")
        var settings = AppSettings()
        settings.gracePeriodDays = 16
        settings.appleAppId = .some(nil)
        let changed = settings.applied(to: app)
        #expect(changed.gracePeriodDays == 16 && changed.appleAppId == nil && changed.callbackURL == "http://a.example/")
        #expect(AppSettings.differences(app, changed) == ["apple app id 42 → none", "grace days 0 → 16"])
        #expect(throws: AppSettingError("apps add needs --name")) { try AppSettings().newApp(id: "1") }
    }
}
