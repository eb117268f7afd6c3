import Foundation
import Hummingbird
import NIOCore
import StoreDeskCore
import StoreDeskStoreAPI
import StoreDeskTrust

/// Each API key's token bucket (`TokenBucket`), by app and key id.
final class APIRateLimits: @unchecked Sendable {
    private let lock = NSLock()
    private let perSecond: Int
    private var buckets: [String: TokenBucket] = [:]

    init(perSecond: Int) { self.perSecond = perSecond }

    /// Takes a request's token from the key's bucket; false when it is empty.
    func take(keyId: String, appId: String, at now: Instant) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        let key = appId + "\u{0}" + keyId
        var bucket = buckets[key] ?? TokenBucket(capacity: perSecond, perSecond: Double(perSecond), at: now)
        let taken = bucket.take(at: now)
        buckets[key] = bucket
        return taken
    }
}
