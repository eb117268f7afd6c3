/// Who acts: the name and role written to the audit log with every decision they make.
///
///     let staff = StaffMember(name: "li.support", role: .support)
///     staff.may(.resolveRestores)   // true
public struct StaffMember: Hashable, Sendable {
    public var name: String
    public var role: StaffRole

    public init(name: String, role: StaffRole) {
        self.name = name
        self.role = role
    }

    /// The roles that may confirm, decline and run restores; an operator only looks.
    public static var restoringRoles: [StaffRole] { StaffRole.allCases.filter { $0.may(.resolveRestores) } }

    public func may(_ permission: Permission) -> Bool { role.may(permission) }

    /// Why this person may not do it, naming them (`… (li (support))`), or nil when they may.
    public func refusal(_ permission: Permission) -> String? {
        may(permission) ? nil : "\(permission.refusal) (\(signature))"
    }

    public var mayResolveRestores: Bool { may(.resolveRestores) }

    /// Why this person may not edit the login configuration, or nil when they may.
    public var configurationRefusal: String? { refusal(.editLoginConfiguration) }

    /// `li.support (support)`.
    public var signature: String { "\(name) (\(role.rawValue))" }
}
