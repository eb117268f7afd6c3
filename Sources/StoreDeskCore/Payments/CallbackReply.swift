/// What a real game server did with one callback POSTed to it, as plain values: the network layer fills
/// it in, Core decides what it means.
///
/// The platform's rule: the reply body `success` (exactly those seven bytes, with a 2xx status) accepts
/// the callback; any other body, any other status, a refused connection or a timeout is a failed delivery
/// that the platform retries with backoff.
///
///     let reply = CallbackReply(status: 200, body: Array("success".utf8), latencyMicros: 850)
///     reply.isSuccess   // true
public struct CallbackReply: Hashable, Sendable {
    /// Why no HTTP reply came back.
    public enum Failure: Hashable, Sendable {
        case connectionRefused
        case timedOut(seconds: Double)
        /// Anything else (the connection broke, the URL's host does not resolve, …), in one line.
        case other(String)

        public var sentence: String {
            switch self {
            case .connectionRefused: "connection refused"
            case .timedOut(let seconds): "no reply within \(CallbackReply.secondsText(seconds)) s (timeout)"
            case .other(let text): text
            }
        }
    }

    /// The reply body the platform accepts.
    public static let successBody: [UInt8] = Array("success".utf8)
    /// How much of a reply body is kept and shown: enough to read an error page's first line.
    public static let shownLimit = 200

    /// The HTTP status; nil when nothing came back.
    public var status: Int?
    /// The reply body as received.
    public var body: [UInt8]
    /// From sending the request to the reply's last byte, or to the failure.
    public var latencyMicros: Int
    public var failure: Failure?

    public init(status: Int?, body: [UInt8], latencyMicros: Int, failure: Failure? = nil) {
        self.status = status
        self.body = body
        self.latencyMicros = latencyMicros
        self.failure = failure
    }

    /// A delivery that got no reply.
    public static func failed(_ failure: Failure, latencyMicros: Int) -> CallbackReply {
        CallbackReply(status: nil, body: [], latencyMicros: latencyMicros, failure: failure)
    }

    /// Whether the platform counts the callback as delivered.
    public var isSuccess: Bool {
        guard failure == nil, let status, (200..<300).contains(status) else { return false }
        return body == Self.successBody
    }

    /// Whether the game server answered at all (so it saw the callback).
    public var wasAnswered: Bool { failure == nil && status != nil }

    /// The body cut to `shownLimit` bytes, as text with control characters escaped, so a reply never
    /// moves the cursor of the terminal that shows it: `success`, `fail\n` → `fail\\n`.
    public var shownBody: String {
        let cut = body.prefix(Self.shownLimit)
        var text = ""
        for scalar in String(decoding: cut, as: UTF8.self).unicodeScalars {
            switch scalar {
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case "\\": text += "\\\\"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    text += "\\x" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
                } else {
                    text.unicodeScalars.append(scalar)
                }
            }
        }
        return body.count > Self.shownLimit ? text + "…" : text
    }

    /// What the reply was, in a few words: `HTTP 200 "success" in 1.2 ms`, `connection refused after 0.3 ms`.
    public var summary: String {
        let time = Self.millisText(latencyMicros)
        if let failure { return failure.sentence + " after " + time }
        return "HTTP \(status ?? 0) \"\(shownBody)\" in \(time)"
    }

    /// Why a reply is not a delivery, or nil when it is one.
    public var problem: String? {
        if let failure { return "no reply: " + failure.sentence }
        guard let status else { return "no reply" }
        guard (200..<300).contains(status) else { return "HTTP \(status) is not a 2xx status" }
        guard body != Self.successBody else { return nil }
        if body.count > Self.successBody.count, body.starts(with: Self.successBody) {
            return "the body is \"\(shownBody)\": exactly success is wanted, with nothing after it"
        }
        if body.last.map({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D }) == true || body.first == 0xEF {
            return "the body is \"\(shownBody)\": exactly success is wanted, without spaces, newlines or a BOM"
        }
        return "the body is \"\(shownBody)\", not success"
    }

    /// `1.2 ms`, to a tenth of a millisecond.
    public static func millisText(_ micros: Int) -> String {
        let tenths = (micros + 50) / 100
        return String(tenths / 10) + "." + String(tenths % 10) + " ms"
    }

    static func secondsText(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }
}

/// One callback the simulation wants POSTed to a real game server, and everything needed to judge the reply.
public struct OutboundCallback: Hashable, Sendable, Identifiable {
    /// Unique within a simulation run.
    public var id: Int
    public var orderId: String
    public var transactionId: String
    public var appId: String
    public var attempt: Int
    /// How many earlier attempts the game server answered.
    public var received: Int
    /// What goes over the wire (already tampered with when a fault says so).
    public var body: String
    /// The platform sends an accepted callback again (a duplicate fault): the answer must still be success.
    public var isRepeat: Bool
    /// " (sign tampered in transit)" and the like, or empty.
    public var tampering: String
    public var sentAt: Instant
}
