import Foundation
import StoreDeskCore
import StoreDeskStoreAPI
import StoreDeskTrust

/// `trust list` and `trust add` as text.
enum TrustRootText {
    /// Whether a root is Apple's, said plainly.
    static func whose(_ root: TrustedRoot) -> String {
        root.isAppleRootCAG3
            ? "Apple Root CA - G3: the fingerprint matches Apple's"
            : "not Apple's root: what it verifies is shown as verified by '\(root.subject)', not by Apple"
    }

    static func list(_ uses: [TrustRootUse]) -> String {
        guard !uses.isEmpty else {
            return "no trusted root: signed notifications are refused until one is added "
                + "(storedesk trust add AppleRootCA-G3.cer --role developer; https://www.apple.com/certificateauthority/)"
        }
        return reportText(uses.flatMap { use in
            let root = use.root
            let added = root.addedAt.map { " · added \($0.iso8601)" + (root.addedBy.map { " by \($0)" } ?? "") } ?? ""
            return [
                "\(root.id.map(String.init) ?? "-")  \(root.subject)",
                "   SHA-256 \(TrustedRoot.spaced(root.sha256))",
                "   \(whose(root))",
                "   valid \(root.notValidBefore.iso8601) to \(root.notValidAfter.iso8601)\(added) · verified \(use.verifiedNotifications) "
                    + "stored notification\(use.verifiedNotifications == 1 ? "" : "s")",
            ]
        })
    }
}

/// One root as `trust list --json` and `trust add --json` print it.
struct TrustRootJSON: Encodable {
    var id: Int64?
    var sha256: String
    var subject: String
    var isAppleRootCAG3: Bool
    var notValidBefore: String
    var notValidAfter: String
    @NullWhenAbsent var addedAt: String?
    @NullWhenAbsent var addedBy: String?
    var verifiedNotifications: Int

    init(_ use: TrustRootUse) {
        id = use.root.id
        sha256 = use.root.sha256
        subject = use.root.subject
        isAppleRootCAG3 = use.root.isAppleRootCAG3
        notValidBefore = use.root.notValidBefore.iso8601
        notValidAfter = use.root.notValidAfter.iso8601
        addedAt = use.root.addedAt?.iso8601
        addedBy = use.root.addedBy
        verifiedNotifications = use.verifiedNotifications
    }
}

/// `trust add`: the root now trusted, and whether it is Apple's.
struct TrustRootAddedReport: CommandReport {
    var root: TrustedRoot
    var json: TrustRootJSON { TrustRootJSON(TrustRootUse(root: root, verifiedNotifications: 0)) }
    var text: String {
        reportText([
            "trusted root \(root.id.map(String.init) ?? "?"): \(root.subject)", "  SHA-256 \(TrustedRoot.spaced(root.sha256))",
            "  " + TrustRootText.whose(root),
        ])
    }
}

/// `trust remove`: the root no longer trusted. Its JSON is the root as `trust list` showed it; what it
/// verified stays verified, so no count is given.
struct TrustRootRemovedReport: CommandReport {
    var root: TrustedRoot
    /// The id or SHA-256 prefix the operator gave, said back when the stored root has no id.
    var asked: String
    var json: [String: TrustRootRemovedJSON] { ["removed": TrustRootRemovedJSON(root)] }
    var text: String { "no longer trusted: root \(root.id.map(String.init) ?? asked), \(root.subject)" }
}

/// One removed root as `trust remove --json` prints it.
struct TrustRootRemovedJSON: Encodable {
    var id: Int64?
    var sha256: String
    var subject: String
    var isAppleRootCAG3: Bool

    init(_ root: TrustedRoot) {
        id = root.id
        sha256 = root.sha256
        subject = root.subject
        isAppleRootCAG3 = root.isAppleRootCAG3
    }
}

/// `trust list`: every trusted root and how many stored notifications it verified.
struct TrustRootListReport: CommandReport {
    var uses: [TrustRootUse]
    var json: [String: [TrustRootJSON]] { ["roots": uses.map(TrustRootJSON.init)] }
    var text: String { TrustRootText.list(uses) }
}
