import Foundation
import StoreDeskCore
import StoreDeskPostgres
import StoreDeskStore
import StoreDeskStoreAPI
import Testing

/// Notifications sent on both backends: deliveries made from the log once an app has a notification URL
/// (only what is logged after it was set), claimed once however many claimers, each attempt recorded once,
/// fenced by its claim, and read back the same by `user show`, the console and Get Notification History.
@Suite(.serialized) struct NotificationSendContractTests {
    static let developer = StaffMember(name: "zhao.dev", role: .developer)
    static let at = Instant(millis: StoreContractTests.demoClock.millis + 60_000)

    func store(_ backend: Backend) throws -> any Store { try ContractStores.get().wholeStore(backend) }

    @Test(arguments: Backend.allCases) func deliveriesAreClaimedOnceRecordedOnceAndReadBack(_ backend: Backend) throws {
        let store = try store(backend)
        // No URL: nothing to claim, nothing written.
        #expect(try store.claimNotificationSends(claimer: "a", at: Self.at, lease: .seconds(60), limit: 10).isEmpty)
        var settings = AppSettings()
        settings.notificationURL = .some("http://127.0.0.1:9/apple")
        try store.updateApp(id: "1001", settings, by: Self.developer, at: Self.at)
        #expect(try store.app(id: "1001")?.notificationURL == "http://127.0.0.1:9/apple")
        // What the log held before the URL was set is not sent.
        #expect(try store.claimNotificationSends(claimer: "a", at: Self.at, lease: .seconds(60), limit: 10).isEmpty)

        // A notification logged after it: one delivery, claimed by the first claimer only.
        let original = try #require(try store.profile(userId: "10000005").subscriptions.first { $0.appId == "1001" }?.id)
        let event = SubscriptionEvent(
            notificationType: .didRenew, notificationUUID: "contract-send-1", signedDate: Self.at, appAppleId: 6_741_000_101,
            bundleId: "com.storedesk.starvoyage", environment: "Production", status: 1,
            transaction: TransactionInfo(
                transactionId: "2000000100990001", originalTransactionId: original, productId: SubscriptionsContractTests.monthly,
                bundleId: "com.storedesk.starvoyage", purchaseDate: Self.at, originalPurchaseDate: Self.at, expiresDate: Self.at.adding(.days(30))))
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("send-\(UUID().uuidString).jsonl")
        try (try event.jsonLine() + "\n").write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let report = try store.importNotifications(from: NotificationFile(path: file.path), source: "send.jsonl", wallClock: Self.at)
        #expect(report.imported == 1, "\(report)")

        let first = try store.claimNotificationSends(claimer: "a", at: Self.at, lease: .seconds(60), limit: 10)
        #expect(first.map(\.event.notificationUUID) == ["contract-send-1"] && first.first?.attempt == 1)
        #expect(first.first?.url == "http://127.0.0.1:9/apple" && first.first?.appId == "1001")
        #expect(try store.claimNotificationSends(claimer: "b", at: Self.at, lease: .seconds(60), limit: 10).isEmpty)
        let claim = try #require(first.first)

        // Another claimer's result is not recorded; the holder's is, once.
        let failed = NotificationSendAttempt(attempt: 1, at: Self.at, result: .unsuccessfulHTTPResponseCode, httpStatus: 500, detail: "HTTP 500", url: claim.url)
        let next = Self.at.adding(.hours(1))
        #expect(try store.recordNotificationSend(claim, claimer: "b", attempt: failed, state: .pending(next: next)) == false)
        #expect(try store.recordNotificationSend(claim, claimer: "a", attempt: failed, state: .pending(next: next)) == true)
        #expect(try store.recordNotificationSend(claim, claimer: "a", attempt: failed, state: .pending(next: next)) == false)
        #expect(try store.notificationSendQueue() == NotificationSendQueue(pending: 1, retrying: 1, failed: 0, delivered: 0))

        // Not due before its retry; due after it, as attempt 2; then delivered.
        #expect(try store.claimNotificationSends(claimer: "a", at: Self.at.adding(.minutes(59)), lease: .seconds(60), limit: 10).isEmpty)
        let second = try store.claimNotificationSends(claimer: "b", at: next, lease: .seconds(60), limit: 10)
        #expect(second.map(\.attempt) == [2])
        let ok = NotificationSendAttempt(attempt: 2, at: next, result: .success, httpStatus: 200, detail: "", url: claim.url)
        #expect(try store.recordNotificationSend(try #require(second.first), claimer: "b", attempt: ok, state: .delivered))
        #expect(try store.notificationSendQueue() == NotificationSendQueue(pending: 0, retrying: 0, failed: 0, delivered: 1))

        // Read back: the player's notifications, the deliveries by id, and Get Notification History.
        let listed = try store.playerNotifications(userId: "10000005", limit: 50)
        let sent = try #require(listed.first { $0.event.notificationUUID == "contract-send-1" })
        #expect(sent.delivery?.state == .delivered && sent.delivery?.attempts.map(\.result) == [.unsuccessfulHTTPResponseCode, .success])
        #expect(sent.delivery?.attempts.map(\.httpStatus) == [500, 200])
        #expect(listed.filter { $0.event.notificationUUID != "contract-send-1" }.allSatisfy { $0.delivery == nil })
        #expect(try store.notificationDeliveries(eventIds: [sent.eventId])[sent.eventId] == sent.delivery)
        let all = try NotificationHistoryQuery(json: Array(#"{"startDate":0,"endDate":2000000000000}"#.utf8), paginationToken: nil)
        #expect(try store.appNotifications(appId: "1001", all, limit: 500).contains { $0.event.notificationUUID == "contract-send-1" })
        let failures = try NotificationHistoryQuery(json: Array(#"{"startDate":0,"endDate":2000000000000,"onlyFailures":true}"#.utf8), paginationToken: nil)
        #expect(try store.appNotifications(appId: "1001", failures, limit: 500).isEmpty)
    }
}
