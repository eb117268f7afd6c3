import SwiftASN1
import X509

/// Apple's own rule on top of RFC 5280, as its App Store Server Library states it: a chain of exactly
/// leaf, intermediate and root, the intermediate carrying the WWDR OID and the leaf the receipt-signing
/// OID. Neither extension is critical, so the policy enforces no critical extension of its own.
struct AppStoreOIDPolicy: VerifierPolicy, Sendable {
    static let intermediateOID: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 2, 1]
    static let leafOID: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 11, 1]

    /// Reasons begin with these, so a refusal can name the check.
    static let lengthReason = "App Store chain length: "
    static let intermediateReason = "the intermediate lacks Apple's WWDR OID 1.2.840.113635.100.6.2.1"
    static let leafReason = "the leaf lacks Apple's receipt-signing OID 1.2.840.113635.100.6.11.1"

    let verifyingCriticalExtensions: [ASN1ObjectIdentifier] = []

    func chainMeetsPolicyRequirements(chain: UnverifiedCertificateChain) -> PolicyEvaluationResult {
        guard chain.count == 3 else {
            return .failsToMeetPolicy(reason: Self.lengthReason + "\(chain.count) certificates from the leaf to the root, not 3")
        }
        if !chain[1].extensions.contains(where: { $0.oid == Self.intermediateOID }) {
            return .failsToMeetPolicy(reason: Self.intermediateReason)
        }
        if !chain[0].extensions.contains(where: { $0.oid == Self.leafOID }) {
            return .failsToMeetPolicy(reason: Self.leafReason)
        }
        return .meetsPolicy
    }
}
