import Foundation
import StoreDeskCore

/// The `:` command line: a few verbs with arguments, and tab completion over both.
public enum ConsoleCommandLine {
    /// One `:` verb as completion and help list it; a screen's verbs carry their typed action and guard.
    public struct Verb: Sendable {
        public var name: String
        public var argument: String?
        public var summary: String
        /// The screen whose verb it is; nil for the console's own.
        public var screen: ScreenID?
        /// Runs it with its argument: the guard, then the argument's action, on the screen's state.
        let run: (@Sendable (inout AppState, String) -> [Effect])?

        public init(name: String, argument: String? = nil, summary: String) {
            self.name = name
            self.argument = argument
            self.summary = summary
            self.screen = nil
            self.run = nil
        }

        init<S: ConsoleScreen>(_ declared: ScreenCommand<S>, verb: ScreenVerb<S>) {
            name = verb.name
            argument = verb.argument
            summary = verb.summary
            screen = S.id
            run = { state, argument in
                if let reason = declared.unavailableReason(session: state.session, screen: state.screenState(S.self)) {
                    state.status = StatusMessage("\(verb.name): \(reason)", .warning)
                    return []
                }
                switch verb.parse(argument) {
                case .success(let action): return state.update(S.self) { $0.perform(action, &$1) }
                case .failure(let problem):
                    state.status = StatusMessage(problem.message, .error)
                    return []
                }
            }
        }
    }

    /// Every verb: one per screen (go there), each screen's own, then the console's.
    public static let verbs: [Verb] =
        ScreenRegistry.all.map { Verb(name: $0.id.rawValue, summary: "go to the \($0.title) screen") }
        + ScreenRegistry.all.flatMap { $0.verbRows } + global

    /// A screen's own verb by its name, when one has it.
    /// Several screens may have a verb of one name (`:sort`): the shown screen's comes first.
    static func screenVerb(_ name: String, on screen: ScreenID? = nil) -> Verb? {
        verbs.first { $0.name == name && $0.run != nil && $0.screen == screen } ?? verbs.first { $0.name == name && $0.run != nil }
    }

    static let global: [Verb] = [
        Verb(name: "filter", argument: "TEXT", summary: "filter the list"),
        Verb(name: "select", argument: "ID", summary: "select the item with this id"),
        Verb(name: "theme", argument: "NAME", summary: "switch the colour theme"),
        Verb(name: "app", argument: "ID", summary: "show this app in the header"),
        Verb(name: "env", argument: "production|sandbox", summary: "switch the environment in the header"),
        Verb(name: "refresh", argument: nil, summary: "fetch the visible rows again"),
        Verb(name: "help", argument: nil, summary: "show every action"),
        Verb(name: "messages", argument: nil, summary: "the message log: every message of this session, with its time, whole"),
        Verb(name: "q", argument: nil, summary: "quit"),
        Verb(name: "quit", argument: nil, summary: "quit"),
    ]

    /// How help writes a verb: `:status open|confirmed|declined|all`.
    static func usage(_ verb: Verb) -> String { ":" + verb.name + (verb.argument.map { " " + $0 } ?? "") }

    /// Completions for what has been typed so far: verbs, then each verb's arguments.
    public static func completions(for text: String, state: AppState) -> [String] {
        let parts = text.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        if parts.count <= 1 {
            var seen = Set<String>()
            return verbs.map(\.name).filter { $0.hasPrefix(parts.first ?? "") && seen.insert($0).inserted }
        }
        let argument = parts[1]
        return arguments(of: parts[0], state: state).filter { $0.hasPrefix(argument) }.map { parts[0] + " " + $0 }
    }

    /// What a verb's argument may be, where that is cheap to know: themes, apps, fault kinds, the words
    /// an argument lists (`open|confirmed|declined|all`), and the ids on the shown screen.
    static func arguments(of verb: String, state: AppState) -> [String] {
        switch verb {
        case "theme": return state.themeNames
        case "app": return state.apps.map(\.id)
        case "env": return ["production", "sandbox"]
        case "fault": return PaymentFault.kinds + ["clear"]
        case "select", "user", "login": return state.current.completionIds
        case "sort": return ListSort.completions(state.current.sortColumns)
        default:
            // `open|confirmed|declined|all`: the words; `ID`, `URL|clear`: only the lower-case words.
            guard let argument = verbs.first(where: { $0.name == verb })?.argument, !argument.contains(" ") else { return [] }
            return argument.split(separator: "|").map(String.init).filter { word in
                word.first?.isLowercase == true && word.allSatisfy { $0.isLowercase || $0.isNumber || $0 == "-" }
            }
        }
    }
}

extension AppState {
    /// Typing after `:`: tab completes (and lists the choices), ↑/↓ recall earlier lines, enter runs.
    mutating func handleCommandLine(_ key: Key, text: String) -> [Effect] {
        commandChoices = []
        switch key {
        case .escape:
            mode = .normal
            commandBrowsing = nil
            status = nil
        case .backspace:
            commandBrowsing = nil
            if text.isEmpty { mode = .normal } else { mode = .command(text: String(text.dropLast())) }
        case .ctrl("u"):
            mode = .command(text: "")
        case .ctrl("w"):
            var line = LineEditor(prefilled: "")
            line.text = text
            line.edit(.ctrl("w"))
            mode = .command(text: line.text)
        case .up, .down:
            if let recalled = browse(Self.commandHistory, older: key == .up, from: commandBrowsing, typed: text) {
                mode = .command(text: recalled.text)
                commandBrowsing = recalled.place
            }
        case .tab:
            let options = ConsoleCommandLine.completions(for: text, state: self)
            if options.count == 1 {
                let done = options[0]
                let takesArgument = ConsoleCommandLine.verbs.first { $0.name == done }?.argument != nil
                mode = .command(text: done + (takesArgument ? " " : ""))
            } else if !options.isEmpty {
                mode = .command(text: commonPrefix(options))
                // The choices as they would complete the word being typed.
                let typed = text.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
                commandChoices = typed.count > 1 ? options.map { String($0.dropFirst(typed[0].count + 1)) } : options
            } else {
                status = StatusMessage("nothing completes ':\(text)'", .info)
            }
        case .enter:
            mode = .normal
            commandBrowsing = nil
            let line = text.trimmingCharacters(in: .whitespaces)
            remember(line, in: Self.commandHistory)
            // A command is an action: its message replaces the last one.
            status = nil
            return run(line)
        case .character(let c):
            commandBrowsing = nil
            mode = .command(text: text + String(c))
        default:
            break
        }
        return []
    }

    func commonPrefix(_ words: [String]) -> String {
        guard var prefix = words.first else { return "" }
        for word in words.dropFirst() {
            while !word.hasPrefix(prefix) { prefix.removeLast() }
        }
        return prefix
    }

    mutating func run(_ line: String) -> [Effect] {
        let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
        guard let verb = parts.first else { return [] }
        let argument = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
        func needs(_ what: String) -> [Effect] {
            status = StatusMessage(":\(verb) needs \(what)", .error)
            return []
        }
        switch verb {
        case "q", "quit": return quit()
        case "help":
            mode = .help(scroll: 0)
        case "messages":
            mode = .messages(scroll: nil)
        case "filter":
            guard current.filterText != nil else {
                status = StatusMessage("\(screen.title) has no filter", .error)
                return []
            }
            return setFilter(argument)
        case "select":
            guard !argument.isEmpty else { return needs("an id") }
            return withCurrent { $0.select(id: argument, &$1) }
        case "theme":
            guard !argument.isEmpty else { return needs("a theme name: \(themeNames.joined(separator: ", "))") }
            return [.loadTheme(argument)]
        case "app":
            guard let index = apps.firstIndex(where: { $0.id == argument }) else {
                status = StatusMessage("no app '\(argument)' (have: \(apps.map(\.id).joined(separator: ", ")))", .error)
                return []
            }
            appIndex = index
        case "env":
            switch argument.lowercased() {
            case "production": environment = .production
            case "sandbox": environment = .sandbox
            default: return needs("production or sandbox")
            }
        case "refresh":
            return perform(.refresh)
        default:
            // A screen's name alone goes there; with an argument it is the verb of the screen that has
            // one (`:login` shows the Login screen, `:login USER` logs a player in on Restores).
            // A verb several lists have (`:sort`, `:export`) acts on the shown one, never on another.
            let owners = ConsoleCommandLine.verbs.filter { $0.name == verb && $0.run != nil }.compactMap(\.screen)
            if owners.count > 1, !owners.contains(screen) {
                status = StatusMessage(":\(verb) works on \(owners.map(\.title).joined(separator: ", ")), not on \(screen.title)", .error)
                return []
            }
            let own = ConsoleCommandLine.screenVerb(verb, on: screen)
            if let id = ScreenID.named(verb), argument.isEmpty || own == nil { return show(id) }
            if let own, let owner = own.screen, let run = own.run {
                let effects = screen == owner ? [] : show(owner)
                return effects + run(&self, argument)
            }
            status = StatusMessage("unknown command ':\(verb)' (try tab for completions)", .error)
        }
        return []
    }
}
