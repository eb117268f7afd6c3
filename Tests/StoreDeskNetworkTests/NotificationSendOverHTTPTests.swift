import Foundation
import StoreDeskCore
import StoreDeskNetwork
@testable import StoreDeskSQLite
import StoreDeskStoreAPI
import Testing

/// serve's notification sender against receivers on 127.0.0.1 that answer as real ones do: a 2xx with a
/// long body, a connection closed mid-reply, one that never answers, a sender stopped mid-send. The sender
/// runs in this process on a demo store whose apps send at "one second is one day".
@Suite(.serialized) struct NotificationSendOverHTTPTests {
    static let developer = StaffMember(name: "zhao.dev", role: .developer)

    /// What a receiver does with a POST once it has read it whole.
    enum Answer: Sendable {
        /// A status and a body of `bodyBytes` bytes, then close.
        case reply(status: Int, bodyBytes: Int)
        /// The status line and headers promising `Content-Length: 1000`, a few bytes of it, then close.
        case closeMidBody
        /// Half a status line, then close.
        case closeMidHeaders
        /// Never answers (the connection is closed when the receiver stops).
        case hang
    }

    /// A loopback HTTP receiver on a thread of its own, each connection on another: one POST a connection,
    /// answered as `answer` says. At most 64 connections; `stop()` (also on deinit) closes everything.
    final class Receiver: @unchecked Sendable {
        let answer: Answer
        private(set) var port = 0
        private let listener: Int32
        private let lock = NSLock()
        private var received = 0
        private var stopping = false
        private var running = 0

        init(_ answer: Answer) throws {
            self.answer = answer
            listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard listener >= 0 else { throw POSIXError(.EIO) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) == 0 && getsockname(listener, $0, &length) == 0 }
            }
            guard bound, listen(listener, 64) == 0 else {
                close(listener)
                throw POSIXError(.EADDRINUSE)
            }
            port = Int(UInt16(bigEndian: address.sin_port))
            running = 1
            Thread.detachNewThread { [self] in accepting() }
        }

        deinit { stop() }

        /// POSTs read whole so far.
        var posts: Int { lock.withLock { received } }

        var url: String { "http://127.0.0.1:\(port)/apple/notifications" }

        /// Closes the listener and every connection, and waits (at most 5 s) for their threads.
        func stop() {
            lock.withLock { stopping = true }
            let deadline = Date().addingTimeInterval(5)
            while lock.withLock({ running }) > 0 && Date() < deadline { usleep(10_000) }
        }

        private var isStopping: Bool { lock.withLock { stopping } }

        /// Waits up to 50 ms for `fd` to be readable.
        private static func readable(_ fd: Int32) -> Bool {
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            return poll(&entry, 1, 50) > 0
        }

        private func accepting() {
            var accepted = 0
            while !isStopping && accepted < 64 {
                guard Self.readable(listener) else { continue }
                let connection = accept(listener, nil, nil)
                guard connection >= 0 else { continue }
                accepted += 1
                lock.withLock { running += 1 }
                Thread.detachNewThread { [self] in
                    serve(connection)
                    close(connection)
                    lock.withLock { running -= 1 }
                }
            }
            close(listener)
            lock.withLock { running -= 1 }
        }

        /// Reads one request (headers, then `Content-Length` bytes), then answers it.
        private func serve(_ connection: Int32) {
            var request: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 16_384)
            let deadline = Date().addingTimeInterval(10)
            while !isStopping && Date() < deadline && !Self.complete(request) {
                guard Self.readable(connection) else { continue }
                let count = read(connection, &buffer, buffer.count)
                if count <= 0 { return }
                request += buffer[0..<count]
            }
            guard Self.complete(request) else { return }
            lock.withLock { received += 1 }
            func say(_ text: String) { _ = Self.write(Array(text.utf8), to: connection) }
            switch answer {
            case .reply(let status, let bodyBytes):
                say("HTTP/1.1 \(status) Answer\r\nContent-Type: text/plain\r\nContent-Length: \(bodyBytes)\r\nConnection: close\r\n\r\n")
                let chunk = String(repeating: "x", count: 16_384)
                var left = bodyBytes
                while left > 0 && !isStopping {
                    let part = min(left, chunk.utf8.count)
                    let sent = Self.write(Array(chunk.utf8.prefix(part)), to: connection)
                    if sent <= 0 { return }
                    left -= sent
                }
            case .closeMidBody: say("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\nonly a part")
            case .closeMidHeaders: say("HTTP/1.1 200 OK\r\nContent-Le")
            case .hang: while !isStopping { usleep(20_000) }
            }
        }

        /// Sends what it can of `bytes` (no SIGPIPE when the client has gone); how many went, or -1.
        private static func write(_ bytes: [UInt8], to connection: Int32) -> Int {
            bytes.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }

        /// Whether the bytes hold a request's headers and the whole body they announce.
        private static func complete(_ request: [UInt8]) -> Bool {
            let text = String(decoding: request, as: UTF8.self)
            guard let end = text.range(of: "\r\n\r\n") else { return false }
            let length = text[..<end.lowerBound].split(separator: "\r\n")
                .first { $0.lowercased().hasPrefix("content-length:") }
                .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
            return text[end.upperBound...].utf8.count >= length
        }
    }

    /// A subscription of each demo app the tests send for: (app, original transaction, product, bundle, Apple id).
    static let subscriptions = [
        "1001": ("2000000100000030", "com.storedesk.starvoyage.vip.monthly", "com.storedesk.starvoyage", Int64(6_741_000_101)),
        "1002": ("2000000100000024", "com.storedesk.pocketgarden.plus.bimonthly", "com.storedesk.pocketgarden", Int64(6_741_000_102)),
    ]

    /// A demo store whose apps send to the URLs given, at "one second is one day" (StoreKit's time rate 6).
    static func store(_ folder: TemporaryFolder, urls: [String: String]) throws -> AppDatabase {
        let store = try Fixtures.demoStore(at: folder.path("store.sqlite"))
        let now = try store.now(wall: Instant(Date())).instant
        for (app, url) in urls {
            var settings = AppSettings()
            settings.notificationURL = .some(url)
            try #require(try store.updateApp(id: app, settings, by: developer, at: now) != nil)
            try store.write { db in
                try db.execute(
                    sql: """
                        INSERT INTO catalogue (app_id, source, format_version, imported_at, imported_by, storefront, currency, time_rate,
                          compatibility_time_rates, ask_to_buy, fail_transactions, billing_issues, billing_grace_period, disable_dialogs, enabled_errors)
                        VALUES (?, 'test.storekit', '4', ?, 'zhao.dev', 'USA', 'USD', 6, '[]', 0, 0, 0, 0, 0, '[]')
                        ON CONFLICT (app_id) DO UPDATE SET time_rate = 6
                        """,
                    arguments: [app, now.millis])
            }
        }
        return store
    }

    /// Logs a DID_RENEW of the app's demo subscription for each id, in one import.
    static func log(_ uuids: [String], app: String, in store: AppDatabase) throws {
        let (original, product, bundle, appleId) = try #require(subscriptions[app])
        let at = try store.now(wall: Instant(Date())).instant
        let lines = try uuids.enumerated().map { index, uuid in
            let signed = at.adding(.seconds(Int64(index - uuids.count)))
            return try SubscriptionEvent(
                notificationType: .didRenew, notificationUUID: uuid, signedDate: signed, appAppleId: appleId, bundleId: bundle,
                environment: "Production", status: 1,
                transaction: TransactionInfo(
                    transactionId: "20000001\(app)\(String(format: "%04d", index))", originalTransactionId: original, productId: product,
                    bundleId: bundle, purchaseDate: signed, originalPurchaseDate: signed, expiresDate: signed.adding(.days(30)))
            ).jsonLine()
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("send-\(UUID().uuidString).jsonl")
        try (lines.joined(separator: "\n") + "\n").write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let report = try store.importNotifications(from: NotificationFile(path: file.path), source: "send.jsonl", wallClock: at)
        try #require(report.imported == uuids.count, "\(report)")
    }

    /// Each notification's delivery, by its id.
    static func deliveries(_ store: AppDatabase) throws -> [String: NotificationDelivery] {
        let ids = try store.reader.read { db in
            try String.fetchAll(db, sql: "SELECT e.id || ' ' || e.notification_uuid FROM notification_delivery d JOIN subscription_event e ON e.id = d.event_id")
        }.compactMap { line -> (Int64, String)? in
            let parts = line.split(separator: " ", maxSplits: 1)
            return Int64(parts[0]).map { ($0, String(parts[1])) }
        }
        let found = try store.notificationDeliveries(eventIds: ids.map(\.0))
        return Dictionary(uniqueKeysWithValues: ids.compactMap { id, uuid in found[id].map { (uuid, $0) } })
    }

    /// Deliveries claimed or with an attempt recorded.
    static func claimedOrTried(_ store: AppDatabase) throws -> Int {
        try store.reader.read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM notification_delivery WHERE claimed_by IS NOT NULL OR attempts > 0") ?? -1
        }
    }

    /// A sender on the store, as serve makes it (5 s a POST), claiming every 20 ms.
    static func sender(_ store: AppDatabase) throws -> NotificationSender {
        let (chain, _) = try StoreSigner.chain(of: store, now: try store.now(wall: Instant(Date())).instant)
        return NotificationSender(
            store: store, chain: chain, clock: try ServeClock(store: store), settings: .init(interval: 0.02, batch: 8, timeout: 5))
    }

    /// Runs the sender until `done` holds (at most `seconds`), then stops it as SIGTERM stops serve's.
    /// Whether `done` held.
    static func run(_ sender: NotificationSender, upTo seconds: Double, until done: @escaping () throws -> Bool) async throws -> Bool {
        let running = Task { await sender.run() }
        defer { running.cancel() }
        let deadline = Date().addingTimeInterval(seconds)
        var held = try done()
        while !held && Date() < deadline {
            try await Task.sleep(nanoseconds: 20_000_000)
            held = try done()
        }
        running.cancel()
        await running.value
        return held
    }

    /// One notification of app 1001 sent to a receiver answering `answer` until `done` holds for its delivery
    /// (at most 10 s): the delivery, and how many POSTs the receiver read.
    static func sendOne(_ uuid: String, to answer: Answer, until done: @escaping (NotificationDelivery?) -> Bool) async throws -> (NotificationDelivery, Int) {
        let folder = TemporaryFolder()
        let receiver = try Receiver(answer)
        defer { receiver.stop() }
        let store = try Self.store(folder, urls: ["1001": receiver.url])
        try Self.log([uuid], app: "1001", in: store)
        let held = try await Self.run(try Self.sender(store), upTo: 10) { done(try Self.deliveries(store)[uuid]) }
        let delivery = try #require(try Self.deliveries(store)[uuid])
        try #require(held, "\(delivery)")
        return (delivery, receiver.posts)
    }

    @Test func aTwoHundredWithABodyOver64KiBDelivers() async throws {
        let (delivery, posts) = try await Self.sendOne("long-reply", to: .reply(status: 200, bodyBytes: 1_000_000)) { $0?.attempts.isEmpty == false }
        #expect(delivery.state == .delivered, "\(delivery)")
        #expect(delivery.attempts.map(\.result) == [.success] && delivery.attempts.first?.httpStatus == 200, "\(delivery.attempts)")
        #expect(posts == 1)
    }

    @Test(arguments: [Answer.closeMidBody, .closeMidHeaders])
    func aReceiverClosingMidReplyIsAPrematureClose(_ answer: Answer) async throws {
        let (delivery, _) = try await Self.sendOne("closed-early", to: answer) { $0?.attempts.isEmpty == false }
        let attempt = try #require(delivery.attempts.first)
        #expect(attempt.result == .prematureClose && attempt.httpStatus == nil, "\(attempt)")
    }

    @Test func aSenderStoppedMidSendSpendsNoAttempt() async throws {
        let folder = TemporaryFolder()
        let hanging = try Receiver(.hang)
        defer { hanging.stop() }
        let store = try Self.store(folder, urls: ["1001": hanging.url])
        try Self.log(["stopped-mid-send"], app: "1001", in: store)
        // Stopped while its POST waits for a reply: nothing recorded, the delivery as it was, unclaimed.
        let posted = try await Self.run(try Self.sender(store), upTo: 10) { hanging.posts == 1 }
        #expect(posted)
        let waiting = try #require(try Self.deliveries(store)["stopped-mid-send"])
        #expect(waiting.attempts.isEmpty && waiting.state.nextAttempt != nil, "\(waiting)")
        #expect(try Self.claimedOrTried(store) == 0)

        // The next serve sends it at once, as attempt 1.
        let answering = try Receiver(.reply(status: 200, bodyBytes: 2))
        defer { answering.stop() }
        var settings = AppSettings()
        settings.notificationURL = .some(answering.url)
        try #require(try store.updateApp(id: "1001", settings, by: Self.developer, at: try store.now(wall: Instant(Date())).instant) != nil)
        let delivered = try await Self.run(try Self.sender(store), upTo: 10) { try Self.deliveries(store)["stopped-mid-send"]?.state == .delivered }
        #expect(delivered)
        let attempts = try #require(try Self.deliveries(store)["stopped-mid-send"]).attempts
        #expect(attempts.map(\.attempt) == [1] && attempts.map(\.result) == [.success], "\(attempts)")
    }

    @Test func retriesComeAtTheAppsRate() async throws {
        // Three attempts: 1 and 12 hours apart at a day a second, 42 ms and 500 ms of store time.
        let (delivery, posts) = try await Self.sendOne("retried", to: .reply(status: 500, bodyBytes: 2)) { ($0?.attempts.count ?? 0) >= 3 }
        let attempts = delivery.attempts
        #expect(attempts.prefix(3).map(\.result) == Array(repeating: .unsuccessfulHTTPResponseCode, count: 3))
        let gaps = zip(attempts.dropFirst(), attempts).map { $0.at.millis - $1.at.millis }
        // Never the claim's minute: seconds at most, however loaded the machine.
        #expect(gaps[0] >= 41 && gaps[0] < 5_000 && gaps[1] >= 500 && gaps[1] < 5_500, "\(gaps)")
        #expect(posts >= 3)
    }

    @Test func aHangingReceiverHoldsUpNoOtherApp() async throws {
        let folder = TemporaryFolder()
        let hanging = try Receiver(.hang), answering = try Receiver(.reply(status: 200, bodyBytes: 2))
        defer {
            hanging.stop()
            answering.stop()
        }
        let store = try Self.store(folder, urls: ["1001": hanging.url, "1002": answering.url])
        try Self.log(["to-the-hanging-app"], app: "1001", in: store)
        let sender = try Self.sender(store)
        let running = Task { await sender.run() }
        defer { running.cancel() }
        // App 1001's POST is out, waiting for a reply it will not get before its 5 s timeout.
        var deadline = Date().addingTimeInterval(10)
        while hanging.posts == 0 && Date() < deadline { try await Task.sleep(nanoseconds: 20_000_000) }
        try #require(hanging.posts == 1)
        // App 1002's notification, logged now, is delivered while 1001's still hangs.
        try Self.log(["to-the-answering-app"], app: "1002", in: store)
        deadline = Date().addingTimeInterval(10)
        while try Self.deliveries(store)["to-the-answering-app"]?.state != .delivered && Date() < deadline {
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        let deliveries = try Self.deliveries(store)
        #expect(deliveries["to-the-answering-app"]?.state == .delivered, "\(deliveries)")
        #expect(deliveries["to-the-hanging-app"]?.attempts.isEmpty == true, "1001's send had not ended: \(deliveries)")
        running.cancel()
        await running.value
    }
}
