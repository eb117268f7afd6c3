import Foundation
import StoreDeskCore
import StoreDeskTrust
import Testing

/// Notifications are stamped on the store's one time line (`imported_at`), by `events import` and by
/// `serve`'s POST /notifications alike, however far the wall clock is from the store's: the real binary on
/// a copy of the demo store, whose clock is behind the wall clock.
@Suite(.serialized) struct NotificationClockTests {
    /// The demo store's clock, 2026-11-20T08:00:00Z.
    static let clock: Int64 = 1_795_161_600_000
    static let minute: Int64 = 60_000
    static let day: Int64 = 86_400_000

    /// A new monthly subscription of the demo catalogue (app 1001, Production), signed at `signed`.
    static func event(uuid: String, transaction: String, signed: Instant) -> SubscriptionEvent {
        SubscriptionEvent(
            notificationType: .subscribed, subtype: .initialBuy, notificationUUID: uuid, signedDate: signed,
            appAppleId: 6_741_000_101, bundleId: "com.storedesk.starvoyage", environment: "Production", status: 1,
            transaction: TransactionInfo(
                transactionId: transaction, originalTransactionId: transaction, productId: "com.storedesk.starvoyage.vip.monthly",
                bundleId: "com.storedesk.starvoyage", purchaseDate: signed, originalPurchaseDate: signed,
                expiresDate: signed.adding(.days(30))),
            renewal: RenewalInfo(originalTransactionId: transaction, productId: "com.storedesk.starvoyage.vip.monthly", autoRenewStatus: 1))
    }

    static func sql(_ path: String, _ query: String) throws -> String { try RestoreCommandTests.sql(path, query) }

    static func importedAt(_ path: String, _ uuid: String) throws -> Int64? {
        Int64(try sql(path, "SELECT imported_at FROM subscription_event WHERE notification_uuid = '\(uuid)'"))
    }

    static func storeClock(_ path: String) throws -> Int64? {
        Int64(try sql(path, "SELECT value FROM store_meta WHERE key = 'clock'"))
    }

    /// `storedesk serve` on `store` at a port of its own; stopped by SIGTERM.
    final class Serve {
        let process = Process()
        let output: String
        private(set) var port = 0

        init(store: String, home: TemporaryHome, extra: [String] = []) throws {
            output = home.path("serve-" + UUID().uuidString + ".out")
            try Data().write(to: URL(fileURLWithPath: output))
            process.executableURL = URL(fileURLWithPath: Binary.path)
            process.arguments = ["serve", "--listen", "127.0.0.1:0", "--db", store, "--log", home.path("serve.log")] + extra
            process.environment = ["HOME": home.url.path, "LANG": "C.UTF-8", "TZ": "UTC"]
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
            process.standardOutput = handle
            process.standardError = handle
            process.standardInput = FileHandle.nullDevice
            try process.run()
            let deadline = Date().addingTimeInterval(60)
            while Date() < deadline && process.isRunning {
                let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
                if let range = text.range(of: "listening on http://127.0.0.1:"),
                    let port = Int(text[range.upperBound...].prefix { $0.isNumber })
                {
                    self.port = port
                    return
                }
                usleep(50_000)
            }
            stop()
        }

        /// SIGTERM, then its exit status (a graceful stop is 0).
        @discardableResult
        func stop() -> Int32 {
            if process.isRunning { kill(process.processIdentifier, SIGTERM) }
            let deadline = Date().addingTimeInterval(20)
            while process.isRunning && Date() < deadline { usleep(20_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            return process.terminationStatus
        }

        deinit { stop() }
    }

    @Test func eventsImportAndServeStampNotificationsOnTheStoresTimeLineNotTheWallClock() throws {
        let home = TemporaryHome()
        let store = try HardeningTests.demoStore(home)
        try #require(try Self.storeClock(store) == Self.clock)
        try #require(Self.clock < Instant(Date()).millis - Self.day, "the demo store's clock is behind the wall clock")
        let chain = try SigningChain(name: "Clock Test App Store")
        let root = home.path("root.pem")
        try Data(try chain.rootPEM().utf8).write(to: URL(fileURLWithPath: root))
        let trusted = try Binary.run(["trust", "add", root, "--role", "developer", "--db", store], home: home)
        #expect(trusted.status == 0, "\(trusted.stderr)")
        let stampedBefore = try #require(try Self.storeClock(store))

        // `events import`: a notification signed a day before the store's clock is stamped at the clock.
        let file = home.path("one.jsonl")
        let first = try chain.signedNotificationLine(
            Self.event(uuid: "clock-import-1", transaction: "2000000100009101", signed: Instant(millis: Self.clock - Self.day)))
        try Data((first + "\n").utf8).write(to: URL(fileURLWithPath: file))
        let imported = try Binary.run(["events", "import", file, "--db", store], home: home)
        #expect(imported.status == 0, "\(imported.stdout)\(imported.stderr)")
        let importStamp = try #require(try Self.importedAt(store, "clock-import-1"))
        #expect(importStamp == stampedBefore, "imported_at \(importStamp), the store's clock \(stampedBefore)")

        // `serve`'s POST /notifications: stamped on the time line serve runs, from the store's clock on.
        let serve = try Serve(store: store, home: home)
        try #require(serve.port > 0, "serve did not listen: \((try? String(contentsOfFile: serve.output, encoding: .utf8)) ?? "")")
        let second = try chain.signedNotificationLine(
            Self.event(uuid: "clock-serve-1", transaction: "2000000100009102", signed: Instant(millis: Self.clock - Self.day)))
        let body = home.path("body.json")
        try Data(second.utf8).write(to: URL(fileURLWithPath: body))
        let posted = try shell(
            "curl -s --max-time 10 -H 'Content-Type: application/json' --data-binary @\(body) http://127.0.0.1:\(serve.port)/notifications"
        ).output
        #expect(posted.hasPrefix("imported"), "\(posted)")
        #expect(serve.stop() == 0)
        let serveStamp = try #require(try Self.importedAt(store, "clock-serve-1"))
        let clockAfter = try #require(try Self.storeClock(store))
        #expect(
            serveStamp >= importStamp && serveStamp < importStamp + 5 * Self.minute,
            "on the store's time line, not the wall's: \(serveStamp) after \(importStamp)")
        #expect(serveStamp <= clockAfter, "the store's clock \(clockAfter) reached the stamp \(serveStamp)")

        // And `check` finds nothing stamped after the store's clock, nor anything else.
        let check = try Binary.run(["check", "--db", store], home: home)
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        #expect(!check.stdout.contains("stamp_after_clock"), "\(check.stdout)")
    }
}
