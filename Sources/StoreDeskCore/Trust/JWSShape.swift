import Foundation

/// What an App Store signature looks like before any certificate is trusted: Apple's `ChainVerifier`
/// first reads the header (a JSON object with `x5c`, `alg` ES256, three certificates). The verifier makes
/// these checks before it validates the chain; `events import --allow-unverified` makes them, and that
/// the certificates and the signature are at least shaped so, before it takes a line it cannot verify:
/// `alg: none`, or a header with no chain, is no signature at all, trusted root or not.
extension UnverifiedJWS {
    /// The `x5c` texts (base64 DER, leaf first) of a header that passes the header checks, or the first
    /// check it fails.
    public static func certificateChain(header: Data) -> Result<[String], SignatureFailure> {
        struct Header: Decodable {
            var alg: String?
            var x5c: [String]?
        }
        guard let decoded = try? JSONDecoder().decode(Header.self, from: header) else {
            return .failure(SignatureFailure(.format, "the JWS header is not a JSON object with alg and x5c"))
        }
        guard let x5c = decoded.x5c else {
            return .failure(SignatureFailure(.format, "the JWS header has no x5c certificate chain"))
        }
        guard decoded.alg == "ES256" else {
            return .failure(SignatureFailure(.algorithm, "alg is \(decoded.alg.map { "'\($0)'" } ?? "missing"), not ES256"))
        }
        guard x5c.count == 3 else {
            return .failure(
                SignatureFailure(
                    .chainLength,
                    "x5c holds \(x5c.count) certificate\(x5c.count == 1 ? "" : "s"), not 3 (leaf, intermediate, root)"))
        }
        return .success(x5c)
    }

    /// Why this JWS is not shaped like an App Store signature (the header checks, three base64 certificates,
    /// a signature of 64 bytes), or nil when it is: nothing here says who signed it.
    public var shapeProblem: SignatureFailure? {
        switch Self.certificateChain(header: header) {
        case .failure(let failure): return failure
        case .success(let x5c):
            for (index, text) in x5c.enumerated() where Data(base64Encoded: text)?.isEmpty ?? true {
                return SignatureFailure(.certificate, "x5c[\(index)] is not a certificate (base64 DER)")
            }
        }
        guard Self.base64URLDecode(signature)?.count == 64 else { return Self.signatureShape }
        return nil
    }

    /// A signature that cannot be ES256's.
    public static let signatureShape = SignatureFailure(.signature, "the signature is not an ES256 r‖s pair of 64 bytes")
}
