import ArgumentParser
import Foundation
import StoreDeskCore
import StoreDeskStoreAPI
import StoreDeskTrust

/// `storedesk trust add|list|remove`: the root certificates App Store signatures are verified against.
struct TrustCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trust", abstract: "The root certificates App Store signatures are verified against.",
        discussion: """
            App Store notifications, transactions and renewal infos are signed by a chain that ends at Apple \
            Root CA - G3. Download it from https://www.apple.com/certificateauthority/ (AppleRootCA-G3.cer) \
            and add it: storedesk trust add AppleRootCA-G3.cer --role developer. StoreDesk knows its SHA-256 \
            (\(TrustedRoot.spaced(TrustedRoot.appleRootCAG3SHA256))) and refuses a file that calls itself \
            Apple's root but is not it. Revocation (OCSP) is not checked: it needs the network.
            """,
        subcommands: [Add.self, List.self, Remove.self])

    /// Reads a root file for `trust add` or `events import --trust-root`; refuses a file that presents
    /// itself as Apple's root but is not Apple Root CA - G3.
    static func readRoot(_ path: String) throws -> TrustedRoot {
        let root: TrustedRoot
        do {
            root = try TrustRootFile.read(path: path)
        } catch {
            throw StoreError.invalidArgument(error.description)
        }
        if root.claimsToBeApple, !root.isAppleRootCAG3 {
            throw StoreError.invalidArgument(
                "\(path) is not Apple Root CA - G3: its subject is '\(root.subject)' and its SHA-256 is "
                    + "\(TrustedRoot.spaced(root.sha256)); Apple's is \(TrustedRoot.spaced(TrustedRoot.appleRootCAG3SHA256)) "
                    + "(download it from https://www.apple.com/certificateauthority/)")
        }
        return root
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add", abstract: "Trust a root certificate (DER or PEM). Developers only.")
        @OptionGroup var store: StoreOptions
        @OptionGroup var staff: StaffOptions
        @Argument(help: "The root certificate file, DER (.cer) or PEM.") var file: String
        @OptionGroup var output: OutputOptions

        func run() throws {
            let stored = try reporting { () throws -> TrustedRoot in
                let member = try staff.staff.member("trust add", may: .editTrustRoots)
                let root = try TrustCommand.readRoot(file)
                let database = try store.open(.readWrite)
                return try database.addTrustRoot(root, by: member, at: database.commandNow().instant)
            }
            try output.show(TrustRootAddedReport(root: stored))
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "The trusted roots, and how many stored notifications each verified.")
        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions

        func run() throws {
            let uses = try reporting { try store.open(.readOnly).trustRootUses() }
            try output.show(TrustRootListReport(uses: uses))
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove",
            abstract: "Stop trusting a root (its id from `trust list`, or a SHA-256 prefix). Developers only.",
            discussion: "Notifications it verified stay marked verified by it: they were, when imported.")
        @OptionGroup var store: StoreOptions
        @OptionGroup var staff: StaffOptions
        @Argument(help: "The root's id, or the start of its SHA-256 (8 hex digits or more).") var id: String
        @OptionGroup var output: OutputOptions

        func run() throws {
            let removed = try reporting { () throws -> TrustedRoot in
                let member = try staff.staff.member("trust remove", may: .editTrustRoots)
                let database = try store.open(.readWrite)
                return try database.removeTrustRoot(id, by: member, at: database.commandNow().instant)
            }
            try output.show(TrustRootRemovedReport(root: removed, asked: id))
        }
    }
}
