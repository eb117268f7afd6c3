import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypes
import NIOPosix
import ServiceLifecycle
import StoreDeskCore
import StoreDeskStoreAPI

/// `storedesk serve`: StoreDesk as the game server, over HTTP (Hummingbird).
///
/// - `POST /callback`: the platform's callback. The body is verified with its app's AppKey (found by
///   `client_id`) exactly as `callback verify` does; a genuine one goes to the store's `CallbackLedger`, which
///   de-duplicates by order id, grants by the platform's rules and commits, and only then is `success`
///   (also for a repeat) or `fail: …` written back. A refused callback stores nothing. Answered on the
///   connection's event loop by `CallbackChannelHandler`, ahead of Hummingbird's router (see there why).
/// - `POST /notifications`: an App Store Server Notification V2, verified with the store's trusted roots
///   and imported before the reply (`NotificationHandler`).
/// - `/inApps/…`: Apple's App Store Server API for the game server's own Apple client, each request
///   authenticated by an app's API key, what it returns signed by the store's chain (`AppStoreServerAPIHandler`).
/// - `GET /healthz`: 200 while the server runs and its store answers.
///
/// Bodies are bounded (`bodyLimit`), a body must arrive within `readTimeout`, a connection idle for
/// `idleTimeout` is closed, every request gets one log line (the AppKey never appears; phone numbers are
/// masked), and SIGTERM or SIGINT stops it gracefully: it stops accepting, lets requests in flight
/// finish and commit, then returns.
public struct GameServer: Sendable {
    public struct Settings: Sendable {
        public var host: String
        public var port: Int
        /// The largest body taken; a callback is under 2 KiB.
        public var bodyLimit: Int
        /// Seconds a request's body may take to arrive.
        public var readTimeout: Double
        /// Seconds a connection may stay without traffic (reading or writing) before it is closed.
        public var idleTimeout: Double

        /// The App Store Server API's requests a second per API key (and its burst): past it, 429 / 4290000.
        public var apiRateLimit: Int

        public init(
            host: String = "127.0.0.1", port: Int = 8080, bodyLimit: Int = 64 * 1024, readTimeout: Double = 10, idleTimeout: Double = 30,
            apiRateLimit: Int = 10_000
        ) {
            self.apiRateLimit = apiRateLimit
            self.host = host
            self.port = port
            self.bodyLimit = bodyLimit
            self.readTimeout = readTimeout
            self.idleTimeout = idleTimeout
        }
    }

    public var database: any Store
    public var settings: Settings
    public var log: RequestLog
    /// The notification sender's settings; nil: `serve` sends no notifications.
    public var sender: NotificationSender.Settings?

    public init(database: any Store, settings: Settings, log: RequestLog, sender: NotificationSender.Settings? = .init()) {
        self.database = database
        self.settings = settings
        self.log = log
        self.sender = sender
    }

    /// Serves until SIGTERM or SIGINT. `ready` gets the port once the server listens.
    public func run(ready: @escaping @Sendable (Int) -> Void = { _ in }) async throws {
        let ledger = try database.openCallbackLedger()
        let apps = AppDirectory(database: database)
        try apps.reload()
        let callbacks = CallbackHandler(ledger: ledger, apps: apps, settings: settings)
        let router = Router(context: ServeContext.self)
        router.middlewares.add(RequestLogMiddleware(log: log))
        let notifications = NotificationHandler(
            database: database, ledger: ledger, body: BodyReader(limit: settings.bodyLimit, timeout: settings.readTimeout))
        router.post("/notifications") { request, context in try await notifications.notification(request, context) }
        // Apple's App Store Server API, signed with the store's own chain (made now when it has none).
        let (chain, _) = try StoreSigner.chain(of: database, now: try database.now(wall: Instant(Date())).instant)
        // The notification sender: a task of this process beside the server, stopped with it.
        let sender = try self.sender.map { settings in
            NotificationSender(database: database, chain: chain, clock: try ServeClock(database: database), settings: settings, log: self.log)
        }
        AppStoreServerAPIHandler(
            database: database, apps: apps, chain: chain, tests: TestNotifications(), sender: sender,
            limits: APIRateLimits(perSecond: settings.apiRateLimit), body: BodyReader(limit: settings.bodyLimit, timeout: settings.readTimeout)
        ).register(on: router)
        router.get("/healthz") { _, context in
            context.note.set("store ok")
            _ = try apps.healthy()
            return Response(status: .ok, headers: [.contentType: "text/plain"], body: .init(byteBuffer: ByteBuffer(string: "ok\n")))
        }
        let readTimeout = TimeAmount.nanoseconds(Int64(settings.readTimeout * 1_000_000_000))
        var logger = Logger(label: "storedesk-serve")
        logger.logLevel = .error
        let http1 = HTTP1Channel.Configuration(
            additionalChannelHandlers: [BodyDeadline(timeout: readTimeout)],
            idleTimeout: .nanoseconds(Int64(settings.idleTimeout * 1_000_000_000)))
        let log = log
        let mailboxes = ReplyMailboxes(log: log)
        let loops = Self.loops
        let app = Application(
            router: router,
            server: HTTPServerBuilder { responder in
                CallbackChannel(
                    http1: HTTP1Channel(responder: responder, configuration: http1),
                    handler: { CallbackChannelHandler(callbacks: callbacks, log: log, mailboxes: mailboxes) })
            },
            configuration: .init(address: .hostname(settings.host, port: settings.port), serverName: nil),
            onServerRunning: { channel in ready(channel.localAddress?.port ?? 0) },
            eventLoopGroupProvider: .shared(loops),
            logger: logger)
        defer { ledger.close() }
        let sending = sender.map { sender in Task.detached { await sender.run() } }
        defer { sending?.cancel() }
        try await app.runService(gracefulShutdownSignals: [.sigterm, .sigint])
        sending?.cancel()
        await sending?.value
        // Callbacks whose clients hung up may still be in the ledger: committed before this returns, their
        // replies (to nobody) handed to loops that still run.
        ledger.close()
    }

    /// The event loops of every server this process runs: made once and never shut down, like NIO's own
    /// singleton group. A stopped server's connections are closed, but Hummingbird's side of them (async
    /// channel writers and streams) may be released later, from a task, and tell their loop with an
    /// `execute`: on loops this server had shut down, NIO printed "Cannot schedule tasks on an EventLoop
    /// that has already shut down" at a graceful stop.
    ///
    /// The loops do all of a callback's work but the commit (see `CallbackChannelHandler`), so they are
    /// twice as many as the cores: on a machine busy with other work, a loop that the kernel preempts
    /// holds up only its own connections. Measured on 2 cores under other load, same runs: 4 loops 8,486
    /// and 8,819 req/s, 2 loops 6,975 and 7,741.
    static let loops = MultiThreadedEventLoopGroup(numberOfThreads: 2 * System.coreCount)
}

/// The request context of `serve`: the peer's address, and a note the handler leaves for the log line.
struct ServeContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let peer: String
    /// The connection's event loop: the body's deadline is scheduled there.
    let eventLoop: any EventLoop
    let note = LogNote()

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        eventLoop = source.channel.eventLoop
        let address = source.channel.remoteAddress
        peer = address.map { ($0.ipAddress ?? "?") + ":" + String($0.port ?? 0) } ?? "?"
    }
}

/// What the handler wants said in the request's log line (a reference, so the middleware sees it).
final class LogNote: @unchecked Sendable {
    private let lock = NSLock()
    private var text = ""

    func set(_ value: String) {
        lock.lock()
        text = value
        lock.unlock()
    }

    var value: String {
        lock.lock()
        defer { lock.unlock() }
        return text
    }
}

/// Writes one line per request, after its response: time, peer, method, path, status, latency, note.
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = ServeContext
    let log: RequestLog

    func handle(_ request: Request, context: ServeContext, next: (Request, ServeContext) async throws -> Response) async throws -> Response {
        let started = DispatchTime.now().uptimeNanoseconds
        func line(_ status: Int) {
            log.request(
                peer: context.peer, method: "\(request.method)", path: request.uri.path, status: status, started: started,
                note: context.note.value)
        }
        // An empty path segment names no route: the router would read `//` as `/` and answer another path.
        if request.uri.path.contains("//") {
            line(404)
            return Response(
                status: .notFound, headers: [.contentType: "text/plain; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: "no such path: an empty segment ('//') in \(String(request.uri.path.prefix(200)))\n")))
        }
        do {
            let response = try await next(request, context)
            line(response.status.code)
            return response
        } catch let error as HTTPResponseError {
            line(error.status.code)
            throw error
        } catch {
            line(500)
            throw error
        }
    }
}

/// Apps and their catalogues by id, read from the store and read again (at most once a second) when a
/// callback names an app it does not know, so `apps add` on a running server is picked up.
final class AppDirectory: @unchecked Sendable {
    private let database: any AppsStore
    private let lock = NSLock()
    private var apps: [String: (app: App, products: [Product])] = [:]
    private var loadedAt: UInt64 = 0

    init(database: any AppsStore) { self.database = database }

    func reload() throws {
        let loaded = try database.appsWithProducts()
        lock.lock()
        apps = Dictionary(loaded.map { ($0.app.id, $0) }) { first, _ in first }
        loadedAt = DispatchTime.now().uptimeNanoseconds
        lock.unlock()
    }

    func app(_ id: String) -> (app: App, products: [Product])? {
        lock.lock()
        let found = apps[id]
        let stale = DispatchTime.now().uptimeNanoseconds - loadedAt > 1_000_000_000
        lock.unlock()
        if let found { return found }
        guard stale else { return nil }
        try? reload()
        lock.lock()
        defer { lock.unlock() }
        return apps[id]
    }

    /// The apps with this bundle id (an App Store Server API request names its app by `bid`), read again
    /// as `app(_:)` does when none is known.
    func apps(bundleId: String) -> [App] {
        func cached() -> ([App], Bool) {
            lock.lock()
            defer { lock.unlock() }
            let found = apps.values.map(\.app).filter { $0.bundleId == bundleId }.sorted { $0.id < $1.id }
            return (found, DispatchTime.now().uptimeNanoseconds - loadedAt > 1_000_000_000)
        }
        let (found, stale) = cached()
        guard found.isEmpty, stale else { return found }
        try? reload()
        return cached().0
    }

    func healthy() throws -> Int { try database.appsWithProducts().count }
}

/// `POST /callback`'s decisions, apart from how the bytes arrive (`CallbackChannelHandler` carries them):
/// a body comes to a reply at once (unknown app, bad sign) or to a genuine callback the ledger commits
/// first, and then to its reply.
struct CallbackHandler: Sendable {
    let ledger: any CallbackLedger
    let apps: AppDirectory
    let settings: GameServer.Settings

    /// What the server answers, and what the request's log line says after the reply in quotes.
    struct Reply: Sendable {
        var status: HTTPResponse.Status
        var text: String
        var note: String

        /// The log line's note: the reply, then what happened.
        var logNote: String { "\"\(text)\" " + note }
    }

    /// A genuine callback waiting for its commit, with what its log line needs.
    struct Pending: Sendable {
        var received: ReceivedCallback
        var clientId: String
        var orderText: String
    }

    enum Step: Sendable {
        case reply(Reply)
        case commit(Pending)
    }

    /// 415 for a body that is not a form (decided from the head, before the body is read).
    func refusal(contentType: String?) -> Reply? {
        guard let type = contentType, !type.lowercased().hasPrefix("application/x-www-form-urlencoded") else { return nil }
        return Reply(status: .unsupportedMediaType, text: "fail: the body must be application/x-www-form-urlencoded", note: "content-type \(type)")
    }

    var tooLarge: Reply {
        Reply(status: .contentTooLarge, text: "fail: the body is larger than \(settings.bodyLimit) bytes", note: "body too large")
    }

    var tooSlow: Reply {
        Reply(status: .requestTimeout, text: "fail: the body did not arrive within \(Int(settings.readTimeout)) s", note: "body too slow")
    }

    /// The body, parsed once and verified with its app's AppKey.
    func step(_ bytes: [UInt8], peer: String) -> Step {
        let fields = PHPQuery.parseStr(bytes: bytes)
        let clientId = fields.text("client_id") ?? ""
        let orderText = "order_id=" + Masking.phoneNumbers(in: fields.text("order_id") ?? "-")
        guard let (app, products) = apps.app(clientId) else {
            let shown = clientId.isEmpty ? "(none)" : String(Masking.phoneNumbers(in: clientId).prefix(64))
            return .reply(Reply(status: .ok, text: "fail: unknown app", note: "client_id=\(shown) \(orderText) refused: no such app"))
        }
        let verification = CallbackSignature.verify(parsed: fields, appKey: app.appKey)
        let received = ReceivedCallback(
            app: app, products: products, verification: verification, body: String(decoding: bytes, as: UTF8.self),
            peer: peer, receivedAt: ledger.now)
        guard verification.isValid else {
            let decision = GrantRule.decide(
                verification: verification, app: app, products: products, alreadyGranted: { _ in false }, at: received.receivedAt)
            return .reply(reply(decision, received: received, clientId: clientId, orderText: orderText))
        }
        return .commit(Pending(received: received, clientId: clientId, orderText: orderText))
    }

    /// The reply to a genuine callback once the ledger has committed it (or could not: nothing stored).
    func reply(_ result: Result<GrantDecision, any Error>, for pending: Pending) -> Reply {
        switch result {
        case .success(let decision):
            return reply(decision, received: pending.received, clientId: pending.clientId, orderText: pending.orderText)
        case .failure(let error):
            return Reply(
                status: .serviceUnavailable, text: "fail: the store is busy",
                note: "client_id=\(pending.clientId) \(pending.orderText) not stored: \(error)")
        }
    }

    private func reply(_ decision: GrantDecision, received: ReceivedCallback, clientId: String, orderText: String) -> Reply {
        let outcome: String
        switch decision.outcome {
        case .grant(let grant):
            let what = grant.kind == .product ? grant.productId : "\(grant.currencyAmount) currency"
            outcome = "granted \(what) to \(Masking.phoneNumbers(in: grant.userId))"
        case .duplicate: outcome = "repeat: granted nothing"
        case .reject(let refusal): outcome = "refused (\(refusal.code))"
        }
        let warnings = received.verification.warnings
        let warned = warnings.isEmpty ? "" : "; warnings: " + warnings.map(\.code).joined(separator: ", ")
        return Reply(status: .ok, text: decision.reply, note: "client_id=\(clientId) \(orderText) \(outcome)\(warned)")
    }
}

/// A request's body within the size limit, or why not. The time limit is `BodyDeadline`'s, on the
/// connection's event loop: when it passes, the body's stream fails with `BodyTooSlow`.
struct BodyReader: Sendable {
    let limit: Int
    /// Seconds the whole body may take to arrive (said in the 408's text; enforced by `BodyDeadline`).
    let timeout: Double

    enum Body {
        case body([UInt8])
        case tooLarge
        case tooSlow
    }

    func read(_ request: Request) async throws -> Body {
        do {
            var buffer = try await request.body.collect(upTo: limit)
            return .body(buffer.readBytes(length: buffer.readableBytes) ?? [])
        } catch let error as HTTPError where error.status == .contentTooLarge {
            return .tooLarge
        } catch is NIOTooManyBytesError {
            return .tooLarge
        } catch is BodyTooSlow {
            return .tooSlow
        }
    }
}

/// The body did not arrive within the read timeout.
struct BodyTooSlow: Error {}

/// Gives each request `timeout` from its head to its end: if a request is still open when a read is
/// over, a task is scheduled on the connection's event loop for its head's time plus `timeout` and
/// cancelled at its end; if it runs, the request's body stream fails with `BodyTooSlow` and the handler
/// answers 408. A request whose head and end come in one read (a callback almost always) schedules
/// nothing: a timer scheduled and cancelled per request was 3% of `serve`'s time. All of it on the event loop, with no
/// task of its own: a deadline raced in a task group per request (a `Task.sleep` and two child tasks)
/// cost a tenth of `serve`'s throughput under load.
final class BodyDeadline: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    let timeout: TimeAmount
    /// When the open request's head came; nil between requests.
    private var openSince: NIODeadline?
    private var timer: Scheduled<Void>?

    init(timeout: TimeAmount) { self.timeout = timeout }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            stop()
            openSince = .now()
        case .end:
            stop()
            openSince = nil
        case .body:
            break
        }
        context.fireChannelRead(data)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if let since = openSince, timer == nil {
            let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
            timer = context.eventLoop.scheduleTask(deadline: since + timeout) { bound.value.fireErrorCaught(BodyTooSlow()) }
        }
        context.fireChannelReadComplete()
    }

    private func stop() {
        timer?.cancel()
        timer = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        stop()
        openSince = nil
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        stop()
    }
}

/// Where `serve` writes its request lines: stderr, or a file. Thread-safe; a line is written whole, with
/// no buffering across requests: one `write(2)` for a line, right after its response, or for the lines
/// of the replies an event loop writes together (`Lines`), right after the last of them, in the same
/// turn of the loop. (A process killed between the two loses those lines, never what was committed:
/// the store, not the log, is the record.)
///
/// The time stamp is made by hand (`2026-11-23T23:53:01.123Z`), its date and time part once a second: an
/// `ISO8601DateFormatter` (ICU) per line cost as much as the rest of the line, and `FileHandle.write`
/// copied each line into a `Data` first.
public final class RequestLog: @unchecked Sendable {
    private let handle: FileHandle
    private let fd: Int32
    private let lock = NSLock()
    /// The second `prefix` was made for, and `2026-11-23T23:53:01.` for it.
    private var second = -1
    private var prefix: [UInt8] = []

    public init(handle: FileHandle = .standardError) {
        self.handle = handle
        fd = handle.fileDescriptor
    }

    public func write(_ line: String) {
        // An order_id or client_id comes from the request body: its controls are escaped, so it can neither
        // send a sequence to the terminal the log is on nor add a line to it.
        append(ControlCharacters.escaped(line))
    }

    /// Writes a line whose controls are already escaped, after its time stamp.
    private func append(_ line: String) {
        var bytes: [UInt8] = []
        stamped(line, into: &bytes)
        write(bytes)
    }

    /// Adds a line whose controls are already escaped, after its time stamp, to `bytes`.
    private func stamped(_ line: String, into bytes: inout [UInt8]) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let millis = Int(now.tv_nsec / 1_000_000)
        lock.lock()
        if now.tv_sec != second {
            second = now.tv_sec
            prefix = Self.stamp(seconds: now.tv_sec)
        }
        bytes += prefix
        lock.unlock()
        bytes.reserveCapacity(bytes.count + 6 + line.utf8.count)
        bytes += [Self.digit(millis / 100), Self.digit(millis / 10 % 10), Self.digit(millis % 10), UInt8(ascii: "Z"), UInt8(ascii: " ")]
        bytes += line.utf8
        bytes.append(UInt8(ascii: "\n"))
    }

    /// Writes whole lines with one `write(2)` (the lock keeps two writers' lines apart).
    private func write(_ bytes: [UInt8]) {
        lock.lock()
        defer { lock.unlock() }
        bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            var offset = 0
            while offset < raw.count {
                let written = Foundation.write(fd, base + offset, raw.count - offset)
                if written < 0 && errno == EINTR { continue }
                // A log that cannot be written (a full disk, a closed pipe) never stops the server.
                guard written > 0 else { return }
                offset += written
            }
        }
    }

    /// Lines gathered for one `write(2)`: the replies an event loop writes in one go (one commit's
    /// callbacks) log with one syscall instead of one each. Written by `flush` once those replies are
    /// written, before the loop returns to its sockets.
    struct Lines {
        fileprivate var bytes: [UInt8] = []
    }

    /// Adds one request's line (as `request(...)` writes it) to `lines`.
    func request(peer: String, method: String, path: String, status: Int, started: UInt64, note: String, into lines: inout Lines) {
        stamped(line(peer: peer, method: method, path: path, status: status, started: started, note: note), into: &lines.bytes)
    }

    /// Writes the gathered lines, and empties `lines`.
    func flush(_ lines: inout Lines) {
        guard !lines.bytes.isEmpty else { return }
        write(lines.bytes)
        lines.bytes.removeAll(keepingCapacity: true)
    }

    /// One request's line: `127.0.0.1:53122 POST /callback 200 412 µs "success" client_id=…`, the latency
    /// from `started` (`DispatchTime` nanoseconds) to now.
    ///
    /// Only the path and the note (which quote the request) are escaped: the line's own "µs" would send
    /// every line down `ControlCharacters`' slow path (its byte 0xC2 might start a C1 control).
    func request(peer: String, method: String, path: String, status: Int, started: UInt64, note: String) {
        append(line(peer: peer, method: method, path: path, status: status, started: started, note: note))
    }

    private func line(peer: String, method: String, path: String, status: Int, started: UInt64, note: String) -> String {
        let micros = (DispatchTime.now().uptimeNanoseconds &- started) / 1000
        let line = "\(peer) \(method) \(ControlCharacters.escaped(path)) \(status) \(micros) µs"
        return note.isEmpty ? line : line + " " + ControlCharacters.escaped(note)
    }

    private static func digit(_ value: Int) -> UInt8 { UInt8(ascii: "0") + UInt8(truncatingIfNeeded: value) }

    /// `2026-11-23T23:53:01.` in UTC.
    static func stamp(seconds: Int) -> [UInt8] {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : String(value) }
        let text = "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))."
        return Array(text.utf8)
    }
}
