import Foundation
import StoreDeskCore
import StoreDeskStoreAPI

/// What `:export csv|json PATH` asks for; `:export!` writes over an existing file.
public struct ExportRequest: Sendable, Hashable {
    public var format: ExportFormat
    public var path: String
    public var force: Bool

    /// `csv PATH` or `json PATH` (a leading `~/` is the home folder).
    public static func parse(_ argument: String, force: Bool) -> Result<ExportRequest, VerbProblem> {
        let verb = force ? ":export!" : ":export"
        let parts = argument.split(separator: " ", maxSplits: 1).map(String.init)
        guard let word = parts.first, let format = ExportFormat(rawValue: word.lowercased()) else {
            return .failure(VerbProblem("\(verb) needs a format and a file: \(verb) csv|json PATH"))
        }
        guard parts.count == 2, case let path = parts[1].trimmingCharacters(in: .whitespaces), !path.isEmpty else {
            return .failure(VerbProblem("\(verb) \(format.rawValue) needs a file to write"))
        }
        let home = ProcessInfo.processInfo.environment["HOME"] ?? NSHomeDirectory()
        return .success(ExportRequest(format: format, path: path.hasPrefix("~/") ? home + path.dropFirst() : path, force: force))
    }

    /// The effects: "exporting … to PATH" at once, then the whole list through its pager on a thread of its
    /// own (the console live meanwhile: a million rows take seconds), the rows written so far on the status
    /// line as it goes ("exporting users… 120,000 rows to PATH", a few times a second), then "exported N
    /// rows to PATH" (or the refusal). A console that closes meanwhile stops it: its file is removed.
    public func effects<Row: ExportableRow>(_ source: @escaping ListWindow<Row>.Source, noun: String) -> [Effect] {
        effects(source, noun: noun, fields: Row.exportFields) { $0.exportValues(time: $1) }
    }

    /// The same for rows written as `values` gives them, under `fields`.
    public func effects<Row>(
        _ source: @escaping ListWindow<Row>.Source, noun: String, fields: [String],
        values: @escaping @Sendable (Row, (Instant) -> String) -> [String]
    ) -> [Effect] {
        let request = self
        return [
            .read { _ in .progress("exporting \(noun) to \(request.path)…") },
            .background { store, work in
                let rows = try ListExport.write(
                    source(store), fields: fields, format: request.format, to: request.path, force: request.force,
                    cancelled: { work.isCancelled },
                    progress: { written in
                        work.report(.progress("exporting \(noun)… \(written.formattedWithSeparators) rows to \(request.path)"))
                    }, values: values)
                return .done("exported \(Self.counted(rows, noun)) to \(request.path)")
            },
        ]
    }

    /// "1 user", "2 users", "1 audit entry", "1,000 restore prompts": `plural` as the list names its rows.
    static func counted(_ count: Int, _ plural: String) -> String {
        guard count == 1 else { return "\(count.formattedWithSeparators) \(plural)" }
        if plural.hasSuffix("ies") { return "1 " + plural.dropLast(3) + "y" }
        return "1 " + (plural.hasSuffix("s") ? String(plural.dropLast()) : plural)
    }
}

extension ScreenCommand {
    /// `:export csv|json PATH` and `:export! …` (over an existing file) for a list screen.
    public static func export(noun: String, _ action: @escaping @Sendable (ExportRequest) -> S.Action) -> [ScreenCommand] {
        [
            .verb("export", argument: "csv|json PATH", summary: "write every \(noun) of this list (filter and order applied) to a file") {
                ExportRequest.parse($0, force: false).map(action)
            },
            .verb("export!", argument: "csv|json PATH", summary: "the same, over an existing file") { ExportRequest.parse($0, force: true).map(action) },
        ]
    }
}
