import ArgumentParser
import Foundation
import StoreDeskCore
import StoreDeskStoreAPI

/// `storedesk callback sign|verify`: the platform's signed server callback, from a shell.
struct CallbackCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "callback",
        abstract: "Sign or verify a form-encoded server callback with an app's AppKey.",
        subcommands: [CallbackSignCommand.self, CallbackVerifyCommand.self, CallbackCheckCommand.self])
}

/// Where the AppKey comes from, shared by both subcommands; the key itself is never printed in the clear.
/// `--app APP` takes the key the store keeps for that app, `--app-key-file FILE` (or `-`) reads it from a
/// file, and `--app-key K` stays for throwaway test keys (a real key on the command line is visible to
/// other users in the process list).
struct AppKeyOption: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("A throwaway test AppKey (visible in the process list: use --app or --app-key-file for a real one).", valueName: "key"))
    var appKey: String?
    @Option(name: .long, help: ArgumentHelp("Use the AppKey the store keeps for this app.", valueName: "id"))
    var app: String?
    @Option(name: .customLong("app-key-file"), help: ArgumentHelp("Read the AppKey from a file (one line).", valueName: "file"))
    var appKeyFile: String?
    @OptionGroup var store: StoreOptions

    /// Exactly one of the three sources, checked before anything is read.
    func validate() throws {
        let given = [appKey != nil, app != nil, appKeyFile != nil].filter { $0 }.count
        guard given == 1 else {
            throw fail(given == 0 ? "give the AppKey with --app APP, --app-key-file FILE or --app-key K" : "give only one of --app, --app-key-file and --app-key")
        }
        if appKey?.isEmpty == true { throw fail("--app-key must not be empty") }
        // Standard input carries the callback, so the key must come from a real file.
        if appKeyFile == "-" { throw fail("--app-key-file -: standard input carries the callback here; give a file") }
    }

    /// The key, from the one source `validate()` let through, or a one-line error.
    func checked() throws -> String {
        if let appKey { return appKey }
        if let appKeyFile { return try reporting { try AppKeyFile.read(appKeyFile) } }
        let id = app ?? ""
        return try reporting {
            let database = try store.open(.readOnly)
            guard let found = try database.app(id: id) else {
                let known = (try? database.apps().map(\.id)) ?? []
                throw StoreError.invalidArgument("no app with id '\(id.echoed)' (known: \(known.joined(separator: ", ")))")
            }
            return found.appKey
        }
    }
}

struct CallbackSignCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign",
        abstract: "Read key=value lines on stdin and print the signed, form-encoded callback body.",
        discussion: """
            Blank lines are skipped; a sign line is ignored (the sign is computed). Values are taken verbatim. \
            The sign covers the fields as the PHP game server's parse_str reads them (a.b arrives as a_b, a[] \
            appends), so the body verifies there and with `callback verify`; a line PHP would lose (an empty \
            name, a name read as sign, a second value for one field) is refused with its reason.
            """)

    @OptionGroup var key: AppKeyOption

    func run() throws {
        let appKey = try key.checked()
        let input = String(decoding: try reporting { try CallbackInput.standardInput() }, as: UTF8.self)
        let callback = try reporting { try TypedCallback(fields: try CallbackInput.fields(fromLines: input), appKey: appKey) }
        print(callback.body)
    }
}

struct CallbackVerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Read one callback body on stdin and print the verdict. Exit 0 only when the signature is valid.",
        discussion: """
            The signature alone decides validity, as the platform's verify_sign does; a missing or empty field, \
            or an order_id that is not a number, is a warning beside a valid verdict.
            """)

    @OptionGroup var key: AppKeyOption
    @OptionGroup var output: OutputOptions

    func run() throws {
        let appKey = try key.checked()
        let bytes = CallbackInput.body(from: [UInt8](try reporting { try CallbackInput.standardInput() }))
        let check = CallbackSignature.verify(bodyBytes: bytes, appKey: appKey)
        try output.show(CallbackVerifyReport(check: check))
        if !check.isValid { throw ExitCode(1) }
    }
}

/// Parsing what the callback commands read on stdin.
enum CallbackInput {
    struct BadLine: Error, CustomStringConvertible {
        var number: Int
        var line: String
        var description: String { "stdin line \(number) is not key=value: \(line)" }
    }

    /// `key=value` lines (split at the first `=`) in order, blank lines skipped. Lines end at LF or CRLF:
    /// the split is on the LF scalar (Swift reads "\r\n" as one `Character`, which a split on "\n" misses).
    static func fields(fromLines input: String) throws -> [TypedCallback.Field] {
        var fields: [TypedCallback.Field] = []
        for (index, scalars) in input.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var line = String(scalars)
            if line.unicodeScalars.last == "\r" { line = String(line.unicodeScalars.dropLast()) }
            if line.allSatisfy(\.isWhitespace) { continue }
            guard let equals = line.firstIndex(of: "="), equals != line.startIndex else {
                throw BadLine(number: index + 1, line: line)
            }
            fields.append(
                TypedCallback.Field(line: index + 1, name: String(line[..<equals]), value: String(line[line.index(after: equals)...])))
        }
        return fields
    }

    /// The most standard input may hold: `serve` takes bodies of at most 16 MiB, and PHP's own
    /// `post_max_size` is 8 MiB by default. Without a bound, `yes | storedesk callback verify` would
    /// read until memory ran out.
    static let inputLimit = 16 * 1024 * 1024

    /// Standard input, all of it, or an error when it holds more than `inputLimit` bytes.
    static func standardInput() throws -> Data {
        let data: Data
        do {
            data = try FileHandle.standardInput.read(upToCount: inputLimit + 1) ?? Data()
        } catch {
            throw StoreError.invalidArgument("standard input cannot be read: \(error.localizedDescription)")
        }
        guard data.count <= inputLimit else {
            throw StoreError.invalidArgument("standard input holds more than 16 MiB: a callback body is at most that (serve's --max-body)")
        }
        return data
    }

    /// The body without the line ending a shell adds (`echo`, here-strings).
    static func body(from bytes: [UInt8]) -> [UInt8] {
        var body = bytes
        if body.last == 0x0A { body.removeLast() }
        if body.last == 0x0D { body.removeLast() }
        return body
    }
}
