import Crypto
import Foundation
import SwiftASN1

/// An App Store Server API key as the store registers it for an app: its key id (`kid`), its issuer
/// (`iss`) and the public half of its P-256 key. A private key given (Apple's `.p8`, PKCS#8, or SEC1
/// `EC PRIVATE KEY`) is reduced to its public half at once and never kept.
///
///     let key = try AppStoreAPIKey(keyId: "2X9R4HXF34", issuerId: "57246542-96fe-1a63-e053-0824d011072a",
///                                  pem: try String(contentsOfFile: "SubscriptionKey_2X9R4HXF34.p8"))
///     key.publicKeyPEM   // -----BEGIN PUBLIC KEY----- …
public struct AppStoreAPIKey: Hashable, Sendable {
    public var keyId: String
    public var issuerId: String
    /// The public key as SubjectPublicKeyInfo DER.
    public var publicKeyDER: [UInt8]

    /// Why a text is not a P-256 key, in one line.
    public struct Problem: Error, Hashable, Sendable, CustomStringConvertible {
        public var reason: String
        public init(_ reason: String) { self.reason = reason }
        public var description: String { reason }
    }

    public init(keyId: String, issuerId: String, publicKey: P256.Signing.PublicKey) {
        self.keyId = keyId
        self.issuerId = issuerId
        self.publicKeyDER = Array(publicKey.derRepresentation)
    }

    /// From a public key kept as SubjectPublicKeyInfo DER (a store's row); `publicKey` is nil if it is not P-256.
    public init(keyId: String, issuerId: String, publicKeyDER: [UInt8]) {
        self.keyId = keyId
        self.issuerId = issuerId
        self.publicKeyDER = publicKeyDER
    }

    /// From a PEM holding a private key (reduced to its public half) or a public key.
    public init(keyId: String, issuerId: String, pem: String) throws(Problem) {
        self.init(keyId: keyId, issuerId: issuerId, publicKey: try Self.publicKey(fromPEM: pem))
    }

    /// The public half of the key in `pem`: a `PRIVATE KEY` (PKCS#8, Apple's `.p8`), an `EC PRIVATE KEY`
    /// (SEC1) or a `PUBLIC KEY`, P-256 each.
    public static func publicKey(fromPEM pem: String) throws(Problem) -> P256.Signing.PublicKey {
        let documents: [PEMDocument]
        do {
            documents = try PEMDocument.parseMultiple(pemString: pem)
        } catch {
            throw Problem("not a PEM key: no -----BEGIN …----- block can be read")
        }
        guard !documents.isEmpty else { throw Problem("not a PEM key: no -----BEGIN …----- block can be read") }
        guard documents.count == 1, let document = documents.first else {
            throw Problem("holds \(documents.count) PEM blocks: give one key")
        }
        switch document.discriminator {
        case "PRIVATE KEY", "EC PRIVATE KEY":
            guard let key = try? P256.Signing.PrivateKey(pemRepresentation: document.pemString) else {
                throw Problem("its \(document.discriminator) is not a P-256 (ES256) key")
            }
            return key.publicKey
        case "PUBLIC KEY":
            guard let key = try? P256.Signing.PublicKey(pemRepresentation: document.pemString) else {
                throw Problem("its PUBLIC KEY is not a P-256 (ES256) key")
            }
            return key
        case "ENCRYPTED PRIVATE KEY":
            throw Problem("the private key is encrypted: give the .p8 file App Store Connect gave")
        default:
            throw Problem("holds a \(document.discriminator), not a key")
        }
    }

    /// The public half of the key in `pem` as a `PUBLIC KEY` PEM: what the store keeps of a private key.
    public static func publicKeyPEM(fromPEM pem: String) throws(Problem) -> String {
        try publicKey(fromPEM: pem).pemRepresentation
    }

    /// The key as swift-crypto verifies with it; nil only if `publicKeyDER` was edited into something else.
    public var publicKey: P256.Signing.PublicKey? { try? P256.Signing.PublicKey(derRepresentation: publicKeyDER) }

    public var publicKeyPEM: String { PEMDocument(type: "PUBLIC KEY", derBytes: publicKeyDER).pemString }
}
