import ArgumentParser
import Foundation
import Synchronization
import StoreDeskCore
import StoreDeskStoreAPI
import StoreDeskOpener

/// Prints one line on stderr and leaves with a non-zero code: how every command reports bad input.
/// The message is made one line whatever it holds (a newline or an escape sequence from a file name,
/// a stored value or an argument is shown escaped).
func fail(_ message: String, code: Int32 = 1) -> ExitCode {
    warn(message)
    return ExitCode(code)
}

/// One line on stderr, `storedesk: ` first, control characters escaped.
func warn(_ message: String) {
    let line = "storedesk: " + ControlCharacters.escaped(message) + "\n"
    guard !HeldWarnings.lines.withLock({ held in
        held?.append(line)
        return held != nil
    }) else { return }
    FileHandle.standardError.write(Data(line.utf8))
}

/// While the command line is parsed, `warn` keeps its lines here (see `StoreDeskCommand.main`): a
/// `validate()` refusal is then said only when the line has no plainer problem (a mistyped subcommand,
/// an unknown option) to say instead.
enum HeldWarnings {
    /// The lines held; nil when `warn` writes at once.
    static let lines = Mutex<[String]?>(nil)

    /// `warn` holds its lines from now on.
    static func hold() { lines.withLock { $0 = [] } }

    /// Stops holding, dropping what was held (a plainer problem is said instead).
    static func drop() { lines.withLock { $0 = nil } }
}

/// Writes the lines `warn` held, and stops holding.
func releaseWarnings() {
    let lines = HeldWarnings.lines.withLock { held in
        defer { held = nil }
        return held ?? []
    }
    for line in lines { FileHandle.standardError.write(Data(line.utf8)) }
}

/// The store file this process opened (set by `StoreLocation.open`), so an error raised deep inside a
/// read or a write can still name it.
enum OpenedStore {
    private static let opened = Mutex<String?>(nil)

    static var path: String? {
        get { opened.withLock { $0 } }
        set { opened.withLock { $0 = newValue } }
    }
}

/// Runs a command's body, turning known errors into their one-line form.
func reporting<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch {
        throw reported(error)
    }
}

/// Runs an async command's body, turning known errors into their one-line form.
func reporting<T>(_ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch {
        throw reported(error)
    }
}

/// An error as a command reports it: an exit as it is, anything else said in one line.
private func reported(_ error: any Error) -> any Error {
    if error is ExitCode || error is CleanExit { return error }
    return fail(oneLineDescription(of: error))
}

/// What went wrong, in one line that names the file when a store is involved: a SQLite error or a
/// value a store cannot read becomes a `StoreError` naming the store (never the raw SQL or row).
func oneLineDescription(of error: any Error) -> String {
    if let store = StoreOpener.storeError(for: error, path: OpenedStore.path ?? "the store") { return store.description }
    return oneLine(String(describing: error))
}

/// ArgumentParser's refusal of a value for an option of six or more choices, which lists them one a line
/// ("Please provide one of the following:" and "  - mobile" lines), with the choices on its one line as it
/// writes fewer: "Please provide one of 'mobile', 'unicom', ... or 'other'."
func choicesOnOneLine(_ message: String) -> String {
    let lead = ". Please provide one of the following:\n"
    guard let start = message.range(of: lead) else { return message }
    var choices: [String] = []
    for line in message[start.upperBound...].split(separator: "\n") {
        guard line.hasPrefix("  - ") else { return message }
        choices.append("'\(line.dropFirst(4))'")
    }
    guard let last = choices.popLast() else { return message }
    let listed = choices.isEmpty ? last : choices.joined(separator: ", ") + " or " + last
    return message[..<start.lowerBound] + ". Please provide one of " + listed + "."
}

/// ArgumentParser's message with every value it quotes (`The value '…' is invalid for '--limit <n>'`,
/// `Unknown option '…'`) cut as any echoed value is (`EchoedText`): a text between two quotes longer than
/// a message keeps of a value loses its tail.
func valuesEchoed(_ message: String) -> String {
    let parts = message.split(separator: "'", omittingEmptySubsequences: false)
    guard parts.count > 2 else { return message }
    return parts.map { EchoedText.cut($0) }.joined(separator: "'")
}

/// A message of several lines as one: its non-blank lines joined with "; ".
func oneLine(_ text: String) -> String {
    text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        .joined(separator: "; ")
}

/// The command line with a negative number joined to the option before it (`--users -1` becomes
/// `--users=-1`), when `message` is ArgumentParser's "Missing value for '--users <n>'" because it read the
/// number as an option; nil otherwise. Only the first such pair is joined: a second one comes back as
/// another missing value and is joined then.
func negativeValueJoined(_ message: String, in arguments: [String]) -> [String]? {
    let lead = "Missing value for '"
    guard let start = message.range(of: lead) else { return nil }
    let option = String(message[start.upperBound...].prefix { $0 != " " && $0 != "'" })
    guard option.hasPrefix("-") else { return nil }
    for index in arguments.indices.dropLast() where arguments[index] == option {
        let value = arguments[index + 1]
        guard isNegativeNumber(value) else { continue }
        var joined = arguments
        joined.replaceSubrange(index...(index + 1), with: [option + "=" + value])
        return joined
    }
    return nil
}

/// Whether an argument is a negative number (`-1`, `-0.5`, `-.5`, `-1e9`, `-inf`) rather than an option.
func isNegativeNumber(_ argument: String) -> Bool {
    guard argument.hasPrefix("-"), argument.count > 1 else { return false }
    let rest = argument.dropFirst()
    if rest.first?.isNumber == true || (rest.first == "." && rest.dropFirst().first?.isNumber == true) { return true }
    return ["inf", "infinity", "nan"].contains(rest.lowercased())
}

/// Ends the process for an error that reached the top: help and version as ArgumentParser prints them,
/// a bad command line as one line with where to look (not the whole usage), anything else as one line.
func exitReporting(
    _ error: any Error, command: ParsableCommand.Type, arguments: [String] = Array(CommandLine.arguments.dropFirst())
) -> Never {
    switch error {
    case is CleanExit, is ExitCode:
        command.exit(withError: error)
    case let error as StoreError:
        warn(error.description)
        exit(1)
    default:
        let code = command.exitCode(for: error)
        // `--help`, `help COMMAND` and `--version` arrive as errors that exit 0: ArgumentParser prints them
        // on standard output, whole.
        if code == .success { command.exit(withError: error) }
        // An `ExitCode` thrown from `validate()` (by `fail`, which has said its one line) arrives wrapped,
        // with nothing more to say.
        if command.message(for: error).isEmpty { exit(code.rawValue) }
        if code.rawValue == ExitCode.validationFailure.rawValue {
            if let joined = negativeValueJoined(command.message(for: error), in: arguments) {
                // `--users -1`: the parser took -1 for an option. Parsed again as `--users=-1`, the value
                // reaches the command's own rules, which refuse it by name ("--users must be ..., got -1").
                do {
                    var parsed = try StoreDeskCommand.parseAsRoot(joined)
                    try parsed.run()
                    exit(0)
                } catch {
                    exitReporting(error, command: StoreDeskCommand.self, arguments: joined)
                }
            }
            // Usage errors: ArgumentParser's message, then the --help of the command it names.
            let message = valuesEchoed(oneLine(choicesOnOneLine(command.message(for: error))))
            let full = command.fullMessage(for: error)
            let hint = full.range(of: "See '").flatMap { start in
                full[start.upperBound...].range(of: "'").map { String(full[start.upperBound..<$0.lowerBound]) }
            }
            warn(message + (hint.map { " (see `\($0)`)" } ?? ""))
        } else {
            warn(oneLineDescription(of: error))
        }
        exit(code.rawValue)
    }
}

/// Text output: every item with its control characters escaped (`ControlCharacters`), so stored text
/// (a decline reason, an imported id, a player's name) cannot send escape sequences to the terminal. It
/// shadows the standard `print` in this module: every text report goes through it. A report's own line
/// breaks and column tabs are kept (reports are built of many lines, some of tab-separated columns); a
/// value that may hold a line break or a tab of its own is escaped where it is interpolated
/// (`controlsEscaped`, as the audit, user and restore reports do).
func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
    var line = ""
    for (index, item) in items.enumerated() {
        if index > 0 { line += separator }
        line += String(describing: item)
    }
    let shown = line.split(separator: "\n", omittingEmptySubsequences: false).map { row in
        row.split(separator: "\t", omittingEmptySubsequences: false).map(ControlCharacters.escaped).joined(separator: "\t")
    }.joined(separator: "\n")
    Swift.print(shown, terminator: terminator)
}

/// A report's lines as its text, the one place a text report's stored values are made safe: every line
/// stays one line whatever the names, ids and reasons interpolated into it hold (a line break, an escape
/// sequence, a C1 control or a bidirectional override is written as its escape), and the tabs between
/// columns are kept. Escaping twice changes nothing, so a value escaped where it was interpolated is
/// shown the same.
func reportText(_ lines: [String]) -> String {
    lines.map { line in
        ControlCharacters.contains(in: line)
            ? line.split(separator: "\t", omittingEmptySubsequences: false).map(ControlCharacters.escaped).joined(separator: "\t")
            : line
    }.joined(separator: "\n")
}

/// One line of tab-separated columns, each escaped (a tab inside a value cannot shift the columns).
func printColumns(_ columns: [String]) {
    Swift.print(columns.map(ControlCharacters.escaped).joined(separator: "\t"))
}

/// Stable JSON: sorted keys, pretty printed, no escaped slashes. JSON's encoder escapes C0 controls; DEL,
/// the C1 controls (U+009B is a CSI on some terminals) and the bidirectional overrides are written as
/// `\u` escapes too, so the text stays valid JSON and shows nothing but itself on a terminal.
func printJSON<T: Encodable>(_ value: T) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    let data = try encoder.encode(value)
    FileHandle.standardOutput.write(Data(jsonEscapingControls(String(decoding: data, as: UTF8.self)).utf8))
    FileHandle.standardOutput.write(Data("\n".utf8))
}

/// JSON from `JSONEncoder` with DEL, the C1 controls and the bidirectional overrides written as `\u`
/// escapes too (the encoder escapes only C0 controls).
func jsonEscapingControls(_ text: String) -> String {
    guard ControlCharacters.contains(in: text) else { return text }
    var out = ""
    for scalar in text.unicodeScalars {
        if ControlCharacters.isControl(scalar) {
            // Inside JSON strings only: the encoder already wrote newlines between keys as layout,
            // and every C0 control inside a string as an escape.
            if scalar.value < 0x20 {
                out.unicodeScalars.append(scalar)
            } else {
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            }
        } else {
            out.unicodeScalars.append(scalar)
        }
    }
    return out
}

/// One environment variable, read with `getenv`: `ProcessInfo.processInfo.environment` copies the
/// whole environment into a dictionary, a measurable part of a short command such as `snapshot`.
func environmentValue(_ name: String) -> String? {
    getenv(name).map { String(cString: $0) }
}

/// Only the named environment variables, for the APIs that take an environment dictionary.
func environmentValues(_ names: String...) -> [String: String] {
    var values: [String: String] = [:]
    for name in names { values[name] = environmentValue(name) }
    return values
}

/// Whether standard error is a terminal (for progress bars).
var stderrIsTerminal: Bool { isatty(2) == 1 }

/// An optional JSON field written as `null` when absent, so every object of a kind has the same keys.
///
///     struct Line: Encodable { @NullWhenAbsent var reason: String? }   // {"reason": null}
@propertyWrapper
struct NullWhenAbsent<Value: Encodable>: Encodable {
    var wrappedValue: Value?

    init(wrappedValue: Value?) { self.wrappedValue = wrappedValue }

    func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(wrappedValue)
    }
}
