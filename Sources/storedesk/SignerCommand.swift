import ArgumentParser
import Foundation
import StoreDeskCore
import StoreDeskNetwork
import StoreDeskStoreAPI
import StoreDeskTrust

/// `storedesk signer create|root`: the store's own signing chain, what its App Store Server API (in
/// `serve`) and its notifications sign with. The private keys stay in the store: no output shows them.
struct SignerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "signer", abstract: "The store's own App Store signing chain: make it, print its root.",
        discussion: """
            A root, an intermediate and a leaf in Apple's shape (Apple's OIDs, key identifiers), made by \
            `signer create` or on first use (`serve`, `signer root`). A game server trusts its root instead of \
            Apple Root CA - G3 (`signer root --pem > storedesk-root.pem`); the store trusts it for imports. The \
            private keys never leave the store.
            """,
        subcommands: [Create.self, Root.self])

    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "create", abstract: "Make the store's signing chain (developers only; audited).")
        @OptionGroup var store: StoreOptions
        @OptionGroup var staff: StaffOptions
        @Flag(help: "Replace the chain the store has: what the old root verified will no longer verify.") var force = false
        @OptionGroup var output: OutputOptions

        func run() throws {
            let report = try reporting { () throws -> SignerReport in
                let member = try staff.staff.member("signer create", may: .editTrustRoots)
                let database = try store.open(.readWrite)
                if !force, let kept = try database.signer() {
                    throw StoreError.invalidArgument(
                        "the store has a signing chain already (root SHA-256 \(TrustedRoot.spaced(kept.rootSHA256))): "
                            + "--force replaces it, and game servers trusting the old root stop verifying what it signs")
                }
                let made = try StoreSigner.make()
                let (kept, _) = try database.saveSigner(made.stored, replacing: true, by: member, at: database.commandNow().instant)
                return SignerReport(root: try StoreSigner.root(kept), created: true)
            }
            try output.show(report)
        }
    }

    struct Root: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "root",
            abstract: "Print the store's signing root (the certificate only), made first when the store has none.")
        @OptionGroup var store: StoreOptions
        @Flag(help: "Print the root certificate as PEM only (for a game server's trust store).") var pem = false
        @OptionGroup var output: OutputOptions

        func validate() throws {
            if pem && output.json { throw fail("--pem and --json: give one") }
        }

        func run() throws {
            let report = try reporting { () throws -> SignerReport in
                if let kept = try store.open(.readOnly).signer() { return SignerReport(root: try StoreSigner.root(kept), created: false) }
                let database = try store.open(.readWrite)
                let (chain, created) = try StoreSigner.chain(of: database, now: database.commandNow().instant)
                return SignerReport(root: try TrustedRoot(chain.root), created: created)
            }
            if pem {
                print(report.pem, terminator: "")
                return
            }
            try output.show(report)
        }
    }
}

/// What `signer create` and `signer root` print: the root certificate and its fingerprint, never a key.
struct SignerReport: CommandReport {
    var root: TrustedRoot
    /// Whether this command made the chain.
    var created: Bool

    struct JSON: Encodable {
        var sha256: String
        var subject: String
        var notValidBefore: String
        var notValidAfter: String
        var created: Bool
        var pem: String
    }

    var pem: String {
        let base64 = Data(root.der).base64EncodedString()
        var lines = ["-----BEGIN CERTIFICATE-----"]
        var index = base64.startIndex
        while index < base64.endIndex {
            let next = base64.index(index, offsetBy: 64, limitedBy: base64.endIndex) ?? base64.endIndex
            lines.append(String(base64[index..<next]))
            index = next
        }
        lines.append("-----END CERTIFICATE-----")
        return lines.joined(separator: "\n") + "\n"
    }

    var json: JSON {
        JSON(
            sha256: root.sha256, subject: root.subject, notValidBefore: root.notValidBefore.iso8601,
            notValidAfter: root.notValidAfter.iso8601, created: created, pem: pem)
    }

    var text: String {
        reportText([
            "\(created ? "made the store's signing chain; its root" : "the store's signing root"): \(root.subject)",
            "  SHA-256 \(TrustedRoot.spaced(root.sha256))",
            "  valid \(root.notValidBefore.iso8601) to \(root.notValidAfter.iso8601)",
            "  a game server trusts it instead of Apple Root CA - G3: storedesk signer root --pem > storedesk-root.pem",
        ])
    }
}
