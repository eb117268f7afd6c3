/// How callbacks POSTed to real game servers went: attempts, deliveries, failures by kind, and the
/// round trip's percentiles. `simulate --json` reports a run's (`PaymentSimulation.Summary.http`); the
/// Queue screen's header shows the latest attempts' from the store (`recentDeliveries`).
///
///     var deliveries = CallbackDeliveries()
///     deliveries.record(reply)                     // a live reply
///     deliveries.latency.percentile(0.99)          // µs
public struct CallbackDeliveries: Hashable, Sendable, Encodable {
    /// Why a delivery failed, as the JSON names it.
    public enum Failure: String, Hashable, Sendable, CaseIterable, Encodable, Comparable {
        /// Answered 2xx with a body other than `success`.
        case notSuccess = "not_success"
        /// Answered with a status outside 2xx.
        case httpStatus = "http_status"
        case connectionRefused = "connection_refused"
        case timeout
        /// No reply for another reason: the connection broke, the host does not resolve, …
        case other

        public static func < (a: Failure, b: Failure) -> Bool {
            allCases.firstIndex(of: a) ?? 0 < allCases.firstIndex(of: b) ?? 0
        }

        /// In the user's words, for the console and the text report.
        public var words: String {
            switch self {
            case .notSuccess: "not success"
            case .httpStatus: "non-2xx"
            case .connectionRefused: "refused"
            case .timeout: "timeout"
            case .other: "other"
            }
        }
    }

    /// Callbacks POSTed (every attempt, repeats included).
    public private(set) var attempts = 0
    /// Answered `success` with a 2xx status.
    public private(set) var delivered = 0
    /// The failed ones by kind.
    public private(set) var failures: [Failure: Int] = [:]
    /// Round trips of every attempt, answered or not.
    public private(set) var latency = LatencyHistogram()

    public init() {}

    /// All failed attempts.
    public var failed: Int { failures.values.reduce(0, +) }

    /// One reply as it came back.
    public mutating func record(_ reply: CallbackReply) {
        record(Self.failure(of: reply), latencyMicros: reply.latencyMicros)
    }

    /// One attempt as the store keeps it (`server_callback`): its verdict, HTTP status and reply text.
    /// Attempts StoreDesk's own game server answered in process (no URL) are not deliveries and are skipped.
    public mutating func record(_ attempt: CallbackAttempt) {
        guard attempt.url != nil else { return }
        let failure: Failure?
        switch attempt.verdict {
        case CallbackAttempt.accepted, CallbackAttempt.duplicate: failure = nil
        case CallbackAttempt.unanswered: failure = CallbackReply.Failure(sentence: attempt.reply).kind
        default:
            // Refused: answered, but not with success (or a repeat answered otherwise).
            if let status = attempt.httpStatus, !(200..<300).contains(status) {
                failure = .httpStatus
            } else if attempt.httpStatus == nil {
                failure = CallbackReply.Failure(sentence: attempt.reply).kind
            } else {
                failure = .notSuccess
            }
        }
        record(failure, latencyMicros: attempt.latencyMicros ?? 0)
    }

    private mutating func record(_ failure: Failure?, latencyMicros: Int) {
        attempts += 1
        if let failure { failures[failure, default: 0] += 1 } else { delivered += 1 }
        latency.record(latencyMicros)
    }

    static func failure(of reply: CallbackReply) -> Failure? {
        if let failure = reply.failure { return failure.kind }
        guard let status = reply.status else { return .other }
        guard (200..<300).contains(status) else { return .httpStatus }
        return reply.isSuccess ? nil : .notSuccess
    }

    enum CodingKeys: String, CodingKey {
        case attempts, delivered, failed, failures
        case latency = "latency_us"
    }

    enum LatencyKeys: String, CodingKey {
        case p50, p99, max
    }

    /// `{"attempts", "delivered", "failed", "failures": {kind: n} (every kind), "latency_us": {"p50", "p99", "max"}}`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(attempts, forKey: .attempts)
        try container.encode(delivered, forKey: .delivered)
        try container.encode(failed, forKey: .failed)
        try container.encode(
            Dictionary(uniqueKeysWithValues: Failure.allCases.map { ($0.rawValue, failures[$0] ?? 0) }), forKey: .failures)
        var latencies = container.nestedContainer(keyedBy: LatencyKeys.self, forKey: .latency)
        try latencies.encode(latency.percentile(0.5), forKey: .p50)
        try latencies.encode(latency.percentile(0.99), forKey: .p99)
        try latencies.encode(latency.max, forKey: .max)
    }
}

extension CallbackReply.Failure {
    /// Its kind in `CallbackDeliveries`.
    public var kind: CallbackDeliveries.Failure {
        switch self {
        case .connectionRefused: .connectionRefused
        case .timedOut: .timeout
        case .other: .other
        }
    }

    /// The failure a stored reply text (`sentence`) came from, for attempts read back from the store.
    public init(sentence: String) {
        if sentence == Self.connectionRefused.sentence {
            self = .connectionRefused
        } else if sentence.hasPrefix("no reply within "), sentence.hasSuffix(" s (timeout)") {
            self = .timedOut(seconds: Double(sentence.dropFirst(16).dropLast(12)) ?? 0)
        } else {
            self = .other(sentence)
        }
    }
}

/// Latencies in microseconds, kept in buckets a thirty-second of a power of two wide (percentiles within
/// about 3 %), so a console's year-long live simulation holds a few hundred counters, not every sample.
public struct LatencyHistogram: Hashable, Sendable {
    /// Values below this are counted exactly.
    static let exact = 64
    static let subBuckets = 32

    private var counts: [Int: Int] = [:]
    public private(set) var count = 0
    public private(set) var max = 0

    public init() {}

    public mutating func record(_ micros: Int) {
        let value = Swift.max(0, micros)
        counts[Self.bucket(of: value), default: 0] += 1
        count += 1
        max = Swift.max(max, value)
    }

    /// The value at or below which `fraction` of the samples fall (0 when there are none); never above the maximum.
    public func percentile(_ fraction: Double) -> Int {
        guard count > 0 else { return 0 }
        let rank = Swift.max(1, Int((Double(count) * fraction).rounded(.up)))
        var seen = 0
        for bucket in counts.keys.sorted() {
            seen += counts[bucket] ?? 0
            if seen >= rank { return Swift.min(max, Self.upperBound(of: bucket)) }
        }
        return max
    }

    /// Values below 64 have a bucket each; above, each power of two [2^e, 2^(e+1)) is cut in 32.
    static func bucket(of value: Int) -> Int {
        guard value >= exact else { return value }
        let exponent = Int.bitWidth - 1 - value.leadingZeroBitCount
        let sub = (value >> (exponent - 5)) & (subBuckets - 1)
        return exact + (exponent - 6) * subBuckets + sub
    }

    /// The largest value that falls in `bucket`.
    static func upperBound(of bucket: Int) -> Int {
        guard bucket >= exact else { return bucket }
        let exponent = (bucket - exact) / subBuckets + 6
        let sub = (bucket - exact) % subBuckets
        return (1 << exponent) + (sub + 1) << (exponent - 5) - 1
    }
}
