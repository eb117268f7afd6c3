import Crypto
import Foundation
import StoreDeskCore
import SwiftASN1
import X509

/// Reads a root certificate from a DER or PEM file (`storedesk trust add FILE`, `events import --trust-root
/// FILE`) into the plain `TrustedRoot` the store keeps.
public enum TrustRootFile {
    /// Why a file cannot be a trust root, in one line naming the file.
    public struct Problem: Error, Hashable, Sendable, CustomStringConvertible {
        public var path: String
        public var reason: String
        public var description: String { "\(path): \(reason)" }
    }

    /// The largest file taken as a certificate: real roots are under 2 KB.
    static let largestFile = 1 << 20

    public static func read(path: String) throws(Problem) -> TrustedRoot {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
            throw Problem(path: path, reason: "no such file")
        }
        guard let handle = FileHandle(forReadingAtPath: path) else { throw Problem(path: path, reason: "cannot be read") }
        defer { try? handle.close() }
        let data: Data
        do {
            data = try handle.read(upToCount: largestFile + 1) ?? Data()
        } catch {
            throw Problem(path: path, reason: "cannot be read")
        }
        guard data.count <= largestFile else {
            throw Problem(path: path, reason: "larger than 1 MB: not a root certificate (DER or PEM)")
        }
        do {
            return try root(from: data)
        } catch {
            throw Problem(path: path, reason: error.reason)
        }
    }

    /// A root from DER bytes or PEM text holding one certificate.
    public static func root(from data: Data) throws(Problem) -> TrustedRoot {
        let certificate: Certificate
        let text = String(decoding: data.prefix(64), as: UTF8.self)
        if text.contains("-----BEGIN") {
            let documents: [PEMDocument]
            do {
                documents = try PEMDocument.parseMultiple(pemString: String(decoding: data, as: UTF8.self))
            } catch {
                throw Problem(path: "", reason: "not a certificate: the PEM text cannot be read")
            }
            let certificates = documents.filter { $0.discriminator == "CERTIFICATE" }
            guard certificates.count == 1, let document = certificates.first else {
                throw Problem(
                    path: "",
                    reason: certificates.isEmpty
                        ? "not a certificate: the PEM holds no CERTIFICATE block"
                        : "holds \(certificates.count) certificates: give one root per file")
            }
            do {
                certificate = try Certificate(pemDocument: document)
            } catch {
                throw Problem(path: "", reason: "not a certificate: its PEM block is not an X.509 certificate")
            }
        } else {
            do {
                certificate = try Certificate(derEncoded: Array(data))
            } catch {
                throw Problem(path: "", reason: "not a certificate (DER or PEM)")
            }
        }
        guard certificate.issuer == certificate.subject else {
            throw Problem(
                path: "",
                reason: "not a root certificate: '\(certificate.subject)' was issued by '\(certificate.issuer)'; "
                    + "trust the root itself")
        }
        do {
            return try TrustedRoot(certificate)
        } catch {
            throw Problem(path: "", reason: "not a certificate: it cannot be written back as DER")
        }
    }
}

extension TrustedRoot {
    /// The plain value of a parsed certificate: its DER, fingerprint, subject and validity.
    public init(_ certificate: Certificate) throws {
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        let der = serializer.serializedBytes
        self.init(
            der: der, sha256: hex(SHA256.hash(data: der)), subject: certificate.subject.description,
            notValidBefore: Instant(certificate.notValidBefore), notValidAfter: Instant(certificate.notValidAfter))
    }
}

/// Bytes as lowercase hex, two digits a byte: `6334...` (fingerprints), `0c`, `2d:c5:fc` (serials).
func hex(_ bytes: some Sequence<UInt8>, separator: String = "") -> String {
    bytes.map { byte in
        let text = String(byte, radix: 16)
        return byte < 16 ? "0" + text : text
    }.joined(separator: separator)
}
