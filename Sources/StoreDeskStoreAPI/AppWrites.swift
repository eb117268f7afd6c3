import StoreDeskCore

/// What every backend decides the same way before and while it writes an app's settings or catalogue:
/// who may, what an id already taken or an import that conflicts says, and the audit line. A backend
/// reads the rows these take, and persists what they return.
public enum AppWrites {
    /// Refuses a write to an app's configuration by anyone without `permission` (a developer's), or on a
    /// read-only store; `what` says what was not done.
    public static func check(_ staff: StaffMember, readOnly: Bool, what: String, permission: Permission = .editApps) throws {
        guard !readOnly else { throw StoreError.invalidArgument("the store is open read-only: \(what)") }
        if let refusal = staff.refusal(permission) { throw StoreError.invalidArgument(refusal) }
    }

    /// The refusal of an app id the store already has.
    public static func alreadyExists(_ app: App, existing: App) -> StoreError {
        StoreError.invalidArgument("app \(app.id) already exists (\(existing.name)): change it with `storedesk apps set \(app.id) ...`")
    }

    /// The refusal of an app id the store does not have, naming those it has.
    public static func unknownApp(_ appId: String, known: [String]) -> StoreError {
        StoreError.invalidArgument("no app with id '\(appId.echoed)' (known: \(known.joined(separator: ", ")))")
    }

    /// The audit line of an app added.
    public static func added(_ app: App, by staff: StaffMember, at now: Instant) -> AuditEntry {
        AuditEntry(
            at: now, actor: staff.name, role: staff.role.rawValue, action: "app.add", subject: "app \(app.id)",
            detail: AppSettings.summary(app))
    }

    /// An app's settings applied: the app after, and its audit line; nil when they change nothing.
    public static func change(_ old: App, _ settings: AppSettings, by staff: StaffMember, at now: Instant) -> (new: App, audit: AuditEntry)? {
        let new = settings.applied(to: old)
        let changes = AppSettings.differences(old, new)
        guard !changes.isEmpty else { return nil }
        let audit = AuditEntry(
            at: now, actor: staff.name, role: staff.role.rawValue, action: "app.set", subject: "app \(old.id)",
            detail: changes.joined(separator: "; "))
        return (new, audit)
    }
}

extension CatalogueImport {
    /// What importing a StoreKit configuration as an app's catalogue does: the report, and the product rows
    /// to write (added, or changed). A product id another app already has refuses the whole file.
    public struct Plan: Sendable {
        public var report: Report
        /// The rows to insert or update, in the file's order.
        public var saves: [Product]
    }

    /// Decides an import against what the store holds: `existing`, the store's rows for the file's
    /// product ids; `apps`, every app's name by id; `before`, the app's catalogue now.
    public static func plan(
        _ configuration: StoreKitConfiguration, app: App, source: String, existing: [String: Product], apps: [String: String],
        before: AppCatalogue
    ) throws -> Plan {
        if let conflict = conflict(appId: app.id, existing: Array(existing.values), apps: apps) {
            throw StoreError.invalidArgument("\(conflict); nothing was imported")
        }
        let previousDetails = Dictionary(
            before.entries.compactMap { entry in entry.details.map { (entry.product.id, $0) } }, uniquingKeysWith: { a, _ in a })
        var report = Report(appId: app.id, source: source, configuration: configuration)
        report.notes = notes(app: app, settings: configuration.settings)
        var saves: [Product] = []
        for entry in configuration.products {
            let old = existing[entry.id]
            let row = product(entry, appId: app.id, settings: configuration.settings, existing: old)
            if old == nil {
                report.added.append(entry.id)
            } else if old == row && previousDetails[entry.id] == entry {
                report.unchanged.append(entry.id)
            } else {
                report.updated.append(entry.id)
            }
            if old != row { saves.append(row) }
        }
        let listed = Set(configuration.products.map(\.id))
        report.notInFile = before.entries.map(\.product.id).filter { !listed.contains($0) }
        return Plan(report: report, saves: saves)
    }

    /// The audit line of an import.
    public static func audit(_ report: Report, configuration: StoreKitConfiguration, by staff: StaffMember, at now: Instant) -> AuditEntry {
        AuditEntry(
            at: now, actor: staff.name, role: staff.role.rawValue, action: "catalog.import", subject: "app \(report.appId)",
            detail: "\(report.source) (StoreKit \(configuration.version)): \(report.summary)")
    }
}
