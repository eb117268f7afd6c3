import StoreDeskCore

/// One command of a screen, declared once: its keys, its `:` verb, its help and its guard. Dispatch,
/// the footer, `?` help (dimmed with the reason when unavailable), `:` completion, the refusals and the
/// README's key table all read it.
///
///     .key("c", .confirm, help: "confirm", summary: "Confirm the selected prompt …", permission: .resolveRestores, writes: true)
///     .key("s", .nextStatus, help: "status", summary: "Show the next status …",
///          verb: .init("status", argument: "open|confirmed|declined|all", summary: "which prompts to list") { … })
///     .verb("login", argument: "USER", summary: "log a player in …", permission: .resolveRestores, writes: true) { .logIn($0) }
public struct ScreenCommand<S: ConsoleScreen>: Sendable {
    public var keys: [Key]
    /// What a key asks for; nil for a command that is only a verb.
    public var action: S.Action?
    /// A word or two for the footer.
    public var help: String
    /// A sentence for the help overlay and the README.
    public var summary: String
    /// Who may (Core's permission model); nil for anyone.
    public var permission: Permission?
    /// Whether it writes to the store: not registered at all when the store is read-only.
    public var writes: Bool
    /// Why this screen's state does not allow it right now (nothing to act on), or nil.
    public var unavailable: (@Sendable (S) -> String?)?
    /// The `:` verb that asks for the same thing with an argument.
    public var verb: ScreenVerb<S>?

    /// A key binding (with, optionally, the `:` verb that goes with it).
    public static func key(
        _ keys: Key..., action: S.Action, help: String, summary: String, permission: Permission? = nil, writes: Bool = false,
        unavailable: (@Sendable (S) -> String?)? = nil, verb: ScreenVerb<S>? = nil
    ) -> ScreenCommand {
        ScreenCommand(
            keys: keys, action: action, help: help, summary: summary, permission: permission, writes: writes,
            unavailable: unavailable, verb: verb)
    }

    /// A `:` verb that no key has.
    public static func verb(
        _ name: String, argument: String? = nil, summary: String, permission: Permission? = nil, writes: Bool = false,
        parse: @escaping @Sendable (String) -> Result<S.Action, VerbProblem>
    ) -> ScreenCommand {
        ScreenCommand(
            keys: [], action: nil, help: name, summary: summary, permission: permission, writes: writes, unavailable: nil,
            verb: ScreenVerb(name, argument: argument, summary: summary, parse: parse))
    }

    /// Why it cannot be used now, or nil: the read-only store for a write, the role, then the screen's state.
    func unavailableReason(session: Session, screen: @autoclosure () -> S) -> String? {
        if writes && session.readOnly { return "the store is open read-only" }
        if let permission, let refusal = session.role.refusal(permission) { return refusal }
        return unavailable?(screen())
    }
}

/// A screen's `:` verb: its name, what its argument looks like, and the action the argument asks for.
public struct ScreenVerb<S: ConsoleScreen>: Sendable {
    public var name: String
    /// How the argument is written in help and completion (`ID`, `open|confirmed|declined|all`); nil for none.
    public var argument: String?
    public var summary: String
    /// The action an argument asks for, or what is wrong with it.
    public var parse: @Sendable (String) -> Result<S.Action, VerbProblem>

    public init(
        _ name: String, argument: String? = nil, summary: String,
        parse: @escaping @Sendable (String) -> Result<S.Action, VerbProblem>
    ) {
        self.name = name
        self.argument = argument
        self.summary = summary
        self.parse = parse
    }
}

/// What is wrong with a verb's argument, shown as the status line's error.
public struct VerbProblem: Error, Sendable, Equatable {
    public var message: String
    public init(_ message: String) { self.message = message }
}

extension ConsoleScreen {
    /// This screen's keyed commands as rows of the keymap.
    static var keymapRows: [Binding] {
        commands.compactMap { command in
            guard let action = command.action, !command.keys.isEmpty else { return nil }
            return Binding(command, action: action)
        }
    }

    /// The footer's rows for this screen, in `footer` order.
    static var footerRows: [Binding] {
        footer.compactMap { action in commands.first { $0.action == action }.map { Binding($0, action: action) } }
    }

    /// This screen's `:` verbs.
    static var verbRows: [ConsoleCommandLine.Verb] {
        commands.compactMap { command in command.verb.map { ConsoleCommandLine.Verb(command, verb: $0) } }
    }
}
