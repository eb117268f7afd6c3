import ArgumentParser
import Foundation
import StoreDeskCore

/// `--json`, the one output option every reporting command shares.
///
///     @OptionGroup var output: OutputOptions
///     func run() throws { try output.show(CheckReport(...)) }
struct OutputOptions: ParsableArguments {
    @Flag(help: "Print the result as JSON (sorted keys; the shapes are in the README; secrets masked).") var json = false

    /// Prints `report` as its JSON shape with `--json`, else as its text (and its note on stderr).
    func show<R: CommandReport>(_ report: R) throws { try Self.show(report, json: json) }

    static func show<R: CommandReport>(_ report: R, json: Bool) throws {
        if json { return try printJSON(report.json) }
        let text = report.text
        if !text.isEmpty { print(text, terminator: text.hasSuffix("\n") ? "" : "\n") }
        if let note = report.note { FileHandle.standardError.write(Data((note.controlsEscaped + "\n").utf8)) }
    }
}

/// What a command prints, built once from what it found, so the JSON shape and the text say the same
/// thing and live in one place (the `*Report.swift` files) that commands and tests share.
protocol CommandReport {
    associatedtype JSON: Encodable
    /// The `--json` shape, as documented in the README.
    var json: JSON { get }
    /// The text for a person (lines joined by "\n", a last line end optional; empty prints nothing).
    var text: String { get }
    /// A remark for a person on stderr, beside the text (e.g. "no user matches"); never part of the JSON.
    var note: String? { get }
}

extension CommandReport {
    var note: String? { nil }
}
