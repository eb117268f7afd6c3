import ArgumentParser
import Foundation
import StoreDeskCore
import StoreDeskStoreAPI
import StoreDeskUI

/// Who is acting and what they may change: `--readonly`, `--role`, `--as`. The console and every
/// command that writes on someone's behalf share them. Without a flag, the config file's `role` and
/// `actor` (`UserConfig`) apply, and the actor is then `STOREDESK_ACTOR`, else the login name.
struct StaffOptions: ParsableArguments {
    @Flag(help: "Open the store read-only: no write action is registered, every write is refused.") var readonly = false
    @Option(
        name: .customLong("role"),
        help: ArgumentHelp(
            "What you may do: operator inspects; support also restores and reveals; developer also simulates and configures (default: the config file's role, else operator).",
            valueName: "role"))
    var chosenRole: StaffRole?
    @Option(
        name: .customLong("as"),
        help: "The name written to the audit log (default: $STOREDESK_ACTOR, else the config file's actor, else your login name).")
    var actor: String?

    /// The options as a plain value.
    var staff: Staff { Staff(readonly: readonly, chosenRole: chosenRole, actor: actor) }
    var role: StaffRole { staff.role }
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
    /// `--role` as given; nil when it was not.
    var chosenRole: StaffRole?
    var actor: String?

    /// The role in force: `--role`, else the config file's, else operator.
    var role: StaffRole {
        get { roleInForce.role }
        set { chosenRole = newValue }
    }

    var consoleRole: StaffRole { role }

    var roleInForce: (role: StaffRole, source: ValueSource) {
        if let chosenRole { return (chosenRole, .flag) }
        if let role = UserConfig.current.role { return (role, .configFile) }
        return (.operator, .default)
    }

    var actorName: String { actorInForce.name }

    /// The name the audit log records, and where it came from: `--as`, else `STOREDESK_ACTOR`, else the
    /// config file's `actor`, else the login name. Never a placeholder: a write is always someone's.
    var actorInForce: (name: String, source: ValueSource) {
        if let actor, !actor.isEmpty { return (actor, .flag) }
        if let name = environmentValue("STOREDESK_ACTOR"), !name.isEmpty { return (name, .environment) }
        if let name = UserConfig.current.actor { return (name, .configFile) }
        return (Self.loginName, .default)
    }

    /// The login name: `USER`, else `LOGNAME`, else the password database's entry for this user (a
    /// terminal started without either, as tmux from a service can be), else the user id itself (a
    /// container without an entry for it still gets a name that says who it was).
    static var loginName: String {
        for variable in ["USER", "LOGNAME"] {
            if let name = environmentValue(variable), !name.isEmpty { return name }
        }
        if let entry = getpwuid(getuid()), let name = entry.pointee.pw_name, name.pointee != 0 { return String(cString: name) }
        return "uid \(getuid())"
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
