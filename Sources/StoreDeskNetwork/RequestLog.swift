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
