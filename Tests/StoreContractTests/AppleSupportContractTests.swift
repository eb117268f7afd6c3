import Foundation
import StoreDeskCore
import StoreDeskPostgres
import StoreDeskSQLite
import StoreDeskStoreAPI
import Testing

/// The support desk's Apple actions on both backends: refunds and their reversal, consumption requests
/// and their answers, renewal extensions and tokens by staff, each deciding, refusing, writing Apple's
/// notification and auditing as the SQLite store does, and leaving a store `check` finds clean.
@Suite(.serialized) struct AppleSupportContractTests {
    typealias SupportStore = CommandsContractStore & AppleSupportStore & AppStoreServerStore & SubscriptionStore & NotificationHistoryStore

    static func store(_ backend: Backend) throws -> any SupportStore {
        switch backend {
        case .sqlite: try ContractStores.get().sqlite()
        case .postgres: try ContractStores.get().postgres()
        }
    }

    static let support = StaffMember(name: "li.na", role: .support)
    static let operatorMember = StaffMember(name: "wu.op", role: .operator)
    static let at = Instant(millis: StoreContractTests.demoClock.millis + 1_000)

    /// An outcome without its notification's UUID (each store makes its own).
    static func outcome(_ done: AppleSupportOutcome) -> String {
        "\(done.transactionId) \(done.originalTransactionId) \(done.userId) \(done.productId) \(done.isSubscription) "
            + "\(done.notification.notificationType.rawValue) \(done.notification.signedDate.millis) "
            + "\(done.notification.transaction?.revocationDate?.millis ?? 0) \(done.notification.transaction?.revocationReason?.rawValue ?? -1)"
    }

    /// Audit lines with notification UUIDs left out.
    static func audit(_ store: any SupportStore, _ action: String) throws -> [String] {
        try store.auditEntries(action: action, limit: 20).map {
            AppsContractTests.line($0).replacingOccurrences(of: #"[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}"#, with: "UUID", options: .regularExpression)
        }
    }

    @Test(arguments: Backend.allCases) func refundsAndReversalsDecideWriteAndAuditAsTheSQLiteStoreDoes(_ backend: Backend) throws {
        let store = try Self.store(backend)
        let reference = try Self.store(.sqlite)
        let steps: [(String, Bool, String, StaffMember, String)] = [
            ("2000000100000001", true, "charged twice", Self.support, "consumable refunded"),
            ("2000000100000001", true, "again", Self.support, "already refunded"),
            ("2000000100000030", true, "app crashed on launch", Self.support, "subscription refunded"),
            ("2000000100000078", true, "again", Self.support, "already revoked"),
            ("2000000100000002", true, "no", Self.operatorMember, "an operator may not"),
            ("2000000100000002", true, " ", Self.support, "no reason"),
            ("no-such", true, "x", Self.support, "unknown"),
            ("2000000100000001", false, "refund declined on review", Self.support, "consumable reversed"),
            ("2000000100000002", false, "x", Self.support, "not refunded"),
            ("2000000100000078", false, "goodwill", Self.support, "subscription reversed"),
        ]
        for (id, refund, reason, staff, what) in steps {
            func act(_ target: any SupportStore) -> String {
                said {
                    Self.outcome(
                        refund
                            ? try target.refund(id, reason: reason, appIssue: id == "2000000100000030", by: staff, at: Self.at)
                            : try target.reverseRefund(id, reason: reason, by: staff, at: Self.at))
                }
            }
            let mine = act(store)
            #expect(mine == act(reference), "\(what)")
            #expect(mine.hasPrefix("ok") == what.hasSuffix("refunded") || mine.hasPrefix("ok") == what.hasSuffix("reversed"), "\(what): \(mine)")
        }
        for id in ["2000000100000001", "2000000100000030", "2000000100000078"] {
            #expect(try store.appStoreCustomer(transactionId: id) == reference.appStoreCustomer(transactionId: id), "\(id)")
        }
        let refunded = try #require(try store.appStoreCustomer(transactionId: "2000000100000030"))
        #expect(refunded.subscriptions.first { $0.id == "2000000100000030" }?.state == .revoked)
        #expect(refunded.subscriptions.first { $0.id == "2000000100000030" }?.appleRevocationReason == 1)
        let restored = try #require(try store.appStoreCustomer(transactionId: "2000000100000078"))
        #expect(restored.subscriptions.first { $0.id == "2000000100000078" }?.state != .revoked)
        // The notifications are in the log: the subscription's in its chain, folded.
        let (_, events) = try #require(try store.subscriptionDetail(originalTransactionId: "2000000100000030"))
        #expect(events.last?.notificationType == .refund && events.last?.provenance == .simulated)
        #expect(try Self.audit(store, "apple.refund") == Self.audit(reference, "apple.refund"))
        #expect(try Self.audit(store, "apple.refund").count == 4)
        // Get Notification History finds a one-time purchase's notifications by its transaction, as it
        // finds a subscription's by its row: the consumable's REFUND and REFUND_REVERSED are there.
        let app = try #require(try store.appStoreCustomer(transactionId: "2000000100000001")).app.id
        let history = try NotificationHistoryQuery(
            json: Array(#"{"startDate":0,"endDate":4000000000000,"transactionId":"2000000100000001"}"#.utf8), paginationToken: nil)
        let consumable = try store.appNotifications(appId: app, history, limit: 50).map(\.event.notificationType)
        #expect(consumable == [.refund, .refundReversed], "\(consumable)")
        #expect(try store.appNotifications(appId: app, history, limit: 50).map(\.id) == reference.appNotifications(appId: app, history, limit: 50).map(\.id))
        #expect(try store.check() == [])
        #expect(try reference.check() == [])
    }

    @Test(arguments: Backend.allCases) func consumptionRequestsAreRaisedAnsweredAndListedAsTheSQLiteStoreDoes(_ backend: Backend) throws {
        let store = try Self.store(backend)
        let reference = try Self.store(.sqlite)
        let info = try ConsumptionInformation(consumptionStatus: 3, platform: 1, sampleContentProvided: false, deliveryStatus: 0, playTime: 2)
        let steps: [(String, String, StaffMember)] = [
            ("2000000100000001", "UNINTENDED_PURCHASE", Self.support), ("2000000100000001", "OTHER", Self.support),
            ("2000000100000003", "OTHER", Self.support), ("2000000100000001", "BECAUSE", Self.support),
            ("2000000100000012", "LEGAL", Self.operatorMember), ("no-such", "OTHER", Self.support),
        ]
        for (id, reason, staff) in steps {
            #expect(
                said { try store.requestConsumption(transactionId: id, reason: reason, by: staff, at: Self.at).deadline }
                    == said { try reference.requestConsumption(transactionId: id, reason: reason, by: staff, at: Self.at).deadline },
                "\(id) \(reason)")
        }
        let answerAt = Instant(millis: Self.at.millis + 3_600_000)
        for id in ["2000000100000001", "2000000100000001", "2000000100000012"] {
            #expect(
                said { try store.answerConsumption(transactionId: id, info, by: .apiKey("K"), at: answerAt).answer }
                    == said { try reference.answerConsumption(transactionId: id, info, by: .apiKey("K"), at: answerAt).answer }, "\(id)")
        }
        let listed = try store.consumptionRequests(appId: nil, limit: 10)
        #expect(listed == (try reference.consumptionRequests(appId: nil, limit: 10)))
        #expect(listed.count == 1 && listed[0].answer == info.json && listed[0].standing(at: answerAt) == .answered(late: false))
        #expect(try Self.audit(store, "apple.consumption") == Self.audit(reference, "apple.consumption"))
        // Each request names its transaction's product (the console's desk lists it), raised and answered alike.
        #expect(listed[0].productId == "com.storedesk.starvoyage.gems.300")
        let raised = try store.requestConsumption(transactionId: "2000000100000004", reason: "LEGAL", by: Self.support, at: answerAt)
        #expect(raised.productId == "com.storedesk.starvoyage.gems.60")
        #expect(try store.answerConsumption(transactionId: "2000000100000004", info, by: .apiKey("K"), at: answerAt).productId == raised.productId)
        #expect(try store.consumptionRequests(appId: "1002", limit: 10).isEmpty)
        #expect(try store.check() == [])
    }

    @Test(arguments: Backend.allCases) func staffExtendRenewalDatesAndSetTokensWithTheEnginesNotification(_ backend: Backend) throws {
        let store = try Self.store(backend)
        let reference = try Self.store(.sqlite)
        let request = try RenewalExtensionRequest(extendByDays: 14, extendReasonCode: 3, requestIdentifier: "outage-1")
        for staff in [Self.operatorMember, Self.support] {
            #expect(
                said { try store.extendRenewalDate(originalTransactionId: "2000000100000030", request, by: staff, readOnly: false, at: Self.at).effectiveDate }
                    == said { try reference.extendRenewalDate(originalTransactionId: "2000000100000030", request, by: staff, readOnly: false, at: Self.at).effectiveDate },
                "\(staff.role)")
        }
        let (row, events) = try #require(try store.subscriptionDetail(originalTransactionId: "2000000100000030"))
        let (referenceRow, _) = try #require(try reference.subscriptionDetail(originalTransactionId: "2000000100000030"))
        #expect(events.last?.notificationType == .renewalExtended)
        #expect(row.subscription.expiresDate == referenceRow.subscription.expiresDate)
        #expect(row.subscription.expiresDate == events.last?.transaction?.expiresDate)
        for (token, id) in [("7E3FB20B-4CDB-47CC-936D-99D65F608138", "2000000100000030"), ("nope", "2000000100000030"), ("7e3fb20b-4cdb-47cc-936d-99d65f608138", "no-such")] {
            #expect(
                said { try store.setAppAccountToken(token, originalTransactionId: id, by: Self.support, readOnly: false, at: Self.at) }
                    == said { try reference.setAppAccountToken(token, originalTransactionId: id, by: Self.support, readOnly: false, at: Self.at) },
                "\(token) \(id)")
        }
        let chain = try #require(try store.appStoreCustomer(transactionId: "2000000100000030")).purchases.filter {
            $0.transaction.originalTransactionId == "2000000100000030"
        }
        #expect(!chain.isEmpty && chain.allSatisfy { $0.appAccountToken == "7e3fb20b-4cdb-47cc-936d-99d65f608138" })
        #expect(try Self.audit(store, "apple") == Self.audit(reference, "apple"))
        #expect(try store.auditEntries(action: "apple.renewal", limit: 5).first?.role == "support")
        #expect(
            try store.entitledSubscriptionIds(appId: "1001", productId: "com.storedesk.starvoyage.vip.monthly")
                == reference.entitledSubscriptionIds(appId: "1001", productId: "com.storedesk.starvoyage.vip.monthly"))
        #expect(try store.check() == [])
    }
}
