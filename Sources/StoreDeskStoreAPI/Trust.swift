import StoreDeskCore

/// One root in `trust list`: the root, and how many stored notifications it verified.
public struct TrustRootUse: Hashable, Sendable {
    public var root: TrustedRoot
    public var verifiedNotifications: Int

    public init(root: TrustedRoot, verifiedNotifications: Int) {
        self.root = root
        self.verifiedNotifications = verifiedNotifications
    }
}
