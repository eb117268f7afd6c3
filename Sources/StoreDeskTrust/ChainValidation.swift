import Dispatch
import Foundation
@_spi(FixedExpiryValidationTime) import X509

/// swift-certificates' `Verifier` run to completion from synchronous code.
///
/// Its `validate` is `async` although, with roots in memory and no OCSP, it never waits on anything. The
/// import judges lines on plain threads, so the validation runs as a task on an executor of its own (a
/// serial queue), never on the cooperative pool: a caller blocked here, even on a pool thread of a
/// server, cannot starve the task it waits for. Chains are validated once each (the verifier caches
/// them), so this path is rare.
enum ChainValidation {
    static func validate(
        leaf: Certificate, intermediate: Certificate, roots: CertificateStore, at time: Date
    ) -> CertificateValidationResult {
        let box = ResultBox()
        let done = DispatchSemaphore(value: 0)
        let work: @Sendable () async -> Void = {
            box.result = await validateNow(leaf: leaf, intermediate: intermediate, roots: roots, at: time)
            done.signal()
        }
        if #available(macOS 15.0, *) {
            Task(executorPreference: ValidationExecutor.shared, operation: work)
        } else {
            Task(operation: work)
        }
        done.wait()
        return box.result ?? .couldNotValidate([])
    }

    /// RFC 5280 at `time` (the payload's signing date), then Apple's OIDs, to one of `roots`; the
    /// intermediate is offered only as an intermediate, whatever else the JWS header carried.
    static func validateNow(
        leaf: Certificate, intermediate: Certificate, roots: CertificateStore, at time: Date
    ) async -> CertificateValidationResult {
        var verifier = Verifier(rootCertificates: roots) {
            RFC5280Policy(fixedExpiryValidationTime: time)
            AppStoreOIDPolicy()
        }
        return await verifier.validate(leaf: leaf, intermediates: CertificateStore([intermediate]))
    }

    private final class ResultBox: @unchecked Sendable {
        // Written once by the task before it signals, read once after the wait.
        var result: CertificateValidationResult?
    }
}

/// A serial queue as a task executor: where chain validations run.
@available(macOS 15.0, *)
final class ValidationExecutor: TaskExecutor {
    static let shared = ValidationExecutor()
    private let queue = DispatchQueue(label: "storedesk.chain-validation")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
