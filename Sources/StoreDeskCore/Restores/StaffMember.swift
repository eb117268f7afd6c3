/// Who acts at the desk: the name and role written to the audit log with every restore decision.
///
/// The role is the console's role name (`operator`, `support`, `developer`), as the audit log keeps it.
///
///     let staff = StaffMember(name: "li.support", role: "support")
///     staff.mayResolveRestores   // true
public struct StaffMember: Hashable, Sendable {
    public var name: String
    public var role: String

    public init(name: String, role: String) {
        self.name = name
        self.role = role
    }

    /// The roles that may confirm, decline and run restores; an operator only looks.
    public static let restoringRoles = ["support", "developer"]

    public var mayResolveRestores: Bool { Self.restoringRoles.contains(role) }

    /// Only a developer changes a game's configuration (login entries); operators and support look.
    public var mayEditConfiguration: Bool { role == "developer" }

    /// Why this person may not edit the login configuration, or nil when they may.
    public var configurationRefusal: String? {
        mayEditConfiguration ? nil : "only a developer may edit the login configuration (\(signature))"
    }

    /// Why this person may not change `what` (an app's settings, its catalogue), or nil when they may:
    /// only a developer changes a game's configuration.
    public func refusal(toChange what: String) -> String? {
        mayEditConfiguration ? nil : "only a developer may change \(what) (\(signature))"
    }

    /// `li.support (support)`.
    public var signature: String { "\(name) (\(role))" }
}
