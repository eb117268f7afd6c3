import ArgumentParser
import Foundation
import StoreDeskCore
import StoreDeskStore
import StoreDeskUI

/// Who is acting and what they may change: `--readonly`, `--role`, `--as`. The console and every
/// command that writes on someone's behalf share them.
struct StaffOptions: ParsableArguments {
    @Flag(help: "Open the store read-only: no write action is registered, every write is refused.") var readonly = false
    @Option(help: "What you may do: operator inspects; support also restores and reveals; developer also simulates and configures.")
    var role: StaffRole = .operator
    @Option(name: .customLong("as"), help: "The name written to the audit log (default: your login name).")
    var actor: String?

    /// The options as a plain value.
    var staff: Staff { Staff(readonly: readonly, role: role, actor: actor) }
    var consoleRole: StaffRole { role }
    func session() -> Session { staff.session() }
    func writer(_ command: String) throws -> StaffMember { try staff.writer(command) }
    func editor(_ command: String) throws -> StaffMember { try staff.editor(command) }
    func member(_ command: String, may permission: Permission) throws -> StaffMember {
        try staff.member(command, may: permission)
    }
}

/// `--readonly`, `--role` and `--as` as a plain value, so a command can be run without ArgumentParser's
/// reflection (see `SnapshotRequest`).
struct Staff: Equatable {
    var readonly = false
    var role = StaffRole.operator
    var actor: String?

    var consoleRole: StaffRole { role }

    var actorName: String {
        if let actor, !actor.isEmpty { return actor }
        return environmentValue("USER") ?? environmentValue("LOGNAME") ?? getlogin().map { String(cString: $0) } ?? "unknown"
    }

    func session() -> Session { Session(role: role, actor: actorName, readOnly: readonly) }

    /// The person a write acts as, checked before the store is opened: `--readonly` refuses every
    /// write, and an operator may only look.
    func writer(_ command: String) throws -> StaffMember {
        let staff = try member(writing: command)
        guard staff.mayResolveRestores else { throw StoreError.invalidArgument(RestoreRefusal.roleMayNotAct(staff).description) }
        return staff
    }

    /// The person editing configuration (login entries, the one-tap simulator), checked before the store
    /// is opened: `--readonly` refuses, and only a developer may.
    func editor(_ command: String) throws -> StaffMember {
        let staff = try member(writing: command)
        if let refusal = staff.configurationRefusal { throw StoreError.invalidArgument(refusal) }
        return staff
    }

    /// The person a write that needs `permission` acts as (an app's settings, its catalogue), checked
    /// before the store is opened: `--readonly` refuses, and so does a role without the permission.
    func member(_ command: String, may permission: Permission) throws -> StaffMember {
        let staff = try member(writing: command)
        if let refusal = staff.refusal(permission) { throw StoreError.invalidArgument(refusal) }
        return staff
    }

    private func member(writing command: String) throws -> StaffMember {
        let staff = StaffMember(name: actorName, role: role)
        guard !readonly else {
            throw StoreError.invalidArgument("--readonly: `storedesk \(command)` writes the store, so nothing was done")
        }
        return staff
    }
}
