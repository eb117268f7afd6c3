import ArgumentParser
import Foundation
import StoreDeskCore
import StoreDeskStoreAPI

/// `storedesk audit`: who confirmed, declined, revealed or changed what, newest first.
struct AuditCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit", abstract: "The audit log, newest first: every confirm, decline, reveal and change.")
    @OptionGroup var store: StoreOptions
    @Option(help: "Only this action, or a family of them (`restore` matches restore.confirm and restore.decline).")
    var action: String?
    @Option(help: "Only entries by this name.") var actor: String?
    @Option(help: "At most this many entries.") var limit: Int = 200
    @OptionGroup var output: OutputOptions

    func validate() throws {
        guard limit > 0 else { throw fail("--limit must be above 0, got \(limit)") }
        if action?.isEmpty == true { throw fail("--action must not be empty") }
        if actor?.isEmpty == true { throw fail("--actor must not be empty") }
    }

    func run() throws {
        let entries = try reporting { try store.open(.readOnly).auditEntries(action: action, actor: actor, limit: limit) }
        try output.show(AuditReport(entries: entries, zone: .local))
    }
}
