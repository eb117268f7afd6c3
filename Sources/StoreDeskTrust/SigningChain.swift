import Crypto
import Foundation
import StoreDeskCore
import SwiftASN1
import X509

/// A certificate chain shaped like Apple's App Store signing chain (root → intermediate with the WWDR OID
/// → leaf with the receipt-signing OID, P-256, ES256), made on the spot, and the JWS it signs.
///
/// For the demo's signed notifications, the tests and the benchmarks: never Apple's chain, and its
/// private keys live only as long as the value (the demo commits its root certificate alone).
///
///     let chain = try SigningChain(name: "StoreDesk demo")
///     let jws = try chain.sign(payload)          // header {"alg":"ES256","x5c":[leaf, intermediate, root]}
///     TrustedRoot(chain.root)                     // what a store must trust to verify it
public struct SigningChain: @unchecked Sendable {
    // swift-crypto does not mark P-256 keys Sendable; these are never mutated after `init`, and BoringSSL
    // signs with a shared key from several threads (the benchmark signs on both cores).
    public let root: Certificate
    public let intermediate: Certificate
    public let leaf: Certificate
    public let rootKey: P256.Signing.PrivateKey
    public let intermediateKey: P256.Signing.PrivateKey
    public let leafKey: P256.Signing.PrivateKey
    /// Apple's header for this chain, base64url, made on the first signature (the certificates never change).
    private let standardHeader = StandardHeader()

    final class StandardHeader: @unchecked Sendable {
        private let lock = NSLock()
        private var encoded: String?

        func get(_ make: () throws -> String) rethrows -> String {
            try lock.withLock {
                if let encoded { return encoded }
                let made = try make()
                encoded = made
                return made
            }
        }
    }

    /// How to make a chain: the defaults are Apple's shape; tests turn one thing off at a time.
    public struct Options: Sendable {
        public var name: String
        public var validFrom: Date
        public var validUntil: Date
        /// The leaf's own validity, when it differs from the chain's (an expired leaf).
        public var leafValidity: ClosedRange<Date>?
        public var intermediateOID = true
        public var leafOID = true
        /// Subject key identifiers on every certificate and authority key identifiers on the intermediate
        /// and the leaf, as Apple's real certificates carry them and OpenSSL's strict checks (Apple's
        /// Python library) require them. Off only to show what a chain without them gets.
        public var keyIdentifiers = true

        public init(
            name: String, validFrom: Date = Date(timeIntervalSince1970: 1_577_836_800),
            validUntil: Date = Date(timeIntervalSince1970: 2_524_608_000), leafValidity: ClosedRange<Date>? = nil,
            intermediateOID: Bool = true, leafOID: Bool = true, keyIdentifiers: Bool = true
        ) {
            self.name = name
            self.validFrom = validFrom
            self.validUntil = validUntil
            self.leafValidity = leafValidity
            self.intermediateOID = intermediateOID
            self.leafOID = leafOID
            self.keyIdentifiers = keyIdentifiers
        }
    }

    /// Certificates and keys as given; `init(root:intermediate:leaf:rootKey:intermediateKey:leafKey:)` checks them first.
    init(
        uncheckedRoot root: Certificate, intermediate: Certificate, leaf: Certificate, rootKey: P256.Signing.PrivateKey,
        intermediateKey: P256.Signing.PrivateKey, leafKey: P256.Signing.PrivateKey
    ) {
        self.root = root
        self.intermediate = intermediate
        self.leaf = leaf
        self.rootKey = rootKey
        self.intermediateKey = intermediateKey
        self.leafKey = leafKey
    }

    /// Makes a new chain with new keys. By default valid 2020-01-01 to 2050-01-01.
    public init(name: String) throws { try self.init(Options(name: name)) }

    public init(_ options: Options) throws {
        rootKey = P256.Signing.PrivateKey()
        intermediateKey = P256.Signing.PrivateKey()
        leafKey = P256.Signing.PrivateKey()
        let rootName = try DistinguishedName {
            CommonName("\(options.name) Root CA")
            OrganizationName(options.name)
        }
        let intermediateName = try DistinguishedName {
            CommonName("\(options.name) Signing Intermediate")
            OrganizationName(options.name)
        }
        let leafName = try DistinguishedName {
            CommonName("\(options.name) Notification Signing")
            OrganizationName(options.name)
        }
        root = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(rootKey.publicKey),
            notValidBefore: options.validFrom, notValidAfter: options.validUntil, issuer: rootName, subject: rootName,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Self.extensions(
                subjectKey: rootKey.publicKey, issuerKey: nil, options: options,
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil)),
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))),
            issuerPrivateKey: .init(rootKey))
        var intermediateExtensions = try Self.extensions(
            subjectKey: intermediateKey.publicKey, issuerKey: rootKey.publicKey, options: options,
            Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0)),
            Critical(KeyUsage(keyCertSign: true, cRLSign: true)))
        if options.intermediateOID { try intermediateExtensions.append(Self.marker(AppStoreOIDPolicy.intermediateOID)) }
        intermediate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(intermediateKey.publicKey),
            notValidBefore: options.validFrom, notValidAfter: options.validUntil, issuer: rootName,
            subject: intermediateName, signatureAlgorithm: .ecdsaWithSHA256, extensions: intermediateExtensions,
            issuerPrivateKey: .init(rootKey))
        var leafExtensions = try Self.extensions(
            subjectKey: leafKey.publicKey, issuerKey: intermediateKey.publicKey, options: options,
            BasicConstraints.notCertificateAuthority, Critical(KeyUsage(digitalSignature: true)))
        if options.leafOID { try leafExtensions.append(Self.marker(AppStoreOIDPolicy.leafOID)) }
        let leafValidity = options.leafValidity ?? options.validFrom...options.validUntil
        leaf = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(leafKey.publicKey),
            notValidBefore: leafValidity.lowerBound, notValidAfter: leafValidity.upperBound, issuer: intermediateName,
            subject: leafName, signatureAlgorithm: .ecdsaWithSHA256, extensions: leafExtensions,
            issuerPrivateKey: .init(intermediateKey))
    }

    /// A certificate's extensions: its own, then its subject key identifier and (below a root) its
    /// issuer's as the authority key identifier, both the SHA-1 of the key (RFC 5280 4.2.1.2).
    private static func extensions(
        subjectKey: P256.Signing.PublicKey, issuerKey: P256.Signing.PublicKey?, options: Options,
        _ own: any CertificateExtensionConvertible...
    ) throws -> Certificate.Extensions {
        var extensions = Certificate.Extensions()
        for item in own { try extensions.append(item.makeCertificateExtension()) }
        guard options.keyIdentifiers else { return extensions }
        try extensions.append(SubjectKeyIdentifier(hash: Certificate.PublicKey(subjectKey)).makeCertificateExtension())
        if let issuerKey {
            let issuer = SubjectKeyIdentifier(hash: Certificate.PublicKey(issuerKey))
            try extensions.append(AuthorityKeyIdentifier(keyIdentifier: issuer.keyIdentifier).makeCertificateExtension())
        }
        return extensions
    }

    /// Apple's marker extensions hold an ASN.1 NULL.
    private static func marker(_ oid: ASN1ObjectIdentifier) -> Certificate.Extension {
        Certificate.Extension(oid: oid, critical: false, value: [0x05, 0x00])
    }

    /// A certificate as `x5c` carries it: base64 (not base64url) DER.
    public static func x5cEntry(_ certificate: Certificate) throws -> String {
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return Data(serializer.serializedBytes).base64EncodedString()
    }

    /// `[leaf, intermediate, root]`, as Apple sends it.
    public func x5c() throws -> [String] {
        [try Self.x5cEntry(leaf), try Self.x5cEntry(intermediate), try Self.x5cEntry(root)]
    }

    /// The root as a PEM file's text, for `storedesk trust add`.
    public func rootPEM() throws -> String { try root.serializeAsPEM().pemString + "\n" }

    /// Whether `jws`'s ES256 signature verifies with this chain's leaf key, and nothing else (no header,
    /// no chain): what the signatures alone cost, as a benchmark's floor.
    public func isSignatureValid(_ jws: UnverifiedJWS) -> Bool {
        guard let raw = UnverifiedJWS.base64URLDecode(jws.signature),
            let signature = try? P256.Signing.ECDSASignature(rawRepresentation: raw)
        else { return false }
        return leafKey.publicKey.isValidSignature(signature, for: Data(jws.signingInput.utf8))
    }

    /// Signs `payload` as a compact JWS. The defaults are Apple's header and this chain's leaf key; a
    /// test passes another `alg`, `x5c` (nil leaves it out) or key to make one check fail on its own.
    public func sign(
        _ payload: Data, alg: String? = "ES256", x5c: [String]?? = .none, key: P256.Signing.PrivateKey? = nil
    ) throws -> String {
        struct Header: Encodable {
            var alg: String?
            var x5c: [String]?
        }
        func encoded(_ chain: [String]?) throws -> String {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.withoutEscapingSlashes]
            return UnverifiedJWS.base64URLEncode(try encoder.encode(Header(alg: alg, x5c: chain)))
        }
        let header = try x5c == nil && alg == "ES256" ? standardHeader.get { try encoded(self.x5c()) } : encoded(try x5c ?? self.x5c())
        let input = header + "." + UnverifiedJWS.base64URLEncode(payload)
        let signature = try (key ?? leafKey).signature(for: Data(input.utf8))
        return input + "." + UnverifiedJWS.base64URLEncode(signature.rawRepresentation)
    }
}

extension SigningChain {
    static let transactionMark = "storedesk:signedTransactionInfo"
    static let renewalMark = "storedesk:signedRenewalInfo"

    /// `{"signedPayload": "<JWS>"}` for `event`, shaped as Apple sends it: the transaction and renewal
    /// infos signed as JWS of their own (each with the notification's signing date and environment when
    /// it has none) inside the signed notification. `infoChain` signs the infos instead (a test's
    /// untrusted chain); `payloadEdit` changes the payload's JSON object before it is signed.
    public func signedNotificationLine(
        _ event: SubscriptionEvent, infoChain: SigningChain? = nil, payloadEdit: ((inout [String: Any]) -> Void)? = nil
    ) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let infoSigner = infoChain ?? self
        // The infos' JWS (several KB each: their x5c) go into the JSON in place of a short mark, not through a
        // JSON writer, which writes a string a character at a time (it took most of a send's time). Base64url
        // and dots need no escaping, so the bytes are what the writer would have written.
        var infos: [String: String] = [:]
        var data = NotificationPayload.Data(
            appAppleId: event.appAppleId, bundleId: event.bundleId, bundleVersion: event.bundleVersion, environment: event.environment,
            status: event.status)
        if var transaction = event.transaction {
            transaction.signedDate = transaction.signedDate ?? event.signedDate
            transaction.environment = transaction.environment ?? event.environment
            transaction.bundleId = transaction.bundleId ?? event.bundleId
            infos[Self.transactionMark] = try infoSigner.sign(try encoder.encode(transaction))
            data.signedTransactionInfo = Self.transactionMark
        }
        if var renewal = event.renewal {
            renewal.signedDate = renewal.signedDate ?? event.signedDate
            renewal.environment = renewal.environment ?? event.environment
            infos[Self.renewalMark] = try infoSigner.sign(try encoder.encode(renewal))
            data.signedRenewalInfo = Self.renewalMark
        }
        let payload = NotificationPayload(
            data: data, notificationType: event.notificationType.rawValue, notificationUUID: event.notificationUUID,
            signedDate: event.signedDate.millis, subtype: event.subtype?.rawValue, version: event.version)
        var json = try encoder.encode(payload)
        if let payloadEdit {
            // A test's edit works on the payload as a JSON object.
            var object = try JSONSerialization.jsonObject(with: json) as? [String: Any] ?? [:]
            payloadEdit(&object)
            json = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        }
        for (mark, jws) in infos {
            // An edit that replaced the info leaves no mark to fill.
            if let found = json.range(of: Data("\"\(mark)\"".utf8)) { json.replaceSubrange(found, with: Data("\"\(jws)\"".utf8)) }
        }
        // `{"signedPayload":"<JWS>"}`, as JSONEncoder writes it (the JWS needs no escaping).
        return "{\"signedPayload\":\"" + (try sign(json)) + "\"}"
    }

    /// A notification's payload as Apple signs it (absent values left out).
    struct NotificationPayload: Encodable {
        struct Data: Encodable {
            var appAppleId: Int64?
            var bundleId: String?
            var bundleVersion: String?
            var environment: String?
            var status: Int?
            var signedRenewalInfo: String?
            var signedTransactionInfo: String?
        }

        var data: Data
        var notificationType: String
        var notificationUUID: String
        var signedDate: Int64
        var subtype: String?
        var version: String?
    }
}
