import Foundation
import NIOCore
import PostgresNIO
import StoreDeskStoreAPI

extension PostgresSession.Transaction {
    /// Streams rows into `table` by `COPY … FROM STDIN` (text format) inside this transaction: `produce`
    /// hands batches of rows to `send`, on the caller's thread, while PostgresNIO's writer sends each batch
    /// as it is encoded, at most `PostgresCopyPipe.capacity` batches ahead. A batch the server refuses
    /// fails the copy and the next `send`; an error thrown by `produce` fails the copy (the server is told
    /// with CopyFail), and either way the transaction around it rolls back.
    func copy(into table: String, columns: [String], _ produce: (_ send: ([[StoreValue]]) throws -> Void) throws -> Void) throws {
        let pipe = PostgresCopyPipe()
        let finished = DispatchSemaphore(value: 0)
        let outcome = PostgresCopyOutcome()
        let connection = connection, logger = logger
        // The copy's writer is async; the store's calls are synchronous on a thread of their own (never the
        // cooperative pool), so this thread feeds the pipe while a task drains it.
        Task.detached {
            do {
                try await connection.copyFrom(table: table, columns: columns, logger: logger) { writer in
                    for try await batch in pipe.batches {
                        try await writer.write(batch)
                        pipe.taken()
                    }
                }
            } catch {
                outcome.fail(error)
                pipe.stop()
            }
            finished.signal()
        }
        var produced: (any Error)?
        do {
            try produce { rows in try pipe.send(PostgresCopyText.encode(rows)) }
        } catch {
            produced = error
        }
        pipe.finish(throwing: produced)
        finished.wait()
        // The server's refusal first: it is why a `send` stopped.
        if let error = outcome.error, produced == nil || produced is PostgresCopyStopped { throw error }
        if let produced { throw produced }
    }
}

/// The batches between the thread that encodes rows and the task that writes them, with room for a few:
/// the encoder waits when the writer is behind, so a million rows never sit in memory at once.
final class PostgresCopyPipe: @unchecked Sendable {
    static let capacity = 4
    let batches: AsyncThrowingStream<ByteBuffer, any Error>
    private let continuation: AsyncThrowingStream<ByteBuffer, any Error>.Continuation
    // A condition and a count, not a semaphore: a copy the server stops leaves batches never taken, and
    // libdispatch traps on a semaphore freed below its starting value.
    private let condition = NSCondition()
    private var inFlight = 0
    private var stopped = false

    init() {
        (batches, continuation) = AsyncThrowingStream.makeStream(of: ByteBuffer.self, throwing: (any Error).self)
    }

    /// Hands one batch to the writer, waiting for room; throws once the writer has stopped.
    func send(_ batch: ByteBuffer) throws {
        condition.lock()
        while inFlight >= Self.capacity && !stopped { condition.wait() }
        let stop = stopped
        if !stop { inFlight += 1 }
        condition.unlock()
        if stop { throw PostgresCopyStopped() }
        continuation.yield(batch)
    }

    /// The writer sent a batch: room for another.
    func taken() {
        condition.lock()
        inFlight -= 1
        condition.signal()
        condition.unlock()
    }

    /// The writer stopped (the server refused the copy): a waiting `send` wakes and throws.
    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    /// No more batches; with an error, the copy fails with it.
    func finish(throwing error: (any Error)?) { continuation.finish(throwing: error) }
}

/// The copy task's error, read by the thread that waited for it.
final class PostgresCopyOutcome: @unchecked Sendable {
    private let lock = NSLock()
    private var failure: (any Error)?

    func fail(_ error: any Error) { lock.withLock { failure = failure ?? error } }
    var error: (any Error)? { lock.withLock { failure } }
}

/// A `send` after the server refused the copy; the copy's own error is the one reported.
struct PostgresCopyStopped: Error {}

/// COPY's text format: a row a line, columns by tabs, NULL as `\N`, a backslash, tab, newline or carriage
/// return escaped, bytes as bytea's hex (`\\x…`, its backslash escaped too).
enum PostgresCopyText {
    static func encode(_ rows: [[StoreValue]]) -> ByteBuffer {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(rows.count * 96)
        for row in rows {
            for (index, value) in row.enumerated() {
                if index > 0 { bytes.append(0x09) }
                append(value, to: &bytes)
            }
            bytes.append(0x0A)
        }
        return ByteBuffer(bytes: bytes)
    }

    static func append(_ value: StoreValue, to bytes: inout [UInt8]) {
        switch value {
        case .null: bytes.append(contentsOf: [0x5C, 0x4E])
        case .integer(let number): bytes.append(contentsOf: String(number).utf8)
        case .real(let number): bytes.append(contentsOf: "\(number)".utf8)
        case .text(let text):
            for byte in text.utf8 {
                switch byte {
                case 0x5C: bytes.append(contentsOf: [0x5C, 0x5C])
                case 0x09: bytes.append(contentsOf: [0x5C, 0x74])
                case 0x0A: bytes.append(contentsOf: [0x5C, 0x6E])
                case 0x0D: bytes.append(contentsOf: [0x5C, 0x72])
                default: bytes.append(byte)
                }
            }
        case .blob(let blob):
            bytes.append(contentsOf: [0x5C, 0x5C, 0x78])
            let digits = Array("0123456789abcdef".utf8)
            for byte in blob {
                bytes.append(digits[Int(byte >> 4)])
                bytes.append(digits[Int(byte & 0x0F)])
            }
        }
    }
}
