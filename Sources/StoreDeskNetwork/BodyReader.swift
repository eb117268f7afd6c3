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
