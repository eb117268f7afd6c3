import ArgumentParser
import Foundation
import StoreDeskCore

/// What a refused command line most likely got wrong, said before anything else: a mistyped subcommand
/// ("did you mean `restore`?"), or an option the command does not have. ArgumentParser runs a command's
/// `validate()` before it looks at what is left over, so without this `apps set 1001 --bogus-flag x` is
/// refused for "nothing to change" and `restor list` for "2 unexpected arguments".
///
///     if let hint = CommandLineHints(root: StoreDeskCommand.self).problem(in: arguments) { warn(hint) }
struct CommandLineHints {
    var root: ParsableCommand.Type

    /// The command a line names (its leading subcommand words), with those words.
    func command(named arguments: [String]) -> (command: ParsableCommand.Type, path: [String], rest: ArraySlice<String>) {
        var command = root
        var path = [Self.name(of: root)]
        var rest = arguments[...]
        while let word = rest.first, let next = command.configuration.subcommands.first(where: { Self.names(of: $0).contains(word) }) {
            command = next
            path.append(Self.name(of: next))
            rest = rest.dropFirst()
        }
        return (command, path, rest)
    }

    /// One line for what is wrong, or nil when nothing here can tell.
    func problem(in arguments: [String]) -> String? {
        let (command, path, rest) = command(named: arguments)
        let shown = path.joined(separator: " ")
        let options = rest.prefix { $0 != "--" }
        // A word where a subcommand belongs.
        if let word = rest.first, !word.hasPrefix("-"), !command.configuration.subcommands.isEmpty {
            let names = command.configuration.subcommands.flatMap(Self.names(of:))
            // A default subcommand that takes words of its own would have taken this one.
            if !(command.configuration.defaultSubcommand.map(Self.takesWords) ?? false) {
                let guess = Self.closest(to: word, among: names)
                return "unknown command '\(word.echoed)' for `\(shown)`"
                    + (guess.map { ": did you mean `\(shown) \($0)`?" } ?? " (commands: \(names.joined(separator: ", ")))")
                    + " (see `\(shown) --help`)"
            }
        }
        // An option the command does not have.
        let effective = command.configuration.defaultSubcommand.map { [command, $0] } ?? [command]
        let known = Set(effective.flatMap(knownOptions(of:))).union(["--help", "-h", "--version"])
        for token in options where token.hasPrefix("--") && token.count > 2 {
            let name = String(token.prefix { $0 != "=" })
            guard !known.contains(name) else { continue }
            let guess = Self.closest(to: name, among: known.filter { $0.hasPrefix("--") }.sorted())
            return "unknown option '\(name.echoed)' for `\(shown)`" + (guess.map { ": did you mean `\($0)`?" } ?? "")
                + " (see `\(shown) --help`)"
        }
        return nil
    }

    /// The long and short option names a command's help lists.
    func knownOptions(of command: ParsableCommand.Type) -> [String] {
        let help = root.helpMessage(for: command, includeHidden: true, columns: 1000)
        var names: [String] = []
        var index = help.startIndex
        while let dash = help[index...].firstIndex(of: "-") {
            let before = dash == help.startIndex ? " " : help[help.index(before: dash)]
            var end = help.index(after: dash)
            if end < help.endIndex, help[end] == "-" { end = help.index(after: end) }
            while end < help.endIndex, help[end].isLetter || help[end].isNumber || help[end] == "-" { end = help.index(after: end) }
            let token = String(help[dash..<end])
            if before == " " || before == "[" || before == "(" || before == "," || before == "\n" {
                if token.count > 1, token != "--" { names.append(token) }
            }
            index = end > dash ? end : help.index(after: dash)
        }
        return names
    }

    /// The name ArgumentParser matches (its `commandName`, or the type's name in kebab case: `Consumption` is `consumption`).
    static func name(of command: ParsableCommand.Type) -> String { command._commandName }

    static func names(of command: ParsableCommand.Type) -> [String] { [name(of: command)] + command.configuration.aliases }

    /// Whether a command takes positional words (so a stray word may be its argument, not a typo).
    static func takesWords(_ command: ParsableCommand.Type) -> Bool {
        command.helpMessage(columns: 1000).contains("ARGUMENTS:")
    }

    /// The candidate nearest `word` when it is near enough to be a typo: at most a third of its letters off
    /// (at least one), or one the word begins.
    static func closest(to word: String, among candidates: [String]) -> String? {
        let scored = candidates.map { ($0, editDistance(word, $0)) }
        guard let best = scored.min(by: { $0.1 < $1.1 }) else { return nil }
        if best.1 <= max(1, word.count / 3) { return best.0 }
        return candidates.first { $0.hasPrefix(word) && word.count >= 3 }
    }

    /// Levenshtein distance over characters.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
