import Foundation
import StoreDeskCore

/// `audit`: the entries, newest first.
struct AuditReport: CommandReport {
    struct Entry: Encodable {
        var id: Int64
        var at, actor, role, action, subject, detail: String
    }

    var entries: [AuditEntry]
    var zone: TimeZone

    var json: [Entry] {
        entries.map {
            Entry(id: $0.id ?? 0, at: $0.at.iso8601, actor: $0.actor, role: $0.role, action: $0.action, subject: $0.subject, detail: $0.detail)
        }
    }

    var text: String {
        entries.map { entry in
            // One line per entry whatever its text holds: a reason with a line break cannot fake an entry.
            [entry.at.shortText(in: zone), "\(entry.actor) (\(entry.role))", entry.action, entry.subject, entry.detail]
                .map(\.controlsEscaped).joined(separator: "  ")
        }.joined(separator: "\n")
    }

    var note: String? { entries.isEmpty ? "no audit entries match" : nil }
}
