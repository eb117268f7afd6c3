/// The App Store Server API's rate limit, per API key: a token bucket holding at most `capacity` requests,
/// refilled at `perSecond`; a request finding it empty gets 429 with errorCode 4290000 (Apple's
/// RateLimitExceededError) and nothing is done. Pure: the caller passes the wall clock's instant.
///
///     var bucket = TokenBucket(capacity: 2, perSecond: 1, at: now)
///     bucket.take(at: now)   // true, true, then false until a second has passed
public struct TokenBucket: Hashable, Sendable {
    public var capacity: Double
    public var perSecond: Double
    public private(set) var tokens: Double
    public private(set) var updated: Instant

    public init(capacity: Int, perSecond: Double, at now: Instant) {
        self.capacity = Double(max(1, capacity))
        self.perSecond = max(0, perSecond)
        tokens = self.capacity
        updated = now
    }

    /// Takes one request's token at `now`; false when the bucket is empty (nothing is taken).
    public mutating func take(at now: Instant) -> Bool {
        if now > updated {
            tokens = min(capacity, tokens + Double(now.millis - updated.millis) / 1000 * perSecond)
            updated = now
        }
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }
}
