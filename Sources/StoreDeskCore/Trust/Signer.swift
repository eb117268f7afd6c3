/// Who signed a verified notification: the configured root its chain led to, and the leaf certificate
/// whose key made the signature. Kept with each stored notification so an operator can tell Apple's
/// signature from a test or demo chain's.
public struct Signer: Hashable, Sendable, Codable {
    /// The SHA-256 of the trusted root's DER, lowercase hex.
    public var rootSHA256: String
    /// The root's subject, e.g. `CN=Apple Root CA - G3,OU=Apple Certification Authority,O=Apple Inc.,C=US`.
    public var rootSubject: String
    /// The leaf certificate's subject.
    public var leafSubject: String
    /// The leaf's serial number, colon-separated hex as swift-certificates prints it (`0c`, `2d:c5:...`).
    public var leafSerial: String

    public init(rootSHA256: String, rootSubject: String, leafSubject: String, leafSerial: String) {
        self.rootSHA256 = rootSHA256
        self.rootSubject = rootSubject
        self.leafSubject = leafSubject
        self.leafSerial = leafSerial
    }

    /// Whether the chain ended at Apple's own root, not a test or demo one.
    public var isApple: Bool { rootSHA256 == TrustedRoot.appleRootCAG3SHA256 }
}
