import StoreDeskCore
import Testing

@Suite("ServerCallback: the body the platform sends for a paid order")
struct ServerCallbackTests {
    @Test("the body and sign match what PHP builds for the same order", arguments: CallbackVectors.shared?.callbacks ?? [])
    func matchesPHP(vector: CallbackVectors.Callback) {
        let order = PaymentOrder(
            id: vector.order.id, transactionId: "t-" + vector.order.id, appId: vector.app.id,
            userId: vector.order.userId, productId: vector.order.productId, payment: vector.order.payment,
            subPayment: vector.order.subPayment, amountCents: vector.order.amountCents, sid: vector.order.sid,
            roleId: vector.order.roleId, appOrderId: vector.order.appOrderId, ext: vector.order.ext,
            createdAt: PaymentFixtures.now, status: .pending)
        let app = App(
            id: vector.app.id, name: vector.app.name, bundleId: "com.example", appKey: vector.app.appKey,
            currencyPerYuan: 10, restoreOwnership: .transfer, gracePeriodDays: 0)
        let callback = ServerCallback(order: order, app: app, timestamp: Instant(millis: vector.timestampMillis))
        #expect(callback.sign == vector.sign)
        #expect(callback.body == vector.body)
        #expect(CallbackSignature.verify(body: callback.body, appKey: app.appKey).verdict == .valid)
    }

    @Test("fields go out in the documented order, gold only for payments other than appstore")
    func fieldOrder() {
        let order = PaymentOrder(
            id: "P1", transactionId: "t1", appId: "app_galaxy", userId: "u1", productId: "com.example.gems.60",
            amountCents: 600, sid: "s1", createdAt: PaymentFixtures.now, status: .pending)
        let appStore = ServerCallback(order: order, app: PaymentFixtures.app, timestamp: PaymentFixtures.now)
        #expect(appStore.fields.map(\.name) == [
            "order_id", "payment", "sub_payment", "user_id", "client_id", "app", "app_id", "app_order_id", "role_id",
            "product_id", "ext", "timestamp",
        ])
        #expect(appStore.body.hasSuffix("&sign=" + appStore.sign))
        #expect(appStore.fields.first { $0.name == "timestamp" }?.value == "1772352000")

        var wechat = order
        wechat.payment = "wechat"
        let other = ServerCallback(order: wechat, app: PaymentFixtures.app, timestamp: PaymentFixtures.now)
        #expect(other.fields.first { $0.name == "gold" }?.value == "6.00")
        #expect(other.fields.map(\.name).firstIndex(of: "gold") == 10)
    }

    @Test("a StoreTransaction builds the same callback as the equivalent App Store order")
    func fromTransaction() {
        let transaction = StoreTransaction(
            id: "t1", originalTransactionId: "t1", userId: "u1", appId: "app_galaxy", productId: "com.example.gems.60",
            state: .purchased, environment: .sandbox, sid: "s1", roleId: "r1", appOrderId: "G1", ext: "x y",
            purchaseDate: PaymentFixtures.now, finished: false)
        let order = PaymentOrder(
            id: "P1", transactionId: "t1", appId: "app_galaxy", userId: "u1", productId: "com.example.gems.60",
            subPayment: "Sandbox", amountCents: 600, sid: "s1", roleId: "r1", appOrderId: "G1", ext: "x y",
            createdAt: PaymentFixtures.now, status: .pending)
        let later = PaymentFixtures.now.adding(.seconds(5))
        let fromTransaction = ServerCallback(transaction: transaction, orderId: "P1", app: PaymentFixtures.app, timestamp: later)
        let fromOrder = ServerCallback(order: order, app: PaymentFixtures.app, timestamp: later)
        #expect(fromTransaction == fromOrder)
    }

    @Test("gold is written in yuan with two decimals")
    func goldText() {
        #expect(ServerCallback.goldText(cents: 600) == "6.00")
        #expect(ServerCallback.goldText(cents: 99) == "0.99")
        #expect(ServerCallback.goldText(cents: 64800) == "648.00")
        #expect(ServerCallback.goldText(cents: 105) == "1.05")
        #expect(ServerCallback.goldText(cents: 0) == "0.00")
    }

    @Test("the masked hashed string never shows the AppKey")
    func masked() {
        let order = PaymentOrder(
            id: "P1", transactionId: "t1", appId: "app_galaxy", userId: "u1", productId: "com.example.gems.60",
            amountCents: 600, sid: "s1", createdAt: PaymentFixtures.now, status: .pending)
        let callback = ServerCallback(order: order, app: PaymentFixtures.app, timestamp: PaymentFixtures.now)
        #expect(!callback.maskedHashedString.contains(PaymentFixtures.app.appKey))
        #expect(callback.maskedHashedString.hasSuffix(PaymentFixtures.app.maskedAppKey))
    }
}
