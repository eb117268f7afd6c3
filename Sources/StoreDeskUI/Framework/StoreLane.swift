import Foundation
import StoreDeskStoreAPI

/// Where the interactive console's store calls (`Effect.read`, `.write`) run: on a thread of their own,
/// one at a time and in the order they were asked, so a store slower than a frame (a PostgreSQL server
/// across a network, a lock another process holds) never freezes the screen.
///
/// The loop hands a call over and waits at most `patience` for it. A call that answers in time (every
/// call on a local SQLite file) is applied at once, exactly as if it had run on the loop, so the reducer
/// sees the same order of messages. One that does not is left to finish: the loop goes on drawing and
/// taking keys, the header says "loading…", and its message is applied when it arrives (`take`). While
/// any call is still out, later calls are not waited for either, so messages are always applied in the
/// order their calls were made.
final class StoreLane: @unchecked Sendable {
    /// How long the loop waits for a call before it goes on without it: under one frame at 30 frames a
    /// second, so a key never waits longer than that for its frame.
    static let patience: TimeInterval = 0.025

    private let queue = DispatchQueue(label: "storedesk.store-lane", qos: .userInitiated)
    private let condition = NSCondition()
    /// Calls the loop stopped waiting for whose messages it has not taken yet, in call order.
    private var late = 0
    /// Messages of late calls that have answered, oldest first.
    private var arrived: [Message] = []
    let patience: TimeInterval

    init(patience: TimeInterval = StoreLane.patience) {
        self.patience = patience
    }

    /// One call's hand-over between the lane's thread and the loop.
    private final class Call: @unchecked Sendable {
        var message: Message?
        var abandoned = false
    }

    /// Runs `body` on the lane. Returns its message if it answered within `patience` (and no earlier call
    /// is still out); nil when the message will come through `take` instead.
    func call(_ body: @escaping @Sendable () -> Message) -> Message? {
        let call = Call()
        condition.lock()
        // An earlier call is still out: this one's message must come after it, so it is not waited for.
        if late > 0 {
            call.abandoned = true
            late += 1
        }
        condition.unlock()
        queue.async { [self] in
            let message = body()
            condition.lock()
            if call.abandoned {
                arrived.append(message)
            } else {
                call.message = message
            }
            condition.broadcast()
            condition.unlock()
        }
        condition.lock()
        defer { condition.unlock() }
        guard !call.abandoned else { return nil }
        let deadline = Date().addingTimeInterval(patience)
        while call.message == nil && Date() < deadline { _ = condition.wait(until: deadline) }
        if let message = call.message { return message }
        call.abandoned = true
        late += 1
        return nil
    }

    /// Whether calls are still out (the loop stopped waiting for them and has not taken their messages).
    var waiting: Bool { condition.withLock { late > 0 } }

    /// The messages of late calls that have answered, oldest first; each is then no longer out.
    func take() -> [Message] {
        condition.withLock {
            defer {
                late -= arrived.count
                arrived.removeAll()
            }
            return arrived
        }
    }

    /// Waits until every call handed over has answered (at most until `deadline`): a console closing
    /// lets a write it started finish before the store is closed.
    func drain(before deadline: Date) {
        let done = DispatchSemaphore(value: 0)
        queue.async { done.signal() }
        _ = done.wait(timeout: .now() + max(0, deadline.timeIntervalSinceNow))
    }
}

/// Whether the store's server answered the last store call, set from whichever thread made it: a call
/// that fails with `StoreError.unreachable` marks it lost, any call that answers marks it found again.
final class StoreReach: @unchecked Sendable {
    private let lock = NSLock()
    private var isLost = false

    var lost: Bool { lock.withLock { isLost } }

    func noting<T>(_ store: any ConsoleStore, _ body: () throws -> T) rethrows -> T {
        do {
            let value = try body()
            lock.withLock { isLost = false }
            return value
        } catch {
            if case .unreachable? = store.storeError(for: error) { lock.withLock { isLost = true } }
            throw error
        }
    }
}
