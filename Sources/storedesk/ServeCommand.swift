import ArgumentParser
import Foundation
import StoreDeskCore
import StoreDeskNetwork
import StoreDeskStoreAPI

/// `storedesk serve`: StoreDesk as the game server, answering the platform's callbacks over HTTP.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve as the game server: POST /callback (verify, de-duplicate, grant, commit, reply), POST /notifications, GET /healthz.",
        discussion: """
            A callback is verified with its app's AppKey (found by client_id) exactly as `callback verify` \
            does, de-duplicated by order_id, granted by the platform's rules and committed before the reply: \
            success (also for a repeat) or fail. One log line per request on stderr (or --log), the AppKey \
            never shown and phone numbers masked. POST /notifications takes an App Store Server Notification \
            V2 ({"signedPayload": ...}), verified with the store's trusted roots (`trust add`) and imported \
            before the reply: 200, or 4xx with nothing stored. /inApps/... is Apple's App Store Server API \
            (Get Transaction Info, Transaction History v2, All Subscription Statuses, Look Up Order ID, Refund \
            History v2, test notifications, Set App Account Token), for a game server's Apple client with its base \
            URL changed: every request's JWT must be signed by a key registered with `apps set APP --api-key-file`; \
            what it returns is signed by the store's own chain (`signer root --pem` is the root to trust). SIGTERM or SIGINT stops it gracefully: \
            requests in flight finish and commit.
            """)

    @Option(help: ArgumentHelp("Where to listen (loopback by default; port 0 picks a free one).", valueName: "host:port"))
    var listen = "127.0.0.1:8080"
    @Option(help: ArgumentHelp("The largest request body taken, in bytes.", valueName: "bytes")) var maxBody = 64 * 1024
    @Option(help: "Seconds a request's body may take to arrive.") var readTimeout: Double = 10
    @Option(help: "Seconds a connection may stay silent before it is closed.") var idleTimeout: Double = 30
    @Option(help: "App Store Server API requests a second per API key (and its burst); past it 429 with errorCode 4290000.")
    var apiRateLimit = 10_000
    @Option(help: ArgumentHelp("Append the request log to this file instead of stderr.", valueName: "path")) var log: String?
    @OptionGroup var store: StoreOptions

    func validate() throws {
        _ = try Self.address(listen)
        guard maxBody >= 1024, maxBody <= 16 * 1024 * 1024 else { throw fail("--max-body must be from 1024 to 16777216 bytes, got \(maxBody)") }
        guard (1...1_000_000).contains(apiRateLimit) else { throw fail("--api-rate-limit must be from 1 to 1000000 requests a second, got \(apiRateLimit)") }
        for (name, value) in [("--read-timeout", readTimeout), ("--idle-timeout", idleTimeout)] {
            guard value > 0, value.isFinite, value <= 3600 else { throw fail("\(name) must be above 0 and at most 3600 seconds, got \(value)") }
        }
    }

    func run() async throws {
        let (host, port) = try Self.address(listen)
        let handle = try log.map(Self.openLog) ?? FileHandle.standardError
        // SIGTERM and SIGINT stop the server gracefully, so they must reach it even when the parent
        // started it with them blocked (test runners and some supervisors do); every thread made from
        // here on inherits this mask.
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGTERM)
        sigaddset(&signals, SIGINT)
        pthread_sigmask(SIG_UNBLOCK, &signals, nil)
        let database = try reporting { try store.open(.readWriteConcurrent) }
        let server = GameServer(
            store: database,
            settings: .init(
                host: host, port: port, bodyLimit: maxBody, readTimeout: readTimeout, idleTimeout: idleTimeout, apiRateLimit: apiRateLimit),
            log: RequestLog(handle: handle))
        let path = database.path
        try await reporting {
            try await server.run { port in
                FileHandle.standardOutput.write(
                    Data("storedesk serve: listening on http://\(host):\(port) (POST /callback, POST /notifications, /inApps, GET /healthz), store \(path)\n".utf8))
            }
        }
        print("storedesk serve: stopped")
    }

    /// The `--log` file, opened to append (made when missing). Opened without blocking, so a fifo that
    /// nobody reads is refused at once instead of holding the server before it listens.
    static func openLog(_ path: String) throws -> FileHandle {
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NONBLOCK | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            let reason = errno == ENXIO ? "a fifo nobody reads" : String(cString: strerror(errno))
            throw fail("--log \(path): cannot open it for writing (\(reason))")
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        return FileHandle(fileDescriptor: fd, closeOnDealloc: true)
    }

    /// `HOST:PORT`, checked: a port from 0 to 65535.
    static func address(_ text: String) throws -> (String, Int) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65535).contains(port),
            colon != text.startIndex
        else {
            throw fail("--listen '\(text.echoed)' is not HOST:PORT with a port from 0 to 65535")
        }
        return (String(text[..<colon]), port)
    }
}
