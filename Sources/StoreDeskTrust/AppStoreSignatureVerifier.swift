import Crypto
import Foundation
import StoreDeskCore
import X509

/// Verifies App Store signed data (notifications, transaction and renewal infos) as Apple's App Store
/// Server Library's `SignedDataVerifier` does with online checks off: `alg` ES256, an `x5c` of exactly
/// three certificates, the leaf and intermediate validated by swift-certificates' `Verifier`
/// (`RFC5280Policy` at the signing date, then `AppStoreOIDPolicy`) up to one of the configured roots, never
/// to `x5c[2]` for being there, and the ES256 signature (raw r‖s) over `header.payload` with the leaf's key.
/// Revocation (OCSP) needs the network and is not checked.
///
/// Each distinct header is read once and each distinct chain validated once (cached by its bytes, with
/// the span of dates in which the whole chain is valid), so a file of a hundred thousand notifications
/// signed by one chain costs one chain validation and a hundred thousand signature checks, which any
/// number of threads may run at once.
///
///     let verifier = try AppStoreSignatureVerifier(roots: [appleRootCAG3])
///     verifier.verify(jws, at: signedDate)   // .success(Signer) or .failure(SignatureFailure)
public final class AppStoreSignatureVerifier: SignatureVerifying, @unchecked Sendable {
    /// The configured roots, as the verifier's store and by subject for reports.
    private let roots: CertificateStore
    private let rootsByCertificate: [Certificate: TrustedRoot]
    public let trustedRoots: [TrustedRoot]

    // Guarded by `lock`: headers read (by their base64url text) and chains validated (by their two certificates' bytes).
    private let lock = NSLock()
    private var headers: [HeaderKey: Result<ChainKey, SignatureFailure>] = [:]
    private var chains: [ChainKey: ChainState] = [:]
    /// How many chains were validated with swift-certificates (not answered from the cache).
    public private(set) var chainValidations = 0

    /// - Throws: `TrustRootFile.Problem` when a root's DER is not a certificate (a store row gone bad).
    public init(roots: [TrustedRoot]) throws {
        var certificates: [Certificate] = []
        var byCertificate: [Certificate: TrustedRoot] = [:]
        for root in roots {
            guard let certificate = try? Certificate(derEncoded: root.der) else {
                throw TrustRootFile.Problem(path: root.subject, reason: "the trusted root \(root.sha256) is not a certificate")
            }
            certificates.append(certificate)
            byCertificate[certificate] = root
        }
        self.roots = CertificateStore(certificates)
        self.rootsByCertificate = byCertificate
        self.trustedRoots = roots
    }

    public func verify(_ jws: UnverifiedJWS, at instant: Instant) -> Result<Signer, SignatureFailure> {
        let chain: ValidChain
        switch validChain(for: jws, at: instant.date) {
        case .success(let valid): chain = valid
        case .failure(let failure): return .failure(failure)
        }
        guard let raw = UnverifiedJWS.base64URLDecode(jws.signature),
            let signature = try? P256.Signing.ECDSASignature(rawRepresentation: raw)
        else {
            return .failure(UnverifiedJWS.signatureShape)
        }
        // The digest of `header.payload` straight from the text's bytes (kilobytes a JWS), not from a copy.
        let digest =
            jws.signingInput.utf8.withContiguousStorageIfAvailable { SHA256.hash(data: UnsafeRawBufferPointer($0)) }
            ?? SHA256.hash(data: Array(jws.signingInput.utf8))
        guard chain.key.isValidSignature(signature, for: digest) else {
            return .failure(SignatureFailure(.signature, "the ES256 signature does not match the leaf's key"))
        }
        return .success(chain.signer)
    }

    // MARK: - Chains

    /// A header's base64url text with its hash, computed once outside the lock from its length and its
    /// first and last 256 bytes (a `Substring`'s own hashing walks the text as Unicode, kilobytes of it,
    /// for every JWS). Equality compares every byte, so two headers that hash alike are still told apart:
    /// the sample only decides how fast the same header is found again.
    struct HeaderKey: Hashable {
        let text: Substring
        let hash: Int

        init(_ text: Substring) {
            self.text = text
            var hasher = Hasher()
            let sample = 256
            func combine(_ bytes: UnsafeBufferPointer<UInt8>) {
                hasher.combine(bytes.count)
                if bytes.count <= 2 * sample {
                    hasher.combine(bytes: UnsafeRawBufferPointer(bytes))
                } else {
                    hasher.combine(bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[..<sample])))
                    hasher.combine(bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[(bytes.count - sample)...])))
                }
            }
            if text.utf8.withContiguousStorageIfAvailable(combine) == nil {
                Array(text.utf8).withUnsafeBufferPointer(combine)
            }
            hash = hasher.finalize()
        }

        func hash(into hasher: inout Hasher) { hasher.combine(hash) }

        static func == (a: HeaderKey, b: HeaderKey) -> Bool {
            guard a.hash == b.hash, a.text.utf8.count == b.text.utf8.count else { return false }
            let same = a.text.utf8.withContiguousStorageIfAvailable { left in
                b.text.utf8.withContiguousStorageIfAvailable { right in
                    guard let l = left.baseAddress, let r = right.baseAddress else { return left.count == right.count }
                    return memcmp(l, r, left.count) == 0
                }
            }
            return (same ?? nil) ?? a.text.utf8.elementsEqual(b.text.utf8)
        }
    }

    /// The leaf and intermediate of a header, by their bytes, with their hash computed once when the
    /// header is first read (an array of bytes hashes byte by byte, and every JWS looks its chain up).
    struct ChainKey: Hashable {
        let leaf: [UInt8]
        let intermediate: [UInt8]
        let hash: Int

        init(leaf: [UInt8], intermediate: [UInt8]) {
            self.leaf = leaf
            self.intermediate = intermediate
            var hasher = Hasher()
            hasher.combine(leaf)
            hasher.combine(intermediate)
            hash = hasher.finalize()
        }

        func hash(into hasher: inout Hasher) { hasher.combine(hash) }

        static func == (a: ChainKey, b: ChainKey) -> Bool {
            a.hash == b.hash && a.leaf == b.leaf && a.intermediate == b.intermediate
        }
    }

    /// A chain validated at some instant: who signs with it, with which key, and from when to when every
    /// certificate in it is valid (outside that span it is validated again, and fails with the reason).
    struct ValidChain {
        var signer: Signer
        var key: P256.Signing.PublicKey
        var validFrom: Date
        var validUntil: Date
    }

    enum ChainState {
        case valid(ValidChain)
        /// Fails whatever the date: not to a trusted root, an OID missing, not a P-256 leaf.
        case refused(SignatureFailure)
    }

    private func validChain(for jws: UnverifiedJWS, at time: Date) -> Result<ValidChain, SignatureFailure> {
        // Hashed before the lock: every thread hashes its own kilobytes of header at once.
        let header = HeaderKey(jws.headerSegment)
        lock.lock()
        defer { lock.unlock() }
        let key: ChainKey
        if let known = headers[header] {
            switch known {
            case .success(let chainKey): key = chainKey
            case .failure(let failure): return .failure(failure)
            }
        } else {
            let read = Self.chainKey(header: jws.header)
            headers[HeaderKey(Substring(String(jws.headerSegment)))] = read
            switch read {
            case .success(let chainKey): key = chainKey
            case .failure(let failure): return .failure(failure)
            }
        }
        switch chains[key] {
        case .valid(let chain) where chain.validFrom <= time && time <= chain.validUntil: return .success(chain)
        case .refused(let failure): return .failure(failure)
        case .valid, nil: break
        }
        chainValidations += 1
        switch validate(key, at: time) {
        case .success(let chain):
            chains[key] = .valid(chain)
            return .success(chain)
        case .failure(let failure):
            if failure.check != .validity { chains[key] = .refused(failure) }
            return .failure(failure)
        }
    }

    /// The header's checks, as Apple's `ChainVerifier` makes them before any certificate is trusted
    /// (`UnverifiedJWS.certificateChain`), then the leaf and intermediate read as certificates.
    static func chainKey(header: Data) -> Result<ChainKey, SignatureFailure> {
        let x5c: [String]
        switch UnverifiedJWS.certificateChain(header: header) {
        case .success(let texts): x5c = texts
        case .failure(let failure): return .failure(failure)
        }
        var certificates: [[UInt8]] = []
        for (index, text) in x5c.prefix(2).enumerated() {
            guard let der = Data(base64Encoded: text), (try? Certificate(derEncoded: Array(der))) != nil else {
                return .failure(SignatureFailure(.certificate, "x5c[\(index)] is not a certificate (base64 DER)"))
            }
            certificates.append(Array(der))
        }
        return .success(ChainKey(leaf: certificates[0], intermediate: certificates[1]))
    }

    /// Validates leaf → intermediate → a configured root at `time` with swift-certificates.
    private func validate(_ key: ChainKey, at time: Date) -> Result<ValidChain, SignatureFailure> {
        guard let leaf = try? Certificate(derEncoded: key.leaf),
            let intermediate = try? Certificate(derEncoded: key.intermediate)
        else {
            return .failure(SignatureFailure(.certificate, "x5c holds a certificate that cannot be read"))
        }
        switch ChainValidation.validate(leaf: leaf, intermediate: intermediate, roots: roots, at: time) {
        case .validCertificate(let chain):
            guard let root = rootsByCertificate[chain.root] else {
                return .failure(SignatureFailure(.untrustedRoot, "the chain ends at a root that is not configured"))
            }
            guard let key = P256.Signing.PublicKey(leaf.publicKey) else {
                return .failure(SignatureFailure(.signature, "the leaf's key is not a P-256 key, so it cannot sign ES256"))
            }
            let signer = Signer(
                rootSHA256: root.sha256, rootSubject: root.subject, leafSubject: leaf.subject.description,
                leafSerial: Self.serial(leaf.serialNumber))
            return .success(
                ValidChain(
                    signer: signer, key: key, validFrom: chain.map(\.notValidBefore).max() ?? time,
                    validUntil: chain.map(\.notValidAfter).min() ?? time))
        case .couldNotValidate(let failures):
            return .failure(explain(failures, leaf: leaf, intermediate: intermediate, at: time))
        }
    }

    /// Says which check the chain failed: swift-certificates decided, this only names it in one line.
    private func explain(
        _ failures: [CertificateValidationResult.PolicyFailure], leaf: Certificate, intermediate: Certificate, at time: Date
    ) -> SignatureFailure {
        guard let first = failures.first else {
            guard leaf.issuer == intermediate.subject,
                intermediate.publicKey.isValidSignature(leaf.signature, for: leaf)
            else {
                return SignatureFailure(.untrustedRoot, "x5c[0] ('\(leaf.subject)') was not issued by x5c[1] ('\(intermediate.subject)')")
            }
            let count = trustedRoots.count
            return SignatureFailure(
                .untrustedRoot,
                "the chain does not lead to a trusted root: x5c[1] ('\(intermediate.subject)') was issued by none of "
                    + "the \(count) trusted root\(count == 1 ? "" : "s") (x5c[2] is never trusted for being in the header)")
        }
        let reason = first.policyFailureReason.description
        if reason.hasPrefix(AppStoreOIDPolicy.intermediateReason) { return SignatureFailure(.intermediateOID, reason) }
        if reason.hasPrefix(AppStoreOIDPolicy.leafReason) { return SignatureFailure(.leafOID, reason) }
        if reason.hasPrefix(AppStoreOIDPolicy.lengthReason) { return SignatureFailure(.chainLength, reason) }
        for certificate in first.chain where !(certificate.notValidBefore <= time && time <= certificate.notValidAfter) {
            return SignatureFailure(
                .validity,
                "certificate '\(certificate.subject)' is not valid at the signing date \(Instant(time).iso8601): "
                    + "valid \(Instant(certificate.notValidBefore).iso8601) to \(Instant(certificate.notValidAfter).iso8601)")
        }
        let line = reason.split(whereSeparator: \.isNewline).first.map(String.init) ?? reason
        return SignatureFailure(.chain, "the chain breaks RFC 5280: \(line.prefix(200))")
    }

    /// `0c`, `2d:c5:fc:88`: a serial number in colon-separated hex, two digits a byte.
    static func serial(_ number: Certificate.SerialNumber) -> String { hex(number.bytes, separator: ":") }
}

extension Instant {
    /// The same moment as a Foundation `Date`, as swift-certificates takes it.
    var date: Date { Date(timeIntervalSince1970: Double(millis) / 1000) }
}

extension NotificationTrust {
    /// The trust an import judges signed lines with, every backend's: the store's roots and those given
    /// for the run (each once), verified as Apple's library does; none at all leaves signed lines to
    /// `allowUnverified`.
    /// - Parameter ownRoot: the root of the store's own signing chain (DER), trusted too: what the store's
    ///   API and notifications sign comes back in imports.
    public static func forImport(
        storeRoots: [TrustedRoot], ownRoot: [UInt8]? = nil, extraRoots: [TrustedRoot], allowUnverified: Bool, now: Instant
    ) throws -> NotificationTrust {
        var roots = storeRoots
        if let ownRoot, var own = try? TrustRootFile.root(from: Data(ownRoot)), !roots.contains(where: { $0.sha256 == own.sha256 }) {
            own.addedBy = "storedesk signer"
            roots.append(own)
        }
        for root in extraRoots where !roots.contains(where: { $0.sha256 == root.sha256 }) { roots.append(root) }
        let verifier = roots.isEmpty ? nil : try AppStoreSignatureVerifier(roots: roots)
        return NotificationTrust(verifier: verifier, allowUnverified: allowUnverified, now: now)
    }
}
