/// A root certificate the operator trusts to anchor App Store signature chains (`storedesk trust add`).
///
/// A plain value: StoreDeskTrust reads it from a DER or PEM file with swift-certificates, the store keeps
/// it, and a verifier is built from the store's roots (plus `events import --trust-root` for one run).
/// Only a configured root anchors a chain: the third certificate of a JWS's `x5c` is never trusted for
/// being there.
public struct TrustedRoot: Hashable, Sendable {
    /// The store's id, nil for a root given for one run.
    public var id: Int64?
    /// The certificate, DER.
    public var der: [UInt8]
    /// SHA-256 of `der`, lowercase hex: how `trust list` and each verified notification name it.
    public var sha256: String
    public var subject: String
    public var notValidBefore: Instant
    public var notValidAfter: Instant
    /// When it was added to the store; nil for a root given for one run.
    public var addedAt: Instant?
    public var addedBy: String?

    public init(
        id: Int64? = nil, der: [UInt8], sha256: String, subject: String, notValidBefore: Instant,
        notValidAfter: Instant, addedAt: Instant? = nil, addedBy: String? = nil
    ) {
        self.id = id
        self.der = der
        self.sha256 = sha256
        self.subject = subject
        self.notValidBefore = notValidBefore
        self.notValidAfter = notValidAfter
        self.addedAt = addedAt
        self.addedBy = addedBy
    }

    /// The SHA-256 fingerprint of Apple Root CA - G3 (the root of every App Store signing chain), as
    /// Apple publishes it at https://www.apple.com/certificateauthority/ and as Apple's App Store Server
    /// Library embeds the certificate in its tests.
    public static let appleRootCAG3SHA256 = "63343abfb89a6a03ebb57e9b3f5fa7be7c4f5c756f3017b3a8c488c3653e9179"

    /// Whether this is Apple Root CA - G3 itself.
    public var isAppleRootCAG3: Bool { sha256 == Self.appleRootCAG3SHA256 }

    /// Whether the certificate presents itself as Apple's (its subject names Apple): offered as a root,
    /// a file like that which is not Apple Root CA - G3 is refused, saying what it is instead.
    public var claimsToBeApple: Bool { subject.lowercased().contains("apple") }

    /// `63:34:3A:BF:...`: the fingerprint as certificate viewers print it.
    public static func spaced(_ sha256: String) -> String {
        var pairs: [Substring] = []
        var index = sha256.startIndex
        while index < sha256.endIndex {
            let next = sha256.index(index, offsetBy: 2, limitedBy: sha256.endIndex) ?? sha256.endIndex
            pairs.append(sha256[index..<next])
            index = next
        }
        return pairs.joined(separator: ":").uppercased()
    }
}
