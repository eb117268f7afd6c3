import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypes
import StoreDeskCore

/// Hummingbird's HTTP/1 connection with `CallbackChannelHandler` in its pipeline, after Hummingbird's
/// connection state handler (so its idle timeout and graceful stop see the callbacks too) and before the
/// channel's async side, which gets every other request.
struct CallbackChannel: ServerChildChannel {
    let http1: HTTP1Channel
    let handler: @Sendable () -> CallbackChannelHandler

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<HTTP1Channel.Value> {
        http1.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let operations = channel.pipeline.syncOperations
            let state = try operations.handler(type: HTTPConnectionStateHandler.self)
            try operations.addHandler(handler(), position: .after(state))
            return value
        }
    }

    func handle(value: HTTP1Channel.Value, logger: Logger) async {
        await http1.handle(value: value, logger: logger)
    }
}

/// Answers `POST /callback` on the connection's event loop: the body is gathered, parsed and verified
/// there, a genuine callback goes to the ledger's writer thread, and the reply is written from the event
/// loop once its commit is durable. No task, async stream or executor hop per request: through
/// Hummingbird's router, three quarters of `serve`'s time went to that machinery (the Swift concurrency
/// pool, the hops between it, the event loops and the writer), not to the callback.
///
/// One request at a time per connection, in order: while a callback waits for its commit, or another
/// request is with Hummingbird, what the client sends next waits here (once something waits, the socket
/// is not read until the connection is free), so replies never overtake each other on a pipelined
/// connection. Every other request passes through.
final class CallbackChannelHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private enum State {
        /// Between requests.
        case idle
        /// A request for Hummingbird: free again when both its end and its reply's end have passed.
        case passing(requestEnded: Bool, replyEnded: Bool)
        /// A callback's body arriving.
        case collecting
        /// A callback waiting for the ledger's commit.
        case committing
        /// Answered early (413, 415, 408) and closing: what else arrives is dropped.
        case closing
    }

    fileprivate let callbacks: CallbackHandler
    private let log: RequestLog
    private let mailboxes: ReplyMailboxes
    /// Where the ledger's writer thread leaves this connection's replies (its event loop's); set when added.
    private var mailbox: ReplyMailbox?
    private var state = State.idle
    private var body: [UInt8] = []
    private var started: UInt64 = 0
    private var closeAfterReply = false
    /// Parts that arrived while the connection was busy, in order.
    private var waiting = CircularBuffer<HTTPRequestPart>()
    /// A read asked for while busy, done once free.
    private var readPending = false
    private var peer = "?"

    init(callbacks: CallbackHandler, log: RequestLog, mailboxes: ReplyMailboxes) {
        self.callbacks = callbacks
        self.log = log
        self.mailboxes = mailboxes
    }

    func handlerAdded(context: ChannelHandlerContext) {
        mailbox = mailboxes.mailbox(for: context.eventLoop)
        if let address = context.channel.remoteAddress {
            peer = (address.ipAddress ?? "?") + ":" + String(address.port ?? 0)
        }
    }

    /// True while a new request must wait: a callback is committing, or Hummingbird has a request's whole
    /// body and has not finished its reply.
    private var busy: Bool {
        switch state {
        case .committing: return true
        case .passing(let requestEnded, _): return requestEnded
        case .idle, .collecting, .closing: return false
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        if busy || !waiting.isEmpty {
            waiting.append(part)
        } else {
            take(part, context: context)
        }
    }

    private func take(_ part: HTTPRequestPart, context: ChannelHandlerContext) {
        switch (state, part) {
        case (.idle, .head(let head)):
            guard head.method == .post, Self.path(head) == "/callback" else {
                state = .passing(requestEnded: false, replyEnded: false)
                context.fireChannelRead(wrapInboundOut(part))
                return
            }
            started = DispatchTime.now().uptimeNanoseconds
            closeAfterReply = head.headerFields[.connection]?.lowercased().contains("close") ?? false
            body.removeAll(keepingCapacity: true)
            if let refusal = callbacks.refusal(contentType: head.headerFields[.contentType]) {
                answer(refusal, context: context)
            } else {
                state = .collecting
            }
        case (.idle, _):
            // A body without a head: the decoder never sends one; Hummingbird says what it makes of it.
            context.fireChannelRead(wrapInboundOut(part))
        case (.passing(_, let replyEnded), .end):
            state = replyEnded ? .idle : .passing(requestEnded: true, replyEnded: false)
            context.fireChannelRead(wrapInboundOut(part))
        case (.passing, _):
            context.fireChannelRead(wrapInboundOut(part))
        case (.collecting, .body(let chunk)):
            guard body.count + chunk.readableBytes <= callbacks.settings.bodyLimit else {
                answer(callbacks.tooLarge, context: context)
                return
            }
            chunk.withUnsafeReadableBytes { body.append(contentsOf: $0) }
        case (.collecting, .end):
            state = .committing
            commit(context: context)
        case (.collecting, .head):
            // The decoder ends a request before the next head; never here.
            answer(callbacks.tooSlow, context: context)
        case (.committing, _):
            waiting.append(part)
        case (.closing, _):
            break
        }
    }

    private func commit(context: ChannelHandlerContext) {
        switch callbacks.step(body, peer: peer) {
        case .reply(let reply):
            answer(reply, context: context)
        case .commit(let pending):
            let mailbox = mailbox ?? mailboxes.mailbox(for: context.eventLoop)
            let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            callbacks.ledger.submit(pending.received) { result in
                mailbox.post(ReplyMailbox.Committed(connection: bound, pending: pending, result: result))
            }
        }
    }

    /// Writes the reply and its log line; a reply other than 200 closes the connection, as its header says.
    fileprivate func answer(_ reply: CallbackHandler.Reply, context: ChannelHandlerContext) {
        let close = reply.status != .ok || closeAfterReply
        var headers: HTTPFields = [.contentType: "text/plain; charset=utf-8"]
        let bytes = context.channel.allocator.buffer(string: reply.text)
        headers[.contentLength] = String(bytes.readableBytes)
        if close { headers[.connection] = "close" }
        context.write(wrapOutboundOut(.head(HTTPResponse(status: reply.status, headerFields: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(bytes)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        if let mailbox, mailbox.gathering {
            log.request(
                peer: peer, method: "POST", path: "/callback", status: reply.status.code, started: started, note: reply.logNote,
                into: &mailbox.lines)
        } else {
            log.request(peer: peer, method: "POST", path: "/callback", status: reply.status.code, started: started, note: reply.logNote)
        }
        if close {
            state = .closing
            waiting.removeAll()
            context.close(promise: nil)
        } else {
            state = .idle
            resume(context: context)
        }
    }

    /// Takes what waited while the connection was busy, then reads again if a read was held back.
    /// Parts passed on here are outside a read, so a read-complete follows them: Hummingbird's side
    /// takes what it was given only then.
    private func resume(context: ChannelHandlerContext) {
        var passedOn = false
        while !busy, let part = waiting.popFirst() {
            if case .passing = state { passedOn = true }
            take(part, context: context)
            if case .passing = state { passedOn = true }
        }
        if passedOn { context.fireChannelReadComplete() }
        if !busy, readPending {
            readPending = false
            context.read()
        }
    }

    /// Held only once something waits: a client that sends a request and waits for its reply (all but a
    /// pipelining one) keeps the socket in the event loop's read set, where holding every read while a
    /// callback committed had NIO take the socket out of epoll and put it back, two syscalls a request.
    /// A pipelining client still gets at most one read's worth taken ahead while the connection is busy.
    func read(context: ChannelHandlerContext) {
        if busy && !waiting.isEmpty {
            readPending = true
        } else {
            context.read()
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data), case .passing(let requestEnded, _) = state {
            state = requestEnded ? .idle : .passing(requestEnded: false, replyEnded: true)
            context.write(data, promise: promise)
            resume(context: context)
            return
        }
        context.write(data, promise: promise)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if error is BodyTooSlow, case .collecting = state {
            answer(callbacks.tooSlow, context: context)
            return
        }
        context.fireErrorCaught(error)
    }

    /// The request's path, without its query.
    static func path(_ head: HTTPRequest) -> Substring {
        guard let path = head.path else { return "" }
        return path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
    }
}

/// Where the ledger's writer thread leaves the replies of one event loop's connections, answered there
/// together: one `execute` (and at most one wake-up) for all of a commit's callbacks on that loop rather
/// than one each, and their log lines written with one `write(2)` once the replies are written (a line
/// is still on its way before the loop reads again). The reply's text is made on the loop, not on the
/// writer thread every commit waits for.
final class ReplyMailbox: @unchecked Sendable {
    /// A callback the ledger has decided and committed (or could not: nothing stored).
    struct Committed: Sendable {
        var connection: NIOLoopBound<(CallbackChannelHandler, ChannelHandlerContext)>
        var pending: CallbackHandler.Pending
        var result: Result<GrantDecision, any Error>
    }

    private let loop: any EventLoop
    private let log: RequestLog
    private let lock = NSLock()
    private var posted: [Committed] = []
    private var scheduled = false
    /// The loop's own: true while it answers what was posted, so every line it writes meanwhile (a
    /// pipelined request answered at once included) goes to `lines`, in order.
    fileprivate var gathering = false
    fileprivate var lines = RequestLog.Lines()
    private var taking: [Committed] = []

    init(loop: any EventLoop, log: RequestLog) {
        self.loop = loop
        self.log = log
    }

    /// From any thread.
    func post(_ committed: Committed) {
        lock.lock()
        posted.append(committed)
        let wake = !scheduled
        scheduled = true
        lock.unlock()
        if wake { loop.execute { self.answer() } }
    }

    /// On the loop: answers everything posted so far, then writes their log lines.
    private func answer() {
        lock.lock()
        swap(&posted, &taking)
        scheduled = false
        lock.unlock()
        gathering = true
        for committed in taking {
            let (handler, context) = committed.connection.value
            handler.answer(handler.callbacks.reply(committed.result, for: committed.pending), context: context)
        }
        gathering = false
        taking.removeAll(keepingCapacity: true)
        log.flush(&lines)
    }
}

/// One `ReplyMailbox` per event loop, found by a connection when it opens.
final class ReplyMailboxes: @unchecked Sendable {
    private let log: RequestLog
    private let lock = NSLock()
    private var byLoop: [ObjectIdentifier: ReplyMailbox] = [:]

    init(log: RequestLog) { self.log = log }

    func mailbox(for loop: any EventLoop) -> ReplyMailbox {
        lock.lock()
        defer { lock.unlock() }
        let key = ObjectIdentifier(loop as AnyObject)
        if let found = byLoop[key] { return found }
        let made = ReplyMailbox(loop: loop, log: log)
        byLoop[key] = made
        return made
    }
}
