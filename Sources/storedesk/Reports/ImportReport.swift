import Foundation
import StoreDeskCore
import StoreDeskStoreAPI

/// What `events import` prints, line by line as the import decides them: skipped lines on stdout,
/// rejected ones on stderr (`storedesk: FILE:LINE: reason`), or with `--json` one object a line inside
/// `{"file", "store", "lines": [...], counts}`. Nothing is kept per line, so a file of a million lines
/// prints as it goes. Until a line turns out to be a notification, lines wait: a file with none fails
/// whole, with one error and nothing on stdout.
struct ImportOutput {
    var file: String
    var json: Bool
    var store = ""
    private var waiting: [NotificationImport.Line] = []
    private var started = false
    private var linesWritten = 0

    init(file: String, json: Bool) {
        self.file = file
        self.json = json
    }

    mutating func line(_ line: NotificationImport.Line) {
        guard started || line.notificationUUID != nil else {
            waiting.append(line)
            return
        }
        if !started {
            started = true
            if json { write("{\"file\": \(Self.quoted(file)), \"store\": \(Self.quoted(store)), \"lines\": [") }
            let held = waiting
            waiting = []
            for line in held { emit(line) }
        }
        emit(line)
    }

    mutating func finish(_ report: NotificationImport.Report) {
        if !started {
            started = true
            if json { write("{\"file\": \(Self.quoted(file)), \"store\": \(Self.quoted(store)), \"lines\": [") }
            for line in waiting { emit(line) }
        }
        if json {
            let summary = ImportSummaryJSON(report)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            let encoded = (try? encoder.encode(summary)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
            write((linesWritten > 0 ? "\n" : "") + "], " + encoded.dropFirst() + "\n")
        } else {
            print(ImportSummaryText.line(report, file: file, store: store))
        }
    }

    private mutating func emit(_ line: NotificationImport.Line) {
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            let entry = ImportLineJSON(
                line: line.line, outcome: line.outcome.name, reason: line.outcome.reason, notificationUUID: line.notificationUUID,
                originalTransactionId: line.originalTransactionId, userId: line.userId)
            let text = (try? encoder.encode(entry)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
            write((linesWritten > 0 ? ",\n" : "\n") + text)
            linesWritten += 1
            return
        }
        switch line.outcome {
        case .imported: break
        case .skipped(let reason): print(reportText(["line \(line.line) skipped: \(reason)"]))
        // A reason quotes the line (a product id, a transaction id): its controls are shown escaped.
        case .rejected(let reason): warn("\(file):\(line.line): \(reason)")
        }
    }

    /// JSON text as it is written: the encoder escapes C0 controls, `jsonEscapingControls` the rest.
    private func write(_ text: String) {
        FileHandle.standardOutput.write(Data(jsonEscapingControls(text).utf8))
    }

    static func quoted(_ text: String) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return (try? encoder.encode(text)).map { String(decoding: $0, as: UTF8.self) } ?? "\"\""
    }
}

/// The summary line of `events import`: the counts, how far the imported lines are trusted, and a few of
/// the players it made (not 20,000 ids on one line).
enum ImportSummaryText {
    static func line(_ report: NotificationImport.Report, file: String, store: String) -> String {
        let trust = SubscriptionEvent.Provenance.allCases.compactMap { provenance -> String? in
            guard let count = report.provenance[provenance], count > 0 else { return nil }
            return "\(count) \(provenance.shortLabel)"
        }
        return "imported \(report.imported), skipped \(report.skipped), rejected \(report.rejected) (\(file) → \(store))"
            + (trust.isEmpty ? "" : "; " + trust.joined(separator: ", "))
            + (report.newUsersSummary.map { "; " + $0 } ?? "")
    }
}

/// One line of `events import --json`.
struct ImportLineJSON: Encodable {
    var line: Int
    var outcome: String
    @NullWhenAbsent var reason: String?
    @NullWhenAbsent var notificationUUID: String?
    @NullWhenAbsent var originalTransactionId: String?
    @NullWhenAbsent var userId: String?
}

/// The counts after the lines of `events import --json`.
struct ImportSummaryJSON: Encodable {
    var imported, skipped, rejected: Int
    /// Imported lines by provenance (`verified`, `decoded_json`, ...).
    var provenance: [String: Int]
    /// How many players the import made, and the first few of them.
    var usersCreatedCount: Int
    var usersCreated: [String]
    var subscriptionsWritten: Int

    init(_ report: NotificationImport.Report) {
        imported = report.imported
        skipped = report.skipped
        rejected = report.rejected
        provenance = Dictionary(uniqueKeysWithValues: report.provenance.map { ($0.key.rawValue, $0.value) })
        usersCreatedCount = report.usersCreatedCount
        usersCreated = report.usersCreated
        subscriptionsWritten = report.subscriptionsWritten
    }
}
