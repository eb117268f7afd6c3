import Foundation
import GRDB
import StoreDeskCore
import StoreDeskStoreAPI

/// Apps' catalogues on SQLite: `CatalogueProcedures`, written once for both backends.
extension AppDatabase {
    /// The catalogue of one app.
    ///
    /// - Throws: `StoreError.invalidArgument` naming the known apps when there is no such app.
    public func catalogue(appId: String) throws -> AppCatalogue {
        try reader.read { db in try CatalogueProcedures.catalogue(procedures(db), appId: appId) }
    }

    /// The time rate an app's StoreKit configuration runs subscriptions at, nil when it has none (its
    /// catalogue did not come from a file, or the file sets no rate StoreDesk knows).
    public func storeKitTimeRate(appId: String) throws -> StoreKitTimeRate? {
        try reader.read { db in try CatalogueProcedures.storeKitTimeRate(procedures(db), appId: appId) }
    }

    /// Imports a StoreKit configuration as `appId`'s catalogue, in one transaction: each product's row is
    /// added or updated (a product the file no longer lists is kept), the app's StoreKit details are
    /// replaced whole, and an audit line says what changed. Only a developer may. A product id that
    /// another app already has, an unknown app or a read-only store refuse the whole file: nothing is written.
    public func importCatalogue(
        _ configuration: StoreKitConfiguration, appId: String, source: String, by staff: StaffMember, at now: Instant
    ) throws -> CatalogueImport.Report {
        try AppWrites.check(staff, readOnly: isReadOnly, what: "the catalogue was not imported", permission: .importCatalogue)
        return try writeImmediate { db in
            try CatalogueProcedures.importCatalogue(procedures(db), configuration, appId: appId, source: source, by: staff, at: now)
        }
    }
}
