import Foundation
import Hummingbird
import NIOCore
import StoreDeskCore
import StoreDeskStoreAPI
import StoreDeskTrust

/// The TEST notifications this server signed, by token, for Get Test Notification Status (kept while it
/// runs: at most the newest 1,000).
final class TestNotifications: @unchecked Sendable {
    private let lock = NSLock()
    private var tests: [String: (appId: String, signedPayload: String, attempts: [NotificationSendAttempt])] = [:]
    private var order: [String] = []

    func keep(_ token: String, appId: String, signedPayload: String) {
        lock.withLock {
            tests[token] = (appId, signedPayload, [])
            order.append(token)
            if order.count > 1000 { tests[order.removeFirst()] = nil }
        }
    }

    /// A send attempt of the test (dropped when the test was forgotten meanwhile).
    func record(_ token: String, _ attempt: NotificationSendAttempt) {
        lock.withLock { tests[token]?.attempts.append(attempt) }
    }

    /// The test's signed payload and its attempts, for the app that asked for it only.
    func kept(_ token: String, appId: String) -> (signedPayload: String, attempts: [NotificationSendAttempt])? {
        lock.withLock {
            guard let found = tests[token], found.appId == appId else { return nil }
            return (found.signedPayload, found.attempts)
        }
    }
}
