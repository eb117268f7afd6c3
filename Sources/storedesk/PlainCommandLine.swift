/// A command line read without ArgumentParser, for the commands scripts and benchmarks run many times
/// (`snapshot`, `find`): most of a short process's life went to ArgumentParser's reflection (every first
/// `as?` of a property wrapper scans the binary's protocol conformances).
///
/// It takes `--name value`, `--name=value`, flags and a fixed number of positional arguments, and
/// answers nil for anything else (an unknown option, a missing value, a value or positional argument
/// starting with `-`, `--`, a flag given a value, too many positional arguments): ArgumentParser then
/// reads the line, and says what is wrong with it. `STOREDESK_FULL_PARSE=1` always answers nil (tests
/// compare both paths).
struct PlainCommandLine {
    /// Each option's value, in the order given (a later one wins, as in ArgumentParser).
    var options: [(name: String, value: String)] = []
    var flags: Set<String> = []
    var positionals: [String] = []

    /// Reads `arguments` after the subcommand `command` (which must come first).
    init?(_ arguments: [String], command: String, flags known: Set<String>, options takingValues: Set<String>, positionals most: Int) {
        guard arguments.first == command, environmentValue("STOREDESK_FULL_PARSE") != "1" else { return nil }
        var rest = arguments.dropFirst()
        while let argument = rest.popFirst() {
            guard argument.hasPrefix("--") else {
                guard !argument.hasPrefix("-"), positionals.count < most else { return nil }
                positionals.append(argument)
                continue
            }
            var name = Substring(argument.dropFirst(2))
            var inline: String?
            if let equals = name.firstIndex(of: "=") {
                inline = String(name[name.index(after: equals)...])
                name = name[..<equals]
            }
            if known.contains(String(name)) {
                guard inline == nil else { return nil }
                flags.insert(String(name))
            } else if takingValues.contains(String(name)) {
                if let inline {
                    options.append((String(name), inline))
                } else {
                    guard let next = rest.popFirst(), !next.hasPrefix("-") else { return nil }
                    options.append((String(name), next))
                }
            } else {
                return nil
            }
        }
    }
}
