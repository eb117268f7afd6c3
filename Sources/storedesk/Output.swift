import ArgumentParser
import Foundation
import StoreDeskStore

/// Prints one line on stderr and leaves with a non-zero code: how every command reports bad input.
func fail(_ message: String, code: Int32 = 1) -> ExitCode {
    FileHandle.standardError.write(Data(("storedesk: " + message + "\n").utf8))
    return ExitCode(code)
}

/// Runs a command's body, turning known errors into their one-line form.
func reporting<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as StoreError {
        throw fail(error.description)
    } catch let error as ExitCode {
        throw error
    } catch let error as CleanExit {
        throw error
    } catch {
        throw fail("\(error)")
    }
}

/// Stable JSON: sorted keys, pretty printed, no escaped slashes.
func printJSON<T: Encodable>(_ value: T) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    let data = try encoder.encode(value)
    FileHandle.standardOutput.write(data)
    FileHandle.standardOutput.write(Data("\n".utf8))
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
