import Foundation
import StoreDeskCore
import Testing

@Suite("GrantRule: the game server's answer to a callback")
struct GrantRuleTests {
    private let app = PaymentFixtures.app

    private func body(_ changes: [String: String?] = [:], appKey: String? = nil) -> String {
        var fields: [(String, String)] = [
            ("order_id", "P1"), ("payment", "appstore"), ("sub_payment", "Production"), ("user_id", "u1"),
            ("client_id", "app_galaxy"), ("app", "Galaxy Quest"), ("app_id", "s1"), ("app_order_id", "G1"),
            ("role_id", "r1"), ("product_id", "com.example.gems.60"), ("ext", ""), ("timestamp", "1772352000"),
        ]
        for (name, value) in changes {
            if let index = fields.firstIndex(where: { $0.0 == name }) {
                if let value { fields[index].1 = value } else { fields.remove(at: index) }
            } else if let value {
                fields.append((name, value))
            }
        }
        return ServerCallback(fields: fields.map { .init($0.0, $0.1) }, appKey: appKey ?? app.appKey).body
    }

    private func decide(_ body: String, granted: Set<String> = []) -> GrantDecision {
        GrantRule.decide(body: body, app: app, products: PaymentFixtures.catalogue, alreadyGranted: granted, at: PaymentFixtures.now)
    }

    @Test("an App Store payment grants the product named by product_id")
    func appStoreGrantsProduct() throws {
        let decision = decide(body())
        #expect(decision.reply == "success")
        let grant = try #require(decision.grant)
        #expect(grant.kind == .product)
        #expect(grant.productId == "com.example.gems.60")
        #expect(grant.orderId == "P1")
        #expect(grant.userId == "u1")
        #expect(grant.sid == "s1")
        #expect(grant.roleId == "r1")
        #expect(grant.quantity == 1)
        #expect(grant.currencyAmount == 0)
        #expect(grant.source == .purchase)
        #expect(grant.grantedAt == PaymentFixtures.now)
        #expect(decision.logLine == nil)
    }

    @Test("an App Store payment ignores gold: product_id decides")
    func appStoreIgnoresGold() throws {
        let grant = try #require(decide(body(["gold": "1.00"])).grant)
        #expect(grant.kind == .product)
        #expect(grant.productId == "com.example.gems.60")
    }

    @Test("another payment whose gold equals the price grants the product")
    func goldEqualsPrice() throws {
        for gold in ["6", "6.0", "6.00"] {
            let grant = try #require(decide(body(["payment": "wechat", "gold": gold])).grant)
            #expect(grant.kind == .product)
            #expect(grant.productId == "com.example.gems.60")
            #expect(grant.currencyAmount == 0)
        }
    }

    @Test("another payment whose gold differs converts it to currency at the app's rate")
    func goldDiffers() throws {
        let decision = decide(body(["payment": "alipay", "gold": "30.00"]))
        let grant = try #require(decision.grant)
        #expect(grant.kind == .currency)
        #expect(grant.currencyAmount == 300)
        #expect(grant.productId == "com.example.gems.60")
        #expect(decision.reply == "success")
        #expect(decision.reason.contains("10 per yuan"))

        let cents = try #require(decide(body(["payment": "alipay", "gold": "0.99"])).grant)
        #expect(cents.currencyAmount == 9)
    }

    @Test("another payment for a product not in the catalogue still converts its gold")
    func unknownProductOtherPayment() throws {
        let grant = try #require(decide(body(["payment": "wechat", "gold": "6.48", "product_id": "com.example.gone"])).grant)
        #expect(grant.kind == .currency)
        #expect(grant.currencyAmount == 64)
    }

    @Test("an App Store payment for a product this app does not sell is refused")
    func unknownProductAppStore() {
        for productId in ["com.example.gone", "com.example.gems.6480"] {
            let decision = decide(body(["product_id": productId]))
            #expect(decision.outcome == .reject(.unknownProduct(productId)))
            #expect(decision.reply == "fail: unknown product")
            #expect(decision.grant == nil)
        }
    }

    @Test("gold that is not an amount of yuan is refused, never rounded", arguments: ["0", "0.00", "-6", "6.001", "6.", "abc", "6e2", " 6"])
    func badGold(gold: String) {
        let decision = decide(body(["payment": "wechat", "gold": gold]))
        #expect(decision.outcome == .reject(.badGold(gold)))
        #expect(decision.reply == "fail: bad gold")
    }

    @Test("a repeated callback answers success and grants nothing")
    func duplicate() {
        var granted: Set<String> = []
        let first = decide(body(), granted: granted)
        #expect(first.grant != nil)
        if let grant = first.grant { granted.insert(grant.orderId) }

        let second = decide(body(), granted: granted)
        #expect(second.outcome == .duplicate(orderId: "P1"))
        #expect(second.reply == "success")
        #expect(second.grant == nil)

        let other = decide(body(["order_id": "P2"]), granted: granted)
        #expect(other.grant?.orderId == "P2")
    }

    @Test("de-duplication also works with a closure over the store")
    func duplicateClosure() {
        let decision = GrantRule.decide(
            body: body(), app: app, products: PaymentFixtures.catalogue, alreadyGranted: { $0 == "P1" }, at: PaymentFixtures.now)
        #expect(decision.outcome == .duplicate(orderId: "P1"))
    }

    @Test("a bad signature is rejected, logged with the key masked, and not answered success")
    func badSignature() throws {
        let forged = body(appKey: "guessed-key-123")
        let decision = decide(forged)
        #expect(decision.outcome == .reject(.badSignature))
        #expect(decision.reply == "fail: bad sign")
        #expect(decision.grant == nil)
        let log = try #require(decision.logLine)
        #expect(log.contains("bad_signature"))
        #expect(log.contains("order_id=P1"))
        #expect(!log.contains(app.appKey))
        #expect(log.contains(app.maskedAppKey))
    }

    @Test("a bad signature is rejected even for an order already granted")
    func badSignatureOnDuplicate() {
        let decision = decide(body(appKey: "guessed-key-123"), granted: ["P1"])
        #expect(decision.reply == "fail: bad sign")
    }

    @Test("a missing sign or field is rejected with its own reply")
    func missingPieces() {
        let unsigned = body().replacingOccurrences(of: #"&sign=[0-9a-f]+"#, with: "", options: .regularExpression)
        #expect(decide(unsigned).reply == "fail: missing sign")
        #expect(decide(body(["order_id": nil])).reply == "fail: missing order_id")
        #expect(decide(body(["payment": "wechat"])).reply == "fail: missing gold")
    }

    @Test("a genuine body with an empty Sid or no timestamp still grants (rule 3): only what a grant needs refuses")
    func genuineBodyWithOddFieldsGrants() {
        let decision = decide(body(["app_id": "", "timestamp": nil]))
        #expect(decision.reply == "success")
        #expect(decision.grant?.sid == "")
        #expect(decision.verification.warnings.contains(.missingField("app_id")))
    }

    @Test("a callback for another app is refused")
    func wrongApp() {
        let decision = decide(body(["client_id": "app_other"]))
        #expect(decision.outcome == .reject(.wrongApp("app_other")))
        #expect(decision.reply == "fail: wrong app")
    }

    @Test("EXT never decides what is granted")
    func extIsInert() throws {
        let sneaky = "product_id=com.example.gems.6480&gold=648.00&payment=wechat"
        let plain = try #require(decide(body()).grant)
        let withExt = try #require(decide(body(["ext": sneaky])).grant)
        #expect(withExt == plain)

        let currency = try #require(decide(body(["payment": "wechat", "gold": "30.00", "ext": "gold=6.00"])).grant)
        #expect(currency.kind == .currency)
        #expect(currency.currencyAmount == 300)
    }

    @Test("gold parsing")
    func goldCents() {
        #expect(GrantRule.goldCents("6") == 600)
        #expect(GrantRule.goldCents("6.5") == 650)
        #expect(GrantRule.goldCents("6.05") == 605)
        #expect(GrantRule.goldCents("0.99") == 99)
        #expect(GrantRule.goldCents("6.001") == nil)
        #expect(GrantRule.goldCents("") == nil)
        #expect(GrantRule.goldCents(".5") == nil)
        #expect(GrantRule.currencyAmount(goldCents: 99, perYuan: 10) == 9)
        #expect(GrantRule.currencyAmount(goldCents: 3000, perYuan: 10) == 300)
    }
}
