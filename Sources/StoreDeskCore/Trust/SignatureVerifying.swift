/// Checks one App Store JWS. StoreDeskTrust's `AppStoreSignatureVerifier` is the real one (swift-certificates
/// and swift-crypto); Core only states what is asked, so the import rules stay pure.
public protocol SignatureVerifying: Sendable {
    /// Verifies `jws` as Apple's `SignedDataVerifier` does with online checks off: `alg` ES256, an `x5c`
    /// of three certificates, the leaf and intermediate validated up to a configured root at `instant`
    /// (never `x5c[2]` for being there), Apple's OIDs on the intermediate and the leaf, and the ES256
    /// signature over `header.payload` with the leaf's key.
    func verify(_ jws: UnverifiedJWS, at instant: Instant) -> Result<Signer, SignatureFailure>
}

/// Which check of a JWS failed, and the one-line reason an operator reads.
public struct SignatureFailure: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Check: String, Hashable, Sendable, CaseIterable {
        /// The header is not JSON, or has no `x5c`.
        case format
        /// `alg` is not ES256.
        case algorithm
        /// `x5c` does not hold exactly three certificates.
        case chainLength
        /// A certificate of `x5c` cannot be read.
        case certificate
        /// The chain does not lead to any configured root.
        case untrustedRoot
        /// A certificate of the chain is not valid at the signing date.
        case validity
        /// The intermediate lacks Apple's WWDR OID 1.2.840.113635.100.6.2.1.
        case intermediateOID
        /// The leaf lacks Apple's receipt-signing OID 1.2.840.113635.100.6.11.1.
        case leafOID
        /// The chain breaks another RFC 5280 rule (basic constraints, versions, name constraints).
        case chain
        /// The signature does not verify with the leaf's key.
        case signature
    }

    public var check: Check
    public var reason: String

    public init(_ check: Check, _ reason: String) {
        self.check = check
        self.reason = reason
    }

    public var description: String { reason }
}
