import Foundation
import StoreDeskCore

/// The headless payment pipeline on two cores: the simulation (requests, states, signing, verifying,
/// grant decisions) runs on the calling thread and hands batches of steps to a writer thread, which
/// commits each batch, every step with its events, in one SQLite transaction. Batches wait in a short
/// queue, so the engine never runs far ahead of what is committed.
///
///     try PaymentPipeline.run(into: database, batch: 512) { emit in try simulation.run(emit) }
public enum PaymentPipeline {
    /// Batches allowed to wait for the writer before the engine waits in turn.
    static let queueDepth = 4

    /// Runs `produce`, committing what it emits. Returns once every batch is committed; rethrows the
    /// first error from either side (the engine stops at the writer's first error).
    public static func run(
        into database: AppDatabase, batch: Int,
        produce: (_ emit: (PaymentChange) throws -> Void) throws -> Void
    ) throws {
        let channel = Channel(depth: queueDepth)
        let writer = Thread {
            while let changes = channel.take() {
                do {
                    try database.apply(changes)
                } catch {
                    channel.fail(error)
                }
            }
            channel.writerDone()
        }
        writer.start()
        var pending: [PaymentChange] = []
        pending.reserveCapacity(batch)
        do {
            try produce { change in
                pending.append(change)
                if pending.count >= batch {
                    try channel.put(pending)
                    pending.removeAll(keepingCapacity: true)
                }
            }
            if !pending.isEmpty { try channel.put(pending) }
        } catch {
            channel.close()
            channel.waitForWriter()
            throw channel.error ?? error
        }
        channel.close()
        channel.waitForWriter()
        if let error = channel.error { throw error }
    }

    /// A bounded queue of batches between the engine and the writer.
    final class Channel: @unchecked Sendable {
        private let condition = NSCondition()
        private var batches: [[PaymentChange]] = []
        private var closed = false
        private var finished = false
        private let depth: Int
        private(set) var error: (any Error)?

        init(depth: Int) { self.depth = depth }

        func put(_ batch: [PaymentChange]) throws {
            condition.lock()
            defer { condition.unlock() }
            while batches.count >= depth && error == nil { condition.wait() }
            if let error { throw error }
            batches.append(batch)
            condition.broadcast()
        }

        /// The next batch, or nil once the queue is closed and empty (or the writer failed).
        func take() -> [PaymentChange]? {
            condition.lock()
            defer { condition.unlock() }
            while batches.isEmpty && !closed && error == nil { condition.wait() }
            guard error == nil, !batches.isEmpty else { return nil }
            let batch = batches.removeFirst()
            condition.broadcast()
            return batch
        }

        func fail(_ error: any Error) {
            condition.lock()
            if self.error == nil { self.error = error }
            condition.broadcast()
            condition.unlock()
        }

        func close() {
            condition.lock()
            closed = true
            condition.broadcast()
            condition.unlock()
        }

        func writerDone() {
            condition.lock()
            finished = true
            condition.broadcast()
            condition.unlock()
        }

        func waitForWriter() {
            condition.lock()
            while !finished { condition.wait() }
            condition.unlock()
        }
    }
}
