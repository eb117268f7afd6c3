/// A `status` from Apple's (legacy) `verifyReceipt` endpoint, with Apple's meaning.
public struct ReceiptStatus: Hashable, Sendable, CustomStringConvertible {
    public var code: Int

    public init(_ code: Int) { self.code = code }

    public static let valid = ReceiptStatus(0)
    public static let sandboxReceiptSentToProduction = ReceiptStatus(21007)
    public static let productionReceiptSentToSandbox = ReceiptStatus(21008)

    /// Apple's documented statuses 21000–21010, in order.
    public static let documented: [ReceiptStatus] = (21000...21010).map(ReceiptStatus.init)

    /// Apple's description of the status.
    public var meaning: String {
        switch code {
        case 0: "the receipt is valid"
        case 21000: "the request to the App Store was not made using the HTTP POST method"
        case 21001: "this status code is no longer sent by the App Store"
        case 21002: "the receipt-data property was malformed or the service had a temporary issue"
        case 21003: "the receipt could not be authenticated"
        case 21004: "the shared secret does not match the shared secret on file for the account"
        case 21005: "the receipt server was temporarily unable to provide the receipt"
        case 21006: "the receipt is valid but the subscription has expired"
        case 21007: "this receipt is from the sandbox (test) environment but was sent to production"
        case 21008: "this receipt is from the production environment but was sent to the sandbox"
        case 21009: "internal data access error"
        case 21010: "the user account cannot be found or has been deleted"
        case 21100...21199: "internal data access error"
        default: "unknown status"
        }
    }

    /// Apple says to try these again later; they say nothing about the receipt itself.
    public var isRetryable: Bool { code == 21002 || code == 21005 || code == 21009 || (21100...21199).contains(code) }

    public var description: String { "\(code) (\(meaning))" }
}

/// Simulated receipt verification as a game server does it: always ask production first, and when
/// production answers 21007 (a sandbox receipt, e.g. from TestFlight or App Review) ask the sandbox.
///
/// Asking production first is Apple's advice: the same build serves reviewers (sandbox) and players
/// (production), and guessing by build would reject real purchases.
///
///     let check = ReceiptCheck.run { endpoint in endpoint == .production ? 21007 : 0 }
///     check.verdict     // .valid(.sandbox)
///     check.attempts    // production → 21007, sandbox → 0
public struct ReceiptCheck: Hashable, Sendable {
    /// One request to one endpoint and what it answered.
    public struct Attempt: Hashable, Sendable {
        public var endpoint: StoreEnvironment
        public var status: ReceiptStatus

        public init(endpoint: StoreEnvironment, status: ReceiptStatus) {
            self.endpoint = endpoint
            self.status = status
        }
    }

    public enum Verdict: Hashable, Sendable {
        /// Status 0 from this environment.
        case valid(StoreEnvironment)
        /// Any other final status.
        case rejected(ReceiptStatus)
    }

    public var attempts: [Attempt]
    public var verdict: Verdict

    public var isValid: Bool {
        if case .valid = verdict { return true }
        return false
    }

    /// One sentence for the console.
    public var reason: String {
        switch verdict {
        case .valid(let environment):
            attempts.count > 1
                ? "valid in \(environment.rawValue) after production answered 21007 (a sandbox receipt)"
                : "valid in \(environment.rawValue)"
        case .rejected(let status):
            "rejected: status \(status.code), \(status.meaning)" + (status.isRetryable ? " (try again later)" : "")
        }
    }

    /// Runs the check; `answer` plays Apple's server and returns the status an endpoint gives.
    public static func run(answer: (StoreEnvironment) -> Int) -> ReceiptCheck {
        let production = Attempt(endpoint: .production, status: ReceiptStatus(answer(.production)))
        guard production.status == .sandboxReceiptSentToProduction else {
            return ReceiptCheck(attempts: [production], verdict: verdict(for: production))
        }
        let sandbox = Attempt(endpoint: .sandbox, status: ReceiptStatus(answer(.sandbox)))
        return ReceiptCheck(attempts: [production, sandbox], verdict: verdict(for: sandbox))
    }

    /// Runs the check for a receipt issued in `receiptEnvironment`: the endpoint of the other
    /// environment answers 21007 or 21008, the right one answers `status` (0 unless a failure is simulated).
    public static func run(receiptEnvironment: StoreEnvironment, status: Int = 0) -> ReceiptCheck {
        run { endpoint in
            if endpoint == receiptEnvironment { return status }
            return receiptEnvironment == .sandbox
                ? ReceiptStatus.sandboxReceiptSentToProduction.code : ReceiptStatus.productionReceiptSentToSandbox.code
        }
    }

    private static func verdict(for attempt: Attempt) -> Verdict {
        attempt.status == .valid ? .valid(attempt.endpoint) : .rejected(attempt.status)
    }
}
