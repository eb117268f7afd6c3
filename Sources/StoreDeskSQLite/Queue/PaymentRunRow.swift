import Foundation
import StoreDeskCore

/// A `payment_run` row as the liveness rules read it.
struct PaymentRunRow: Sendable, Hashable {
    var id: Int64
    var host: String?
    var heartbeatAt: Instant
    var endedAt: Instant?

    /// Whether this run's owner is gone, as seen from this process at `now`: it ended (or was taken
    /// over), or its kernel lock on this machine is free, or (only where the lock cannot tell) its
    /// heartbeat is older than the lease.
    func isGone(store path: String, now: Instant) -> Bool {
        if endedAt != nil { return true }
        if let host, host == RunLock.host, let held = RunLock.isHeld(run: id, store: path) { return !held }
        return heartbeatAt.millis < now.millis - PaymentRun.lease.millis
    }
}
