/// A fault a developer injects into the payment simulation, from `--fault KIND[:ARG]` or the console.
///
/// Per-purchase faults take a probability (default 0.2); `serverDown` takes seconds (default 10) and
/// starts a quarter of the way into the run.
///
///     try PaymentFault.parse("networkDrop:0.5")   // .networkDrop(probability: 0.5)
///     try PaymentFault.parse("serverDown:30")     // .serverDown(seconds: 30)
public enum PaymentFault: Hashable, Sendable, CustomStringConvertible {
    /// The client crashes after the App Store charged and before it sent the receipt or finished: the
    /// transaction stays purchased and unfinished, no order, no grant; a restore prompt at next login.
    case clientCrash(probability: Double)
    /// The network drops the callback between platform and game server (1-3 times); retried with backoff.
    case networkDrop(probability: Double)
    /// The platform sends an accepted callback again: the server answers success and grants nothing.
    case duplicateCallback(probability: Double)
    /// The first callback's sign is altered: rejected, logged, no grant; the genuine retry grants.
    case tamperedSign(probability: Double)
    /// A field of the first callback is altered after signing: rejected like a bad sign.
    case tamperedField(probability: Double)
    /// Ask to Buy: deferred, then approved (70%) or declined.
    case askToBuy(probability: Double)
    /// The payment fails with a StoreKit reason.
    case failedPayment(probability: Double)
    /// The game server answers nothing for this many seconds; callbacks are retried with backoff.
    case serverDown(seconds: Int)

    /// The kinds, as written on the command line.
    public static let kinds = [
        "clientCrash", "networkDrop", "duplicateCallback", "tamperedSign", "tamperedField", "askToBuy",
        "failedPayment", "serverDown",
    ]

    public static let defaultProbability = 0.2
    public static let defaultDownSeconds = 10

    /// Why a `--fault` value was refused; names the value.
    public struct ParseError: Error, Hashable, Sendable, CustomStringConvertible {
        public var value: String
        public var problem: String
        public var description: String { "--fault '\(value)': \(problem)" }
    }

    /// Reads `KIND[:ARG]`; the kind is matched ignoring case, `-` and `_` (`network-drop` works).
    public static func parse(_ text: String) throws(ParseError) -> PaymentFault {
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        let name = String(parts[0])
        let argument = parts.count > 1 ? String(parts[1]) : nil
        func normalized(_ s: String) -> String { s.lowercased().filter { $0 != "-" && $0 != "_" } }
        guard let kind = kinds.first(where: { normalized($0) == normalized(name) }) else {
            throw ParseError(value: text, problem: "unknown fault kind; expected one of \(kinds.joined(separator: ", "))")
        }
        if kind == "serverDown" {
            guard let argument else { return .serverDown(seconds: defaultDownSeconds) }
            guard let seconds = Int(argument), seconds > 0, seconds <= 86_400 else {
                throw ParseError(value: text, problem: "serverDown takes a whole number of seconds from 1 to 86400")
            }
            return .serverDown(seconds: seconds)
        }
        var probability = defaultProbability
        if let argument {
            guard let value = Double(argument), value > 0, value <= 1 else {
                throw ParseError(value: text, problem: "\(kind) takes a probability above 0 and at most 1")
            }
            probability = value
        }
        switch kind {
        case "clientCrash": return .clientCrash(probability: probability)
        case "networkDrop": return .networkDrop(probability: probability)
        case "duplicateCallback": return .duplicateCallback(probability: probability)
        case "tamperedSign": return .tamperedSign(probability: probability)
        case "tamperedField": return .tamperedField(probability: probability)
        case "askToBuy": return .askToBuy(probability: probability)
        default: return .failedPayment(probability: probability)
        }
    }

    public var description: String {
        switch self {
        case .clientCrash(let p): "clientCrash:\(p)"
        case .networkDrop(let p): "networkDrop:\(p)"
        case .duplicateCallback(let p): "duplicateCallback:\(p)"
        case .tamperedSign(let p): "tamperedSign:\(p)"
        case .tamperedField(let p): "tamperedField:\(p)"
        case .askToBuy(let p): "askToBuy:\(p)"
        case .failedPayment(let p): "failedPayment:\(p)"
        case .serverDown(let s): "serverDown:\(s)"
        }
    }
}
