import Foundation
import StoreDeskCore

/// The headless payment pipeline on two cores: the simulation (requests, states, signing, verifying,
/// grant decisions) runs on the calling thread and hands its steps to a writer thread, which commits
/// them, every step with its events, in store transactions of at most `batch` steps. The writer takes
/// whatever has piled up whenever it is free (a group commit): small commits while the engine is
/// starting, large ones once it runs ahead; and the engine waits when `batch` steps are already waiting.
///
///     try PaymentPipeline.run(into: store, run: run, batch: 4096) { emit in try simulation.run(emit) }
///
/// Each commit is one of `run`'s (fenced: refused once another process took the run over).
public enum PaymentPipeline {
    /// Steps the engine hands over at a time (one lock for many steps).
    static let handOff = 256

    /// Runs `produce`, committing what it emits. Returns once every step is committed; rethrows the
    /// first error from either side (the engine stops at the writer's first error).
    public static func run(
        into store: any QueueStore, run: PaymentRun, batch: Int,
        produce: (_ emit: (PaymentChange) throws -> Void) throws -> Void
    ) throws {
        let channel = Channel(limit: max(batch, handOff))
        let writer = Thread {
            while let changes = channel.take(atMost: batch) {
                do {
                    try store.apply(changes, run: run)
                } catch {
                    channel.fail(error)
                }
            }
            channel.writerDone()
        }
        writer.start()
        var pending: [PaymentChange] = []
        pending.reserveCapacity(handOff)
        do {
            try produce { change in
                pending.append(change)
                if pending.count >= handOff {
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

    /// The steps waiting between the engine and the writer, at most `limit` before the engine waits.
    final class Channel: @unchecked Sendable {
        private let condition = NSCondition()
        private var waiting: [PaymentChange] = []
        private var closed = false
        private var finished = false
        private let limit: Int
        private(set) var error: (any Error)?

        init(limit: Int) { self.limit = limit }

        func put(_ changes: [PaymentChange]) throws {
            condition.lock()
            defer { condition.unlock() }
            while waiting.count >= limit && error == nil { condition.wait() }
            if let error { throw error }
            waiting.append(contentsOf: changes)
            condition.broadcast()
        }

        /// Everything waiting, up to `count` steps, or nil once the channel is closed and empty (or
        /// the writer failed).
        func take(atMost count: Int) -> [PaymentChange]? {
            condition.lock()
            defer { condition.unlock() }
            while waiting.isEmpty && !closed && error == nil { condition.wait() }
            guard error == nil, !waiting.isEmpty else { return nil }
            let taken: [PaymentChange]
            if waiting.count <= count {
                taken = waiting
                waiting.removeAll(keepingCapacity: true)
            } else {
                taken = Array(waiting.prefix(count))
                waiting.removeFirst(count)
            }
            condition.broadcast()
            return taken
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
