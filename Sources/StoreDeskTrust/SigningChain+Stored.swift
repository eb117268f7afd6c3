import Crypto
import Foundation
import StoreDeskCore
import SwiftASN1
import X509

/// A signing chain as a store keeps it: each certificate's DER and each private key's PKCS#8 DER, or all
/// six as one PEM text. The keys are in the bytes, never in a description: printing, `dump` and string
/// interpolation of this value (and of `SigningChain`) name the certificates only.
///
///     let stored = chain.stored                       // six blobs for six columns
///     let again = try SigningChain(stored: stored)    // refused if a key is not its certificate's
///     let text = stored.pem                           // or one file: certificates, then keys
///     let same = try SigningChain.Stored(pem: text)
public extension SigningChain {
    /// The chain's bytes as a store keeps them (`SigningChainDER`, a plain value of StoreDeskCore).
    typealias Stored = SigningChainDER

    /// Why stored or given certificates and keys are not a signing chain, in one line.
    struct Problem: Error, Hashable, Sendable, CustomStringConvertible {
        public var reason: String
        public init(_ reason: String) { self.reason = reason }
        public var description: String { reason }
    }

    /// The certificates as DER and the keys as PKCS#8 DER, for a store to keep.
    var stored: Stored {
        get throws {
            Stored(
                leafDER: try Self.der(leaf), intermediateDER: try Self.der(intermediate), rootDER: try Self.der(root),
                leafKeyDER: Array(leafKey.derRepresentation), intermediateKeyDER: Array(intermediateKey.derRepresentation),
                rootKeyDER: Array(rootKey.derRepresentation))
        }
    }

    /// The chain a store kept, checked as a chain before it signs anything: each key its certificate's,
    /// the root self-signed, the intermediate issued by the root and the leaf by the intermediate.
    init(stored: Stored) throws(Problem) {
        func certificate(_ der: [UInt8], _ role: String) throws(Problem) -> Certificate {
            guard let certificate = try? Certificate(derEncoded: der) else { throw Problem("the \(role) certificate cannot be read") }
            return certificate
        }
        func key(_ der: [UInt8], _ role: String) throws(Problem) -> P256.Signing.PrivateKey {
            guard let key = try? P256.Signing.PrivateKey(derRepresentation: der) else {
                throw Problem("the \(role)'s private key is not a P-256 key (PKCS#8 DER)")
            }
            return key
        }
        try self.init(
            root: try certificate(stored.rootDER, "root"), intermediate: try certificate(stored.intermediateDER, "intermediate"),
            leaf: try certificate(stored.leafDER, "leaf"), rootKey: try key(stored.rootKeyDER, "root"),
            intermediateKey: try key(stored.intermediateKeyDER, "intermediate"), leafKey: try key(stored.leafKeyDER, "leaf"))
    }

    /// A chain of certificates and keys made elsewhere (a store, Apple's test chain), checked as `init(stored:)` says.
    init(
        root: Certificate, intermediate: Certificate, leaf: Certificate, rootKey: P256.Signing.PrivateKey,
        intermediateKey: P256.Signing.PrivateKey, leafKey: P256.Signing.PrivateKey
    ) throws(Problem) {
        for (role, certificate, key) in [
            ("root", root, rootKey.publicKey), ("intermediate", intermediate, intermediateKey.publicKey),
            ("leaf", leaf, leafKey.publicKey),
        ] where certificate.publicKey != Certificate.PublicKey(key) {
            throw Problem("the \(role)'s private key is not the key of its certificate '\(certificate.subject)'")
        }
        for (role, certificate, issuer) in [("root", root, root), ("intermediate", intermediate, root), ("leaf", leaf, intermediate)]
        where certificate.issuer != issuer.subject || !issuer.publicKey.isValidSignature(certificate.signature, for: certificate) {
            throw Problem("the \(role) '\(certificate.subject)' was not issued by '\(issuer.subject)'")
        }
        self.init(
            uncheckedRoot: root, intermediate: intermediate, leaf: leaf, rootKey: rootKey, intermediateKey: intermediateKey,
            leafKey: leafKey)
    }

    /// A certificate's DER.
    static func der(_ certificate: Certificate) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return serializer.serializedBytes
    }
}

extension SigningChain: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The three certificates by subject, the leaf's serial and the root's fingerprint; never a key.
    public var description: String {
        let rootSHA = (try? TrustedRoot(root).sha256) ?? "?"
        return "SigningChain(leaf: '\(leaf.subject)' serial \(AppStoreSignatureVerifier.serial(leaf.serialNumber)), "
            + "intermediate: '\(intermediate.subject)', root: '\(root.subject)' sha256 \(rootSHA), private keys not shown)"
    }

    public var debugDescription: String { description }

    /// What `dump` and a debugger show: the certificates' subjects, no key.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "leaf": leaf.subject.description, "intermediate": intermediate.subject.description, "root": root.subject.description,
            ])
    }
}

extension SigningChainDER {
    /// The chain as one PEM text: the leaf's, the intermediate's and the root's CERTIFICATE blocks,
    /// then their PRIVATE KEY blocks in the same order. Secret: write it where only the store reads.
    public var pem: String {
        let blocks =
            [leafDER, intermediateDER, rootDER].map { PEMDocument(type: "CERTIFICATE", derBytes: $0) }
            + [leafKeyDER, intermediateKeyDER, rootKeyDER].map { PEMDocument(type: "PRIVATE KEY", derBytes: $0) }
        return blocks.map(\.pemString).joined(separator: "\n") + "\n"
    }

    /// Reads what `pem` wrote: three CERTIFICATE blocks (leaf, intermediate, root) and three PRIVATE
    /// KEY blocks (PKCS#8, or SEC1 `EC PRIVATE KEY`), each key matched to its certificate by its public key.
    public init(pem text: String) throws(SigningChain.Problem) {
        let documents: [PEMDocument]
        do {
            documents = try PEMDocument.parseMultiple(pemString: text)
        } catch {
            throw SigningChain.Problem("the PEM text cannot be read")
        }
        let certificates = documents.filter { $0.discriminator == "CERTIFICATE" }.map { Array($0.derBytes) }
        guard certificates.count == 3 else {
            throw SigningChain.Problem("the PEM holds \(certificates.count) certificates, not 3 (leaf, intermediate, root)")
        }
        var keys: [P256.Signing.PrivateKey] = []
        for document in documents where document.discriminator.hasSuffix("PRIVATE KEY") {
            guard let key = try? P256.Signing.PrivateKey(pemRepresentation: document.pemString) else {
                throw SigningChain.Problem("a \(document.discriminator) block is not a P-256 private key")
            }
            keys.append(key)
        }
        guard keys.count == 3 else {
            throw SigningChain.Problem("the PEM holds \(keys.count) private keys, not 3 (one a certificate)")
        }
        func key(for der: [UInt8], _ role: String) throws(SigningChain.Problem) -> [UInt8] {
            guard let certificate = try? Certificate(derEncoded: der) else {
                throw SigningChain.Problem("the \(role) certificate cannot be read")
            }
            guard let match = keys.first(where: { Certificate.PublicKey($0.publicKey) == certificate.publicKey }) else {
                throw SigningChain.Problem("no private key in the PEM is the \(role)'s")
            }
            return Array(match.derRepresentation)
        }
        self.init(
            leafDER: certificates[0], intermediateDER: certificates[1], rootDER: certificates[2],
            leafKeyDER: try key(for: certificates[0], "leaf"), intermediateKeyDER: try key(for: certificates[1], "intermediate"),
            rootKeyDER: try key(for: certificates[2], "root"))
    }
}
