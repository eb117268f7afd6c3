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

/// What `serve` takes of a store: the callback ledger, notifications taken in, the sender's areas and the
/// App Store Server API's.
public typealias GameServerStores = GameServerStore & NotificationImportStore & NotificationSenderStore & AppStoreServerAPIStore

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

    public var store: any GameServerStores
    public var settings: Settings
    public var log: RequestLog
    /// The notification sender's settings; nil: `serve` sends no notifications.
    public var sender: NotificationSender.Settings?

    public init(store: any GameServerStores, settings: Settings, log: RequestLog, sender: NotificationSender.Settings? = .init()) {
        self.store = store
        self.settings = settings
        self.log = log
        self.sender = sender
    }

    /// Serves until SIGTERM or SIGINT. `ready` gets the port once the server listens.
    public func run(ready: @escaping @Sendable (Int) -> Void = { _ in }) async throws {
        let ledger = try store.openCallbackLedger()
        let apps = AppDirectory(store: store)
        try apps.reload()
        let callbacks = CallbackHandler(ledger: ledger, apps: apps, settings: settings)
        let router = Router(context: ServeContext.self)
        router.middlewares.add(RequestLogMiddleware(log: log))
        let notifications = NotificationHandler(
            store: store, ledger: ledger, body: BodyReader(limit: settings.bodyLimit, timeout: settings.readTimeout))
        router.post("/notifications") { request, context in try await notifications.notification(request, context) }
        // Apple's App Store Server API, signed with the store's own chain (made now when it has none).
        let (chain, _) = try StoreSigner.chain(of: store, now: try store.now(wall: Instant(Date())).instant)
        // The notification sender: a task of this process beside the server, stopped with it.
        let sender = try self.sender.map { settings in
            NotificationSender(store: store, chain: chain, clock: try ServeClock(store: store), settings: settings, log: self.log)
        }
        AppStoreServerAPIHandler(
            store: store, apps: apps, chain: chain, tests: TestNotifications(), sender: sender,
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
