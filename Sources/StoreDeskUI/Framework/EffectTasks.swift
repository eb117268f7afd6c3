import Foundation
import StoreDeskStoreAPI

/// The console's one inbox: the message of every effect that runs as a task (a store call, a post's
/// reply, a background work's progress and its end), handed in by the task that made it and taken by the
/// loop between frames, in the order they arrived. It also knows what is still out: the store calls, with
/// when each was asked (the header's "loading…", a frame held for a call just asked), and the other work.
final class ConsoleInbox: @unchecked Sendable {
    private let condition = NSCondition()
    /// Messages not taken yet, oldest first; a store call's with its number.
    private var arrived: [(call: Int?, message: Message)] = []
    /// Store calls asked and not answered, oldest first (they answer in that order): number and when.
    private var asked: [(call: Int, at: Date)] = []
    private var lastCall = 0
    /// Posts and background work started and not delivered.
    private var working = 0

    /// Store calls and other work still out.
    var inFlight: Int { condition.withLock { asked.count + working } }

    /// When the oldest store call still out was asked; nil when none is.
    var oldestCall: Date? { condition.withLock { asked.first?.at } }

    /// A store call is asked: its number, for `answer` and `take(call:)`.
    func ask(at now: Date = Date()) -> Int {
        condition.withLock {
            lastCall += 1
            asked.append((lastCall, now))
            return lastCall
        }
    }

    /// A store call answered.
    func answer(_ call: Int, _ message: Message) {
        condition.withLock {
            asked.removeAll { $0.call == call }
            arrived.append((call, message))
            condition.broadcast()
        }
    }

    /// A post or a background work started.
    func started() { condition.withLock { working += 1 } }

    /// A post's reply, or a background work's end.
    func deliver(_ message: Message) {
        condition.withLock {
            arrived.append((nil, message))
            working -= 1
            condition.broadcast()
        }
    }

    /// A message from work still in flight (a background work's progress): taken with the others, the work
    /// still counted as in flight.
    func post(_ message: Message) {
        condition.withLock {
            arrived.append((nil, message))
            condition.broadcast()
        }
    }

    /// What arrived since the last call, oldest first.
    func take() -> [Message] {
        condition.withLock {
            defer { arrived.removeAll() }
            return arrived.map(\.message)
        }
    }

    /// Waits for one store call's message and takes it (the others stay): a console without a loop applies
    /// each call's message where it was asked, as a reducer's test reads it.
    func take(call: Int) -> Message {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let index = arrived.firstIndex(where: { $0.call == call }) { return arrived.remove(at: index).message }
            condition.wait()
        }
    }

    /// Waits until something arrives or `deadline` passes, while anything is out.
    func wait(until deadline: Date) {
        condition.lock()
        defer { condition.unlock() }
        while arrived.isEmpty && asked.count + working > 0 && Date() < deadline { _ = condition.wait(until: deadline) }
    }

    /// Waits until every store call asked has answered (at most until `deadline`): a console closing lets
    /// a write it started finish before the store is closed.
    func drain(before deadline: Date) {
        condition.lock()
        defer { condition.unlock() }
        while !asked.isEmpty && Date() < deadline { _ = condition.wait(until: deadline) }
    }
}

/// The console's store calls (`Effect.read`, `.write`) as tasks: one at a time, in the order they were
/// asked (each task waits for the one before), on a thread of their own (`SerialThreadExecutor`), so a call
/// that blocks (a lock another process holds, a server across a network) never holds the loop or the
/// shared pool's threads. Only the loop's thread asks.
final class StoreCalls {
    private let executor = SerialThreadExecutor(label: "storedesk.store-calls")
    private var last: Task<Void, Never>?

    func run(_ work: @escaping @Sendable () async -> Void) {
        let previous = last
        last = executor.start {
            await previous?.value
            await work()
        }
    }
}

/// A task executor of one thread: its jobs run one after another, off Swift's shared pool.
final class SerialThreadExecutor: TaskExecutor, @unchecked Sendable {
    private let queue: DispatchQueue

    init(label: String) { queue = DispatchQueue(label: label, qos: .userInitiated) }

    /// Starts `work` as a task that prefers this executor.
    @discardableResult
    func start(_ work: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
        Task(executorPreference: self) { await work() }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

/// Whether the store's server answered the last store call, set from whichever task made it: a call
/// that fails with `StoreError.unreachable` marks it lost, any call that answers marks it found again.
final class StoreReach: @unchecked Sendable {
    private let lock = NSLock()
    private var isLost = false

    var lost: Bool { lock.withLock { isLost } }

    func noting<T>(_ store: any ConsoleStore, _ body: () async throws -> T) async rethrows -> T {
        do {
            let value = try await body()
            lock.withLock { isLost = false }
            return value
        } catch {
            if case .unreachable? = store.storeError(for: error) { lock.withLock { isLost = true } }
            throw error
        }
    }
}
