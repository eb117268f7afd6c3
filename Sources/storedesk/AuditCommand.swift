import ArgumentParser
import Foundation
import StoreDeskCore
import StoreDeskStore

/// `storedesk audit`: who confirmed, declined, revealed or changed what, newest first.
struct AuditCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit", abstract: "The audit log, newest first: every confirm, decline, reveal and change.")
    @OptionGroup var store: StoreOptions
    @Option(help: "Only this action, or a family of them (`restore` matches restore.confirm and restore.decline).")
    var action: String?
    @Option(help: "Only entries by this name.") var actor: String?
    @Option(help: "At most this many entries.") var limit: Int = 200
    @Flag(help: "Print the entries as JSON.") var json = false

    func run() throws {
        let entries = try reporting { () throws -> [AuditEntry] in
            guard limit > 0 else { throw StoreError.invalidArgument("--limit must be above 0, got \(limit)") }
            if action?.isEmpty == true { throw StoreError.invalidArgument("--action must not be empty") }
            if actor?.isEmpty == true { throw StoreError.invalidArgument("--actor must not be empty") }
            return try store.open(.readOnly).auditEntries(action: action, actor: actor, limit: limit)
        }
        if json {
            struct Output: Encodable {
                var id: Int64
                var at, actor, role, action, subject, detail: String
            }
            try printJSON(
                entries.map {
                    Output(
                        id: $0.id ?? 0, at: $0.at.iso8601, actor: $0.actor, role: $0.role, action: $0.action,
                        subject: $0.subject, detail: $0.detail)
                })
            return
        }
        let zone = TimeZone.local
        for entry in entries {
            // One line per entry whatever its text holds: a reason with a line break cannot fake an entry.
            print([entry.at.shortText(in: zone), "\(entry.actor) (\(entry.role))", entry.action, entry.subject, entry.detail]
                .map(\.controlsEscaped)
                .joined(separator: "  "))
        }
        if entries.isEmpty { FileHandle.standardError.write(Data("no audit entries match\n".utf8)) }
    }
}
