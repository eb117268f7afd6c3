import Foundation
import StoreDeskCore

/// Runs async work from a synchronous command's `run()` and waits for it: the commands stay plain
/// `ParsableCommand`s (the snapshot's fast path depends on that), and only the network ones need this.
func waitFor<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let box = AsyncResult<T>()
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        do {
            box.set(.success(try await body()))
        } catch {
            box.set(.failure(error))
        }
        done.signal()
    }
    done.wait()
    return try box.get()
}

private final class AsyncResult<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var result: Result<T, any Error>?

    func set(_ value: Result<T, any Error>) {
        lock.lock()
        result = value
        lock.unlock()
    }

    func get() throws -> T {
        lock.lock()
        defer { lock.unlock() }
        guard let result else { throw CancellationError() }
        return try result.get()
    }
}
