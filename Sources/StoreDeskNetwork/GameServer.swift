import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOHTTPTypes
import ServiceLifecycle
import StoreDeskCore
import StoreDeskStore

/// `storedesk serve`: StoreDesk as the game server, over HTTP (Hummingbird).
///
/// - `POST /callback`: the platform's callback. The body is verified with its app's AppKey (found by
///   `client_id`) exactly as `callback verify` does; a genuine one goes to the `GameServerLedger`, which
///   de-duplicates by order id, grants by the platform's rules and commits, and only then is `success`
///   (also for a repeat) or `fail: …` written back. A refused callback stores nothing.
/// - `POST /notifications`: an App Store Server Notification V2, verified with the store's trusted roots
///   and imported before the reply (`NotificationHandler`).
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

        public init(host: String = "127.0.0.1", port: Int = 8080, bodyLimit: Int = 64 * 1024, readTimeout: Double = 10, idleTimeout: Double = 30) {
            self.host = host
            self.port = port
            self.bodyLimit = bodyLimit
            self.readTimeout = readTimeout
            self.idleTimeout = idleTimeout
        }
    }

    public var database: AppDatabase
    public var settings: Settings
    public var log: RequestLog

    public init(database: AppDatabase, settings: Settings, log: RequestLog) {
        self.database = database
        self.settings = settings
        self.log = log
    }

    /// Serves until SIGTERM or SIGINT. `ready` gets the port once the server listens.
    public func run(ready: @escaping @Sendable (Int) -> Void = { _ in }) async throws {
        let ledger = GameServerLedger(database: database)
        let apps = AppDirectory(database: database)
        try apps.reload()
        let handler = CallbackHandler(ledger: ledger, apps: apps, settings: settings)
        let router = Router(context: ServeContext.self)
        router.middlewares.add(RequestLogMiddleware(log: log))
        router.post("/callback") { request, context in try await handler.callback(request, context) }
        let notifications = NotificationHandler(
            database: database, body: BodyReader(limit: settings.bodyLimit, timeout: settings.readTimeout))
        router.post("/notifications") { request, context in try await notifications.notification(request, context) }
        router.get("/healthz") { _, context in
            context.note.set("store ok")
            _ = try apps.healthy()
            return Response(status: .ok, headers: [.contentType: "text/plain"], body: .init(byteBuffer: ByteBuffer(string: "ok\n")))
        }
        let readTimeout = TimeAmount.nanoseconds(Int64(settings.readTimeout * 1_000_000_000))
        var logger = Logger(label: "storedesk-serve")
        logger.logLevel = .error
        let app = Application(
            router: router,
            server: .http1(
                configuration: .init(
                    additionalChannelHandlers: [BodyDeadline(timeout: readTimeout)],
                    idleTimeout: .nanoseconds(Int64(settings.idleTimeout * 1_000_000_000)))),
            configuration: .init(address: .hostname(settings.host, port: settings.port), serverName: nil),
            onServerRunning: { channel in ready(channel.localAddress?.port ?? 0) },
            logger: logger)
        defer { ledger.close() }
        try await app.runService(gracefulShutdownSignals: [.sigterm, .sigint])
    }
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
            let micros = Int((DispatchTime.now().uptimeNanoseconds - started) / 1000)
            let note = context.note.value
            log.write(
                "\(context.peer) \(request.method) \(request.uri.path) \(status) \(micros) µs" + (note.isEmpty ? "" : " " + note))
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
    private let database: AppDatabase
    private let lock = NSLock()
    private var apps: [String: (app: App, products: [Product])] = [:]
    private var loadedAt: UInt64 = 0

    init(database: AppDatabase) { self.database = database }

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

    func healthy() throws -> Int { try database.appsWithProducts().count }
}

/// `POST /callback`.
struct CallbackHandler: Sendable {
    let ledger: GameServerLedger
    let apps: AppDirectory
    let settings: GameServer.Settings

    func callback(_ request: Request, _ context: ServeContext) async throws -> Response {
        if let type = request.headers[.contentType],
            !type.lowercased().hasPrefix("application/x-www-form-urlencoded")
        {
            return reply(.unsupportedMediaType, "fail: the body must be application/x-www-form-urlencoded", context, "content-type \(type)")
        }
        let bytes: [UInt8]
        switch try await BodyReader(limit: settings.bodyLimit, timeout: settings.readTimeout).read(request) {
        case .tooLarge:
            return reply(.contentTooLarge, "fail: the body is larger than \(settings.bodyLimit) bytes", context, "body too large")
        case .tooSlow:
            return reply(.requestTimeout, "fail: the body did not arrive within \(Int(settings.readTimeout)) s", context, "body too slow")
        case .body(let body):
            bytes = body
        }
        let fields = PHPQuery.parseStr(bytes: bytes)
        let clientId = fields.text("client_id") ?? ""
        let orderText = "order_id=" + Masking.phoneNumbers(in: fields.text("order_id") ?? "-")
        guard let (app, products) = apps.app(clientId) else {
            let shown = clientId.isEmpty ? "(none)" : String(Masking.phoneNumbers(in: clientId).prefix(64))
            return reply(.ok, "fail: unknown app", context, "client_id=\(shown) \(orderText) refused: no such app")
        }
        let verification = CallbackSignature.verify(parsed: fields, appKey: app.appKey)
        let received = ReceivedCallback(
            app: app, products: products, verification: verification, body: String(decoding: bytes, as: UTF8.self),
            peer: context.peer, receivedAt: Instant(Date()))
        let decision: GrantDecision
        if verification.isValid {
            do {
                decision = try await ledger.record(received)
            } catch {
                return reply(.serviceUnavailable, "fail: the store is busy", context, "client_id=\(clientId) \(orderText) not stored: \(error)")
            }
        } else {
            decision = GrantRule.decide(
                verification: verification, app: app, products: products, alreadyGranted: { _ in false }, at: received.receivedAt)
        }
        let outcome: String
        switch decision.outcome {
        case .grant(let grant):
            let what = grant.kind == .product ? grant.productId : "\(grant.currencyAmount) currency"
            outcome = "granted \(what) to \(Masking.phoneNumbers(in: grant.userId))"
        case .duplicate: outcome = "repeat: granted nothing"
        case .reject(let refusal): outcome = "refused (\(refusal.code))"
        }
        let warnings = verification.warnings.isEmpty ? "" : "; warnings: " + verification.warnings.map(\.code).joined(separator: ", ")
        return reply(.ok, decision.reply, context, "client_id=\(clientId) \(orderText) \(outcome)\(warnings)")
    }

    private func reply(_ status: HTTPResponse.Status, _ text: String, _ context: ServeContext, _ note: String) -> Response {
        context.note.set("\"\(text)\" " + note)
        var headers: HTTPFields = [.contentType: "text/plain; charset=utf-8"]
        if status != .ok { headers[.connection] = "close" }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
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

/// Gives each request `timeout` from its head to its end: a task scheduled on the connection's event
/// loop at the head and cancelled at the end; if it runs, the request's body stream fails with
/// `BodyTooSlow` and the handler answers 408. All of it on the event loop, with no task of its own: a
/// deadline raced in a task group per request (a `Task.sleep` and two child tasks) cost a tenth of
/// `serve`'s throughput under load.
final class BodyDeadline: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    let timeout: TimeAmount
    private var timer: Scheduled<Void>?

    init(timeout: TimeAmount) { self.timeout = timeout }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            timer?.cancel()
            let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
            timer = context.eventLoop.scheduleTask(in: timeout) { bound.value.fireErrorCaught(BodyTooSlow()) }
        case .end:
            timer?.cancel()
            timer = nil
        case .body:
            break
        }
        context.fireChannelRead(data)
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
    }
}

/// Where `serve` writes its request lines: stderr, or a file. Thread-safe; a line is written whole, with
/// one `write(2)` and no buffering (a line is on disk, or in the pipe, when its response has gone).
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
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let millis = Int(now.tv_nsec / 1_000_000)
        lock.lock()
        defer { lock.unlock() }
        if now.tv_sec != second {
            second = now.tv_sec
            prefix = Self.stamp(seconds: now.tv_sec)
        }
        var bytes = prefix
        bytes.reserveCapacity(prefix.count + 6 + line.utf8.count)
        bytes += [Self.digit(millis / 100), Self.digit(millis / 10 % 10), Self.digit(millis % 10), UInt8(ascii: "Z"), UInt8(ascii: " ")]
        // An order_id or client_id comes from the request body: its controls are escaped, so it can neither
        // send a sequence to the terminal the log is on nor add a line to it.
        bytes += ControlCharacters.escaped(line).utf8
        bytes.append(UInt8(ascii: "\n"))
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
