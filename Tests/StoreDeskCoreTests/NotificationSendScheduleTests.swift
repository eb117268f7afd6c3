import StoreDeskCore
import Testing

/// Apple's retry schedule for notifications sent: 1, 12, 24, 48 and 72 hours after each failed attempt,
/// in subscription time at the app's rate, then failed.
struct NotificationSendScheduleTests {
    let start = Instant(millis: 1_795_161_600_000)

    @Test func realTimeRetriesAfterOneTwelveTwentyFourFortyEightAndSeventyTwoHours() {
        var at = start
        var waits: [Int64] = []
        for attempt in 1...5 {
            let next = try! #require(NotificationSendSchedule.nextAttempt(after: attempt, failedAt: at, rate: .realTime))
            waits.append(next.duration(since: at).millis / 3_600_000)
            at = next
        }
        #expect(waits == [1, 12, 24, 48, 72])
        #expect(NotificationSendSchedule.nextAttempt(after: 6, failedAt: at, rate: .realTime) == nil)
        #expect(NotificationSendSchedule.maximumAttempts == 6)
    }

    @Test func anAcceleratedRateShortensEveryWaitAlike() throws {
        // StoreKit's "one second is one day": an hour is 1/24 s.
        let rate = try #require(StoreKitTimeRate(rawValue: 6).timeRate)
        let waits = (1...5).map { NotificationSendSchedule.nextAttempt(after: $0, failedAt: start, rate: rate)!.duration(since: start).millis }
        #expect(waits == [42, 500, 1000, 2000, 3000])
        #expect(waits.reduce(0, +) < 7000)
    }

    @Test func theStateAfterAnAttempt() {
        #expect(NotificationSendSchedule.state(after: 1, result: .success, at: start, rate: .realTime) == .delivered)
        #expect(NotificationSendSchedule.state(after: 3, result: .timedOut, at: start, rate: .realTime) == .pending(next: start.adding(.hours(24))))
        #expect(NotificationSendSchedule.state(after: 6, result: .unsuccessfulHTTPResponseCode, at: start, rate: .realTime) == .failed)
        #expect(NotificationSendResult.of(status: 204) == .success && NotificationSendResult.of(status: 301) == .unsuccessfulHTTPResponseCode)
        #expect(NotificationSendResult.allCases.count == 11)
    }

    @Test func aDeliverySaysWhereItStands() {
        let failed = NotificationSendAttempt(attempt: 1, at: start, result: .unsuccessfulHTTPResponseCode, httpStatus: 500, detail: "HTTP 500", url: "http://x/")
        let ok = NotificationSendAttempt(attempt: 2, at: start, result: .success, httpStatus: 200, detail: "", url: "http://x/")
        #expect(NotificationDelivery(eventId: 1, appId: "a", state: .delivered, attempts: [failed, ok]).summary == "delivered after 2 attempts")
        let pending = NotificationDelivery(eventId: 1, appId: "a", state: .pending(next: start), attempts: [failed])
        #expect(pending.summary.hasPrefix("pending: attempt 2 of 6 due ") && pending.summary.hasSuffix("last HTTP 500") && pending.hadFailures)
    }

    @Test func theNotificationURLIsCheckedAsACallbackURLIs() throws {
        #expect(try AppSettings.parseNotificationURL("https://game.example/apple") == "https://game.example/apple")
        #expect(try AppSettings.parseNotificationURL("") == nil)
        for bad in ["ftp://x", "http://", "https://u:p@host/", "http://host/#x"] {
            #expect(throws: AppSettingError.self) { try AppSettings.parseNotificationURL(bad) }
            do { _ = try AppSettings.parseNotificationURL(bad) } catch { #expect(error.description.hasPrefix("--notification-url '")) }
        }
    }
}
