import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import StoreDeskCore

/// POSTs callbacks to game servers: one shared `HTTPClient` (a pool of keep-alive connections per host,
/// at most `connectionsPerHost` of them, so concurrency is bounded) with a timeout on every request.
/// Shut it down before the process exits.
///
///     let poster = CallbackPoster(timeout: 5)
///     let reply = await poster.post(body, to: "http://127.0.0.1:8080/callback")
///     try await poster.shutdown()
public final class CallbackPoster: Sendable {
    /// The platform's default: a game server that has not answered in five seconds has failed the delivery.
    public static let defaultTimeout = 5.0
    /// The most of a reply body that is read (the rest is dropped unread); a callback's reply is a word.
    static let replyLimit = 64 * 1024

    let client: HTTPClient
    public let timeout: Double

    public init(timeout: Double = CallbackPoster.defaultTimeout, connectionsPerHost: Int = 16) {
        self.timeout = timeout
        let amount = TimeAmount.nanoseconds(Int64(timeout * 1_000_000_000))
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: amount, read: amount),
            connectionPool: .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: connectionsPerHost))
        configuration.httpVersion = .http1Only
        // A refused connection is a failed delivery at once (the queue's backoff retries it), not a
        // connection retried until the timeout.
        configuration.connectionPool.retryConnectionEstablishment = false
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// Closes every connection. Call once, before exiting.
    public func shutdown() async throws {
        try await client.shutdown()
    }

    /// Closes every connection, for a synchronous caller that is done with it (the console on its way
    /// out, its loop over): the HTTP client's own blocking shutdown.
    public func shutdownBlocking() throws {
        try client.syncShutdown()
    }

    /// POSTs one form-encoded body and says what came back, never throwing: a failure is a reply too.
    public func post(_ body: String, to url: String) async -> CallbackReply {
        await post(bytes: Array(body.utf8), to: url)
    }

    /// POSTs raw body bytes (they need not be UTF-8).
    public func post(bytes body: [UInt8], to url: String, contentType: String = "application/x-www-form-urlencoded") async -> CallbackReply {
        await exchange(bytes: body, to: url, contentType: contentType).reply
    }

    /// POSTs raw body bytes and says what came back, with how the exchange ended by the names Apple gives a
    /// notification's send attempt (`sendAttemptResult`): SUCCESS or UNSUCCESSFUL_HTTP_RESPONSE_CODE for a
    /// reply, else what failed (a receiver that closed the connection mid-reply is PREMATURE_CLOSE).
    public func exchange(bytes body: [UInt8], to url: String, contentType: String) async -> (reply: CallbackReply, result: NotificationSendResult) {
        let started = DispatchTime.now().uptimeNanoseconds
        func elapsed() -> Int { Int((DispatchTime.now().uptimeNanoseconds - started) / 1000) }
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: contentType)
        request.headers.add(name: "User-Agent", value: "StoreDesk")
        request.body = .bytes(ByteBuffer(bytes: body))
        do {
            let response = try await client.execute(request, timeout: .nanoseconds(Int64(timeout * 1_000_000_000)))
            let status = Int(response.status.code)
            let bytes = try await Self.readReply(response.body)
            return (CallbackReply(status: status, body: bytes, latencyMicros: elapsed()), .of(status: status))
        } catch {
            return (.failed(Self.failure(error).with(timeout: timeout), latencyMicros: elapsed()), Self.sendResult(of: error))
        }
    }

    /// A reply's body, its first `replyLimit` bytes: past them the rest is not read (the connection is
    /// dropped, not reused), so a long reply is its status and its start, never a failure.
    static func readReply(_ body: HTTPClientResponse.Body) async throws -> [UInt8] {
        var bytes: [UInt8] = []
        for try await chunk in body {
            bytes.append(contentsOf: chunk.readableBytesView.prefix(replyLimit - bytes.count))
            if bytes.count >= replyLimit { break }
        }
        return bytes
    }

    /// What went wrong, in the user's words.
    static func failure(_ error: any Error) -> CallbackReply.Failure {
        if let error = error as? HTTPClientError {
            if [.deadlineExceeded, .readTimeout, .connectTimeout, .writeTimeout].contains(error) { return .timedOut(seconds: 0) }
            if error == .remoteConnectionClosed { return .other(Self.closedEarly) }
            if [.invalidURL, .emptyHost, .emptyScheme].contains(error) { return .other("the URL cannot be used: \(error)") }
        }
        if let error = error as? HTTPParserError {
            return .other(error == .invalidEOFState ? Self.closedEarly : "the reply is not HTTP: \(error)")
        }
        let text = String(describing: error)
        if text.contains("ECONNREFUSED") || text.lowercased().contains("connection refused") { return .connectionRefused }
        return .other(text.split(separator: "\n").first.map(String.init) ?? "the request failed")
    }

    static let closedEarly = "the game server closed the connection without a reply"

    /// A failed exchange by Apple's names: a timeout TIMED_OUT, a connection closed before the whole reply
    /// PREMATURE_CLOSE, a reply that is not HTTP INVALID_RESPONSE, a refused or unreachable host
    /// SOCKET_ISSUE, TLS TLS_ISSUE, anything else OTHER.
    static func sendResult(of error: any Error) -> NotificationSendResult {
        if let error = error as? HTTPClientError {
            if [.deadlineExceeded, .readTimeout, .connectTimeout, .writeTimeout].contains(error) { return .timedOut }
            if error == .remoteConnectionClosed { return .prematureClose }
            if error == .redirectCycleDetected { return .circularRedirect }
            if [.invalidURL, .emptyHost, .emptyScheme].contains(error) { return .other }
        }
        if let error = error as? HTTPParserError { return error == .invalidEOFState ? .prematureClose : .invalidResponse }
        if let error = error as? ChannelError, [.eof, .ioOnClosedChannel, .inputClosed].contains(error) { return .prematureClose }
        let text = String(describing: error).lowercased()
        if text.contains("econnrefused") || text.contains("connection refused") { return .socketIssue }
        if text.contains("econnreset") || text.contains("connection reset") { return .prematureClose }
        if text.contains("tls") || text.contains("ssl") || text.contains("handshake") || text.contains("certificate") { return .tlsIssue }
        if text.contains("resolve") || text.contains("connect") || text.contains("socket") { return .socketIssue }
        return .other
    }
}

extension CallbackReply.Failure {
    /// A timeout, with the poster's own limit filled in.
    func with(timeout: Double) -> CallbackReply.Failure {
        if case .timedOut = self { return .timedOut(seconds: timeout) }
        return self
    }
}
