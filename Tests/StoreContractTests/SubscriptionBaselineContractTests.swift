import Foundation
import StoreDeskCore
import StoreDeskPostgres
import StoreDeskSQLite
import StoreDeskStoreAPI
import Testing

/// A chain the store kept without notifications keeps its past when its first one comes: a
/// support refund and its reversal on 10000002's quarterly subscription kept neither its
/// offer nor its paid period before. On both backends, what the store knew goes into the log first
/// (`SubscriptionBaseline`), is never sent nor in Apple's notification history, and folds to the row.
@Suite(.serialized) struct SubscriptionBaselineContractTests {
    typealias Store = AppleSupportContractTests.SupportStore
    static let support = AppleSupportContractTests.support
    static let at = AppleSupportContractTests.at

    /// The demo's subscriptions, none of which has a notification (2000000100000241's chain has them all),
    /// but 2000000100000090 (revoked by family sharing: no support action takes it).
    static let demoChains = [
        "2000000100000003", "2000000100000010", "2000000100000019", "2000000100000024", "2000000100000030", "2000000100000035",
        "2000000100000037", "2000000100000043", "2000000100000047", "2000000100000050", "2000000100000054", "2000000100000074",
        "2000000100000078", "2000000100000091",
    ]

    static func row(_ store: any Store, _ id: String) throws -> Subscription {
        try #require(try store.appStoreCustomer(transactionId: id)?.subscriptions.first { $0.id == id })
    }

    /// What a chain says at an instant, field by field, to compare a row with a fold.
    static func said(_ info: SubscriptionInfo?) -> String {
        guard let info else { return "nothing" }
        return [
            info.state.rawValue, info.productId, "\(info.originalPurchaseDate.millis)", "\(info.purchaseDate.millis)",
            "\(info.expiresDate.millis)", "\(info.gracePeriodExpiresDate?.millis ?? 0)", "\(info.autoRenew)",
            info.offerType?.key ?? "-", info.offerId ?? "-", info.expirationIntent?.key ?? "-", info.revocation?.rawValue ?? "-",
        ].joined(separator: " ")
    }

    @Test(arguments: Backend.allCases) func aRefundAndItsReversalKeepTheOfferAndThePaidPeriodsBefore(_ backend: Backend) throws {
        let store = try AppleSupportContractTests.store(backend)
        let id = "2000000100000050"
        let before = try Self.row(store, id)
        #expect(before.offerId == "DRAGON2026" && before.offerType == "offer_code")
        _ = try store.refund(id, reason: "charged by mistake", appIssue: false, by: Self.support, at: Self.at)
        _ = try store.reverseRefund(id, reason: "refund declined on review", by: Self.support, at: Instant(millis: Self.at.millis + 60_000))
        let after = try Self.row(store, id)
        #expect(after.state == .active)
        #expect(after.offerType == "offer_code" && after.offerId == "DRAGON2026", "\(after)")
        #expect(after.originalPurchaseDate == before.originalPurchaseDate && after.expiresDate == before.expiresDate)
        let (_, events) = try #require(try store.subscriptionDetail(originalTransactionId: id))
        let timeline = SubscriptionTimeline(events: events)
        #expect(timeline.events.map(\.appleName) == ["SUBSCRIBED/INITIAL_BUY", "REFUND", "REFUND_REVERSED"])
        #expect(timeline.events.map(\.isStoreRecord) == [true, false, false])
        // The refund and its reversal read back as support's own actions, never as simulated or unverified.
        #expect(timeline.events.map(\.isSupportAction) == [false, true, true])
        #expect(timeline.events[1].trustMark == SubscriptionEvent.supportActionLabel)
        #expect(timeline.events[0].signedDate == before.originalPurchaseDate)
        // The paid period before the refund is in the log: the chart and `subs` at any earlier instant see it.
        let october = Instant(millis: before.originalPurchaseDate.millis + 30 * 86_400_000)
        let then = timeline.snapshot(at: october).all.first { $0.originalTransactionId == id }
        #expect(then?.state == .active && then?.offerId == "DRAGON2026")
        // The support action's REFUND carries the period's offer, as Apple's would.
        #expect(timeline.events[1].transaction?.offerIdentifier == "DRAGON2026")
        // Apple sent none of the store's record: not in Get Notification History.
        let history = try NotificationHistoryQuery(
            json: Array(#"{"startDate":0,"endDate":4000000000000,"transactionId":"\#(id)"}"#.utf8), paginationToken: nil)
        let listed = try store.appNotifications(appId: after.appId, history, limit: 50).map(\.event.notificationType)
        #expect(listed == [.refund, .refundReversed], "\(listed)")
        #expect(try store.check() == [])
    }

    /// A player's history marks the store's record as the Subscriptions timeline does: the
    /// `STORE-RECORD-` lines a first support refund writes are `store_record`, not `unverified` (they are no
    /// notification, so carry no signature), and the refund itself is `support` (support's own action, never
    /// `unverified` or simulated).
    @Test(arguments: Backend.allCases) func theHistoryMarksTheStoresRecordAsTheTimelineDoes(_ backend: Backend) throws {
        let store = try AppleSupportContractTests.store(backend)
        _ = try store.refund("2000000100000050", reason: "charged by mistake", appIssue: false, by: Self.support, at: Self.at)
        let lines = try (store as! any HistoryStore).history(userId: "10000002", kinds: [.notification], before: nil, limit: 50)
        let record = lines.filter { $0.detail.contains(SubscriptionBaseline.uuidPrefix) }
        #expect(!record.isEmpty && record.allSatisfy { $0.trust == .storeRecord }, "\(lines)")
        #expect(record.map { $0.trust?.label } == record.map { _ in "store record" })
        let others = lines.filter { !$0.detail.contains(SubscriptionBaseline.uuidPrefix) }
        #expect(others.map(\.trust) == [.support], "\(others)")
        #expect(others.first?.detail.hasPrefix("REFUND") == true)
    }

    /// Every demo chain's record folds to what its row says (active, grace period, billing retry,
    /// expired, refunded, auto-renew off, an upgrade mid-period), and both backends write the same record.
    @Test(arguments: Backend.allCases) func everyDemoChainsRecordFoldsToItsRow(_ backend: Backend) throws {
        let store = try AppleSupportContractTests.store(backend)
        let reference = try AppleSupportContractTests.store(.sqlite)
        for id in Self.demoChains {
            let row = try Self.row(store, id)
            // The first notification: a refund, or the reversal of a refunded one.
            func act(_ target: any Store) throws {
                if row.state == .revoked {
                    _ = try target.reverseRefund(id, reason: "goodwill", by: Self.support, at: Self.at)
                } else {
                    _ = try target.refund(id, reason: "asked", appIssue: false, by: Self.support, at: Self.at)
                }
            }
            try act(store)
            if backend == .postgres { try act(reference) }
            let (_, events) = try #require(try store.subscriptionDetail(originalTransactionId: id))
            let record = events.filter(\.isStoreRecord)
            #expect(!record.isEmpty, "\(id)")
            #expect(record.allSatisfy { $0.signedDate <= Self.at }, "\(id)")
            let folded = ChainFolding(events: record).info(at: Self.at, billingRetryLimit: row.timeRate.billingRetryLimit)
            #expect(Self.said(folded) == Self.said(row.info(at: Self.at)), "\(id)")
            if backend == .postgres {
                let (_, theirs) = try #require(try reference.subscriptionDetail(originalTransactionId: id))
                #expect(
                    SubscriptionTimeline(events: events).events.filter(\.isStoreRecord).map { "\($0.appleName) \($0.signedDate.millis)" }
                        == SubscriptionTimeline(events: theirs).events.filter(\.isStoreRecord).map { "\($0.appleName) \($0.signedDate.millis)" },
                    "\(id)")
            }
        }
        #expect(try store.check() == [])
    }
}
