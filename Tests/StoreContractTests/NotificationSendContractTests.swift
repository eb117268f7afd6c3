import Foundation
import StoreDeskCore
import StoreDeskPostgres
import StoreDeskSQLite
import StoreDeskStoreAPI
import Testing

/// Notifications sent on both backends: deliveries made from the log once an app has a notification URL
/// (only what is logged after it was set), claimed once however many claimers, each attempt recorded once,
/// fenced by its claim, and read back the same by `user show`, the console and Get Notification History.
@Suite(.serialized) struct NotificationSendContractTests {
    static let developer = StaffMember(name: "zhao.dev", role: .developer)
    static let at = Instant(millis: StoreContractTests.demoClock.millis + 60_000)

    func store(_ backend: Backend) throws -> any Store { try ContractStores.get().wholeStore(backend) }

    @Test(arguments: Backend.allCases) func deliveriesAreClaimedOnceRecordedOnceAndReadBack(_ backend: Backend) async throws {
        let store = try store(backend)
        // No URL: nothing to claim, nothing written.
        #expect(try await store.claimNotificationSends(claimer: "a", at: Self.at, lease: .seconds(60), limit: 10).isEmpty)
        var settings = AppSettings()
        settings.notificationURL = .some("http://127.0.0.1:9/apple")
        try store.updateApp(id: "1001", settings, by: Self.developer, at: Self.at)
        #expect(try store.app(id: "1001")?.notificationURL == "http://127.0.0.1:9/apple")
        // What the log held before the URL was set is not sent.
        #expect(try await store.claimNotificationSends(claimer: "a", at: Self.at, lease: .seconds(60), limit: 10).isEmpty)

        // A notification logged after it: one delivery, claimed by the first claimer only.
        try Self.logRenewals(["contract-send-1"], of: "10000005", in: store)

        let first = try await store.claimNotificationSends(claimer: "a", at: Self.at, lease: .seconds(60), limit: 10)
        #expect(first.map(\.event.notificationUUID) == ["contract-send-1"] && first.first?.attempt == 1)
        #expect(first.first?.url == "http://127.0.0.1:9/apple" && first.first?.appId == "1001")
        #expect(try await store.claimNotificationSends(claimer: "b", at: Self.at, lease: .seconds(60), limit: 10).isEmpty)
        let claim = try #require(first.first)

        // Another claimer's result is not recorded; the holder's is, once.
        let failed = NotificationSendAttempt(attempt: 1, at: Self.at, result: .unsuccessfulHTTPResponseCode, httpStatus: 500, detail: "HTTP 500", url: claim.url)
        let next = Self.at.adding(.hours(1))
        #expect(try await store.recordNotificationSend(claim, claimer: "b", attempt: failed, state: .pending(next: next)) == false)
        #expect(try await store.recordNotificationSend(claim, claimer: "a", attempt: failed, state: .pending(next: next)) == true)
        #expect(try await store.recordNotificationSend(claim, claimer: "a", attempt: failed, state: .pending(next: next)) == false)
        #expect(try store.notificationSendQueue() == NotificationSendQueue(pending: 1, retrying: 1, failed: 0, delivered: 0))

        // Not due before its retry; due after it, as attempt 2; then delivered.
        #expect(try await store.claimNotificationSends(claimer: "a", at: Self.at.adding(.minutes(59)), lease: .seconds(60), limit: 10).isEmpty)
        let second = try await store.claimNotificationSends(claimer: "b", at: next, lease: .seconds(60), limit: 10)
        #expect(second.map(\.attempt) == [2])
        let ok = NotificationSendAttempt(attempt: 2, at: next, result: .success, httpStatus: 200, detail: "", url: claim.url)
        #expect(try await store.recordNotificationSend(try #require(second.first), claimer: "b", attempt: ok, state: .delivered))
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

    /// A serve stopped mid-send gives its claims back: the delivery as it was (no attempt spent), due for any
    /// claimer at once instead of after the lease; only the holder's claim of that attempt is given back.
    @Test(arguments: Backend.allCases) func claimsGivenBackSpendNoAttempt(_ backend: Backend) async throws {
        let store = try store(backend)
        var settings = AppSettings()
        settings.notificationURL = .some("http://127.0.0.1:9/apple")
        try store.updateApp(id: "1001", settings, by: Self.developer, at: Self.at)
        try Self.logRenewals(["release-1"], of: "10000005", in: store)
        let claim = try #require(try await store.claimNotificationSends(claimer: "a", at: Self.at, lease: .seconds(60), limit: 10).first)
        #expect(try await store.releaseNotificationSends([claim], claimer: "b") == 0)
        #expect(try await store.claimNotificationSends(claimer: "b", at: Self.at, lease: .seconds(60), limit: 10).isEmpty)
        #expect(try await store.releaseNotificationSends([claim], claimer: "a") == 1)
        let again = try await store.claimNotificationSends(claimer: "b", at: Self.at, lease: .seconds(60), limit: 10)
        #expect(again.map(\.attempt) == [1] && again.map(\.eventId) == [claim.eventId])
        // The first holder's late record is fenced out; the new holder's counts.
        let failed = NotificationSendAttempt(attempt: 1, at: Self.at, result: .timedOut, httpStatus: nil, detail: "timed out", url: claim.url)
        #expect(try await store.recordNotificationSend(claim, claimer: "a", attempt: failed, state: .pending(next: Self.at.adding(.hours(1)))) == false)
        #expect(try await store.recordNotificationSend(try #require(again.first), claimer: "b", attempt: failed, state: .pending(next: Self.at.adding(.hours(1)))))
        #expect(try await store.releaseNotificationSends(again, claimer: "b") == 0, "a recorded attempt is not given back")
        #expect(try store.notificationSendQueue() == NotificationSendQueue(pending: 1, retrying: 1, failed: 0, delivered: 0))
    }

    /// Logs a DID_RENEW of the player's app-1001 subscription for each id, in one import.
    static func logRenewals(_ uuids: [String], of userId: String, in store: any Store) throws {
        let original = try #require(try store.profile(userId: userId).subscriptions.first { $0.appId == "1001" }?.id)
        let lines = try uuids.enumerated().map { index, uuid in
            let signed = at.adding(.seconds(Int64(index - uuids.count)))
            return try SubscriptionEvent(
                notificationType: .didRenew, notificationUUID: uuid, signedDate: signed, appAppleId: 6_741_000_101,
                bundleId: "com.storedesk.starvoyage", environment: "Production", status: 1,
                transaction: TransactionInfo(
                    transactionId: "20000001009900\(10 + index)", originalTransactionId: original, productId: SubscriptionsContractTests.monthly,
                    bundleId: "com.storedesk.starvoyage", purchaseDate: signed, originalPurchaseDate: signed, expiresDate: signed.adding(.days(30)))
            ).jsonLine()
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("send-\(UUID().uuidString).jsonl")
        try (lines.joined(separator: "\n") + "\n").write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let report = try store.importNotifications(from: NotificationFile(path: file.path), source: "send.jsonl", wallClock: at)
        #expect(report.imported == uuids.count, "\(report)")
    }

    /// `apps set APP --notification-url ""`: what waited for the URL stops. One never tried is not sent at all
    /// (so is one whose serve's claim ran out), one tried before is failed with its attempts kept, one out with
    /// a serve right then is failed when that serve records it, and setting a URL again sends none of them.
    @Test(arguments: Backend.allCases) func clearingTheURLStopsWhatWaitedForIt(_ backend: Backend) async throws {
        let store = try store(backend)
        var settings = AppSettings()
        settings.notificationURL = .some("http://127.0.0.1:9/apple")
        try store.updateApp(id: "1001", settings, by: Self.developer, at: Self.at)
        try Self.logRenewals(["stop-tried", "stop-out", "stop-abandoned", "stop-waiting"], of: "10000005", in: store)

        let tried = try #require(try await store.claimNotificationSends(claimer: "a", at: Self.at, lease: .seconds(60), limit: 1).first)
        #expect(tried.event.notificationUUID == "stop-tried")
        let failed = NotificationSendAttempt(attempt: 1, at: Self.at, result: .socketIssue, httpStatus: nil, detail: "refused", url: tried.url)
        #expect(try await store.recordNotificationSend(tried, claimer: "a", attempt: failed, state: .pending(next: Self.at.adding(.hours(1)))))
        let out = try #require(try await store.claimNotificationSends(claimer: "b", at: Self.at, lease: .seconds(60), limit: 1).first)
        #expect(out.event.notificationUUID == "stop-out")
        // A serve that claimed one for a second and died: its lease has run out when the URL is cleared.
        let abandoned = try await store.claimNotificationSends(claimer: "c", at: Self.at, lease: .seconds(1), limit: 1)
        #expect(abandoned.map(\.event.notificationUUID) == ["stop-abandoned"])
        #expect(try store.notificationSendQueue() == NotificationSendQueue(pending: 4, retrying: 1, failed: 0, delivered: 0))

        settings.notificationURL = .some(nil)
        try store.updateApp(id: "1001", settings, by: Self.developer, at: Self.at.adding(.seconds(5)))
        #expect(try store.app(id: "1001")?.notificationURL == nil)
        func delivery(_ uuid: String) throws -> NotificationDelivery? {
            try store.playerNotifications(userId: "10000005", limit: 50).first { $0.event.notificationUUID == uuid }?.delivery
        }
        #expect(try delivery("stop-waiting") == nil && delivery("stop-abandoned") == nil)
        #expect(try delivery("stop-tried")?.state == .failed && delivery("stop-tried")?.attempts.map(\.result) == [.socketIssue])
        #expect(try delivery("stop-out")?.state == .pending(next: Self.at))
        // The serve that had it out records its attempt: a retry would wait for ever, so it is failed.
        let later = NotificationSendAttempt(attempt: 1, at: Self.at, result: .timedOut, httpStatus: nil, detail: "timed out", url: out.url)
        #expect(try await store.recordNotificationSend(out, claimer: "b", attempt: later, state: .pending(next: Self.at.adding(.hours(1)))))
        #expect(try delivery("stop-out")?.state == .failed && delivery("stop-out")?.attempts.map(\.result) == [.timedOut])
        #expect(try store.notificationSendQueue() == NotificationSendQueue(pending: 0, retrying: 0, failed: 2, delivered: 0))
        let failures = try NotificationHistoryQuery(json: Array(#"{"startDate":0,"endDate":2000000000000,"onlyFailures":true}"#.utf8), paginationToken: nil)
        #expect(Set(try store.appNotifications(appId: "1001", failures, limit: 500).map(\.event.notificationUUID)) == ["stop-tried", "stop-out"])

        // A URL set again starts from the log's end: nothing of before is sent.
        settings.notificationURL = .some("http://127.0.0.1:9/again")
        try store.updateApp(id: "1001", settings, by: Self.developer, at: Self.at.adding(.seconds(6)))
        #expect(try await store.claimNotificationSends(claimer: "a", at: Self.at.adding(.days(10)), lease: .seconds(60), limit: 10).isEmpty)
    }
}
