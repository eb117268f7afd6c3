import Crypto
import Foundation
import StoreDeskCore
import SwiftASN1
import Testing
import X509

@testable import StoreDeskTrust

/// The store's own signing chain: Apple's shape, passing OpenSSL's strict checks (the real binary), kept
/// as DER or PEM and read back, its keys never printed.
@Suite struct OwnSigningChainTests {
    /// Writes the chain's three PEMs and runs `openssl verify -x509_strict` on the leaf.
    func opensslStrictVerify(_ chain: SigningChain) throws -> ExternalTools.Output {
        let folder = try ExternalTools.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        for (name, certificate) in [("root", chain.root), ("inter", chain.intermediate), ("leaf", chain.leaf)] {
            try certificate.serializeAsPEM().pemString.write(
                to: folder.appendingPathComponent("\(name).pem"), atomically: true, encoding: .utf8)
        }
        let path = { (name: String) in folder.appendingPathComponent("\(name).pem").path }
        return try ExternalTools.run(
            try ExternalTools.openssl,
            ["verify", "-x509_strict", "-CAfile", path("root"), "-untrusted", path("inter"), path("leaf")])
    }

    @Test func opensslStrictChecksPassTheChain() throws {
        let output = try opensslStrictVerify(try Signed.chain)
        #expect(output.status == 0, "\(output.stdout)\(output.stderr)")
        #expect(output.stdout.hasSuffix("leaf.pem: OK\n"))
    }

    @Test func withoutKeyIdentifiersOpensslStrictChecksRefuseIt() throws {
        // What the demo's first chain was: swift-certificates took it, OpenSSL's strict checks do not.
        let output = try opensslStrictVerify(try SigningChain(.init(name: "No Key Ids", keyIdentifiers: false)))
        #expect(output.status != 0)
        let said = output.stdout + output.stderr
        #expect(said.contains("Missing Subject Key Identifier") && said.contains("Missing Authority Key Identifier"), "\(said)")
    }

    @Test func eachCertificateCarriesApplesShape() throws {
        let chain = try Signed.chain
        let ski = { (certificate: Certificate) throws -> ArraySlice<UInt8>? in
            try certificate.extensions.subjectKeyIdentifier?.keyIdentifier
        }
        let aki = { (certificate: Certificate) throws -> ArraySlice<UInt8>? in
            try certificate.extensions.authorityKeyIdentifier?.keyIdentifier
        }
        // Subject key identifiers: the SHA-1 of each key; authority key identifiers: the issuer's.
        for certificate in [chain.root, chain.intermediate, chain.leaf] {
            #expect(try ski(certificate) == SubjectKeyIdentifier(hash: certificate.publicKey).keyIdentifier)
        }
        #expect(try aki(chain.root) == nil)
        #expect(try aki(chain.intermediate) == ski(chain.root))
        #expect(try aki(chain.leaf) == ski(chain.intermediate))
        // keyCertSign in a critical key usage on both CAs; the leaf signs.
        for ca in [chain.root, chain.intermediate] {
            #expect(try ca.extensions.keyUsage?.keyCertSign == true)
            #expect(ca.extensions.first { $0.oid == .X509ExtensionID.keyUsage }?.critical == true)
        }
        #expect(try chain.leaf.extensions.keyUsage?.digitalSignature == true)
        // Apple's OIDs: WWDR on the intermediate, receipt signing on the leaf.
        #expect(chain.intermediate.extensions.contains { $0.oid == [1, 2, 840, 113635, 100, 6, 2, 1] })
        #expect(chain.leaf.extensions.contains { $0.oid == [1, 2, 840, 113635, 100, 6, 11, 1] })
        #expect(P256.Signing.PublicKey(chain.leaf.publicKey) != nil)
    }

    @Test func storedAsDERAndReadBackItStillSignsWhatTheVerifierTakes() throws {
        let chain = try Signed.chain
        let again = try SigningChain(stored: try chain.stored)
        #expect(again.root == chain.root && again.intermediate == chain.intermediate && again.leaf == chain.leaf)
        #expect(again.leafKey.rawRepresentation == chain.leafKey.rawRepresentation)
        let jws = try UnverifiedJWS(compact: try again.sign(Data(#"{"signedDate":1785920400000}"#.utf8)))
        #expect(try Signed.verifier(chain).verify(jws, at: Signed.signedDate).map(\.leafSerial) == .success(
            AppStoreSignatureVerifier.serial(chain.leaf.serialNumber)))
    }

    @Test func storedAsOnePEMAndReadBackItIsTheSameChain() throws {
        let stored = try Signed.chain.stored
        let pem = stored.pem
        #expect(pem.components(separatedBy: "-----BEGIN CERTIFICATE-----").count == 4)
        #expect(pem.components(separatedBy: "-----BEGIN PRIVATE KEY-----").count == 4)
        #expect(try SigningChain.Stored(pem: pem) == stored)
        // openssl reads the same file: three certificates, the first the leaf.
        let folder = try ExternalTools.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("chain.pem")
        try pem.write(to: file, atomically: true, encoding: .utf8)
        let subject = try ExternalTools.run(try ExternalTools.openssl, ["x509", "-in", file.path, "-noout", "-subject"])
        #expect(subject.stdout.contains("Test App Store Notification Signing"))
        let key = try ExternalTools.run(try ExternalTools.openssl, ["pkey", "-in", file.path, "-noout"])
        #expect(key.status == 0, "\(key.stderr)")
    }

    @Test func aKeyThatIsNotItsCertificatesIsRefused() throws {
        let chain = try Signed.chain
        var stored = try chain.stored
        stored.leafKeyDER = Array(P256.Signing.PrivateKey().derRepresentation)
        #expect(throws: SigningChain.Problem.self) { try SigningChain(stored: stored) }
        do {
            _ = try SigningChain(stored: stored)
        } catch {
            #expect(error.reason.hasPrefix("the leaf's private key is not the key of its certificate"))
        }
        var swapped = try chain.stored
        let other = try SigningChain(name: "Other").stored
        swapped.intermediateDER = other.intermediateDER
        swapped.intermediateKeyDER = other.intermediateKeyDER
        #expect(throws: SigningChain.Problem("the intermediate 'O=Other,CN=Other Signing Intermediate' was not issued by "
            + "'O=Test App Store,CN=Test App Store Root CA'")) { try SigningChain(stored: swapped) }
        #expect(throws: SigningChain.Problem("the PEM holds 2 certificates, not 3 (leaf, intermediate, root)")) {
            try SigningChain.Stored(pem: try chain.leaf.serializeAsPEM().pemString + "\n" + (try chain.root.serializeAsPEM().pemString))
        }
    }

    @Test func noDescriptionPrintsAPrivateKey() throws {
        let chain = try Signed.chain
        let stored = try chain.stored
        var dumped = ""
        dump(chain, to: &dumped)
        var dumpedStored = ""
        dump(stored, to: &dumpedStored)
        let texts = [
            String(describing: chain), String(reflecting: chain), "\(chain)", dumped,
            String(describing: stored), String(reflecting: stored), "\(stored)", dumpedStored,
        ]
        for key in [chain.rootKey, chain.intermediateKey, chain.leafKey] {
            let secrets = [
                key.rawRepresentation.base64EncodedString(), hex(key.rawRepresentation),
                key.derRepresentation.base64EncodedString().prefix(40).description,
                String(key.pemRepresentation.split(separator: "\n")[1]),
                key.rawRepresentation.map(String.init).joined(separator: ", "),
            ]
            for text in texts {
                for secret in secrets { #expect(!text.contains(secret)) }
                #expect(!text.contains("PRIVATE KEY"))
            }
        }
        #expect(String(describing: chain).contains("Test App Store Notification Signing"))
        #expect(dumped.contains("Test App Store Root CA"))
    }
}
