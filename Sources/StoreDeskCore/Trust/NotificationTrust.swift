/// How far a notification line is trusted, decided before anything is written: every signed part
/// verified, or taken unverified only by the operator's choice, or from StoreKit testing as Apple's rule
/// says, or refused with the check that failed.
///
///     let trust = NotificationTrust(verifier: verifier, allowUnverified: false, now: now)
///     switch trust.judge(line) {
///     case .trusted(let provenance, let signer): ...
///     case .refused(let reason): ...   // "signedPayload: the ES256 signature does not match the leaf's key"
///     }
public struct NotificationTrust: Sendable {
    /// Nil when the store has no trusted root and none was given for this run.
    public var verifier: (any SignatureVerifying)?
    /// `events import --allow-unverified`: with no trusted root, take signed lines unverified (marked so),
    /// when each signed part is at least shaped as Apple signs (`UnverifiedJWS.shapeProblem`): `alg`
    /// ES256, an x5c of three certificates, a 64-byte signature.
    public var allowUnverified: Bool
    /// The instant a part without a `signedDate` is validated at.
    public var now: Instant

    public init(verifier: (any SignatureVerifying)?, allowUnverified: Bool, now: Instant) {
        self.verifier = verifier
        self.allowUnverified = allowUnverified
        self.now = now
    }

    /// The refusal of a signed line when nothing could verify it.
    public static let noTrustedRoot = "no trusted root: add Apple Root CA G3 with storedesk trust add"

    public enum Verdict: Hashable, Sendable {
        case trusted(SubscriptionEvent.Provenance, Signer?)
        case refused(String)
    }

    /// The environments Apple's library decodes without verifying: data signed by Xcode or StoreKit local
    /// testing, never by the App Store.
    public static let storeKitTestingEnvironments: Set<String> = ["Xcode", "LocalTesting"]

    public func judge(_ line: NotificationLine) -> Verdict {
        guard line.isSigned else { return .trusted(.decodedJSON, nil) }
        if let environment = Self.environment(of: line), Self.storeKitTestingEnvironments.contains(environment) {
            return .trusted(.storeKitTesting, nil)
        }
        guard let verifier else {
            guard allowUnverified else { return .refused(Self.noTrustedRoot) }
            // Unverified is still signed: a part with no ES256 header, no chain or no signature is refused.
            for part in line.signedParts {
                if let problem = part.jws.shapeProblem { return .refused("\(part.field): \(problem.reason)") }
            }
            return .trusted(.unverifiedJWS, nil)
        }
        var signer: Signer?
        for part in line.signedParts {
            switch verifier.verify(part.jws, at: part.signedDate ?? now) {
            case .success(let partSigner): signer = signer ?? partSigner
            case .failure(let failure): return .refused("\(part.field): \(failure.reason)")
            }
        }
        // A decoded notification carrying signed infos is not signed as a whole: its own fields are
        // only as good as the file they came in.
        return line.signedPayload == nil ? .trusted(.decodedJSON, nil) : .trusted(.verified, signer)
    }

    /// The environment the line says it was signed in: the notification's, else its transaction's or
    /// renewal's (a signed info on its own).
    static func environment(of line: NotificationLine) -> String? {
        line.event.environment ?? line.event.transaction?.environment ?? line.event.renewal?.environment
    }
}
