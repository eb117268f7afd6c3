import Foundation
import PostgresNIO
import StoreDeskCore
import StoreDeskStoreAPI

/// Apps and their catalogues on PostgreSQL: `AppProcedures` and `CatalogueProcedures`, written once for both
/// backends; a write locks the app's row first (`FOR UPDATE`), so two machines importing into one app write
/// one after the other, each against what the other left.
extension PostgresStore: AppsStore {
    public func app(id: String) throws -> App? {
        try session.transaction(readOnly: true) { db in try AppProcedures.app(procedures(db), id: id) }
    }

    public func appOverviews() throws -> [AppOverview] {
        try session.transaction(readOnly: true) { db in try AppProcedures.overviews(procedures(db), appId: nil) }
    }

    public func appOverview(id: String) throws -> AppOverview {
        try session.transaction(readOnly: true) { db in try AppProcedures.overview(procedures(db), id: id) }
    }

    public func addApp(_ app: App, by staff: StaffMember, at now: Instant) throws {
        try AppWrites.check(staff, readOnly: isReadOnly, what: "the app was not added")
        try write { db in try AppProcedures.add(procedures(db), app, by: staff, at: now) }
    }

    @discardableResult
    public func updateApp(id: String, _ settings: AppSettings, by staff: StaffMember, at now: Instant) throws -> (old: App, new: App)? {
        try AppWrites.check(staff, readOnly: isReadOnly, what: "the app was not changed")
        return try write { db in try AppProcedures.update(procedures(db), id: id, settings, by: staff, at: now) }
    }

    public func appsWithProducts() throws -> [(app: App, products: [Product])] {
        try session.transaction(readOnly: true) { db in try AppProcedures.appsWithProducts(procedures(db)) }
    }

    /// An audit line, in the caller's transaction (its instant already stamped).
    func insert(_ audit: AuditEntry, _ db: PostgresSession.Transaction) throws {
        try db.run(
            """
            INSERT INTO audit_log (at, actor, role, action, subject, detail)
            VALUES (\(audit.at.millis), \(audit.actor), \(audit.role), \(audit.action), \(audit.subject), \(audit.detail))
            """)
    }
}

extension PostgresStore: CatalogueStore {
    public func catalogue(appId: String) throws -> AppCatalogue {
        try session.transaction(readOnly: true) { db in try CatalogueProcedures.catalogue(procedures(db), appId: appId) }
    }

    public func storeKitTimeRate(appId: String) throws -> StoreKitTimeRate? {
        try session.transaction(readOnly: true) { db in try CatalogueProcedures.storeKitTimeRate(procedures(db), appId: appId) }
    }

    public func product(id: String) throws -> Product? {
        try session.rows("SELECT * FROM product WHERE id = \(id)").first.map { try cells($0).product() }
    }

    public func importCatalogue(
        _ configuration: StoreKitConfiguration, appId: String, source: String, by staff: StaffMember, at now: Instant
    ) throws -> CatalogueImport.Report {
        try AppWrites.check(staff, readOnly: isReadOnly, what: "the catalogue was not imported", permission: .importCatalogue)
        return try write { db in
            try CatalogueProcedures.importCatalogue(procedures(db), configuration, appId: appId, source: source, by: staff, at: now)
        }
    }
}
