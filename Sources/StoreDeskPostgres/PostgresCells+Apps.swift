import Foundation
import NIOCore
import PostgresNIO
import StoreDeskCore
import StoreDeskStoreAPI

/// A trusted root's row (its DER is PostgreSQL's bytea); the catalogues' rows are `StoreColumns`'.
extension PostgresCells {
    func trustedRoot() throws -> TrustedRoot {
        let der = try value("der", as: ByteBuffer.self)
        return TrustedRoot(
            id: try int("id"), der: Array(der.readableBytesView), sha256: try text("sha256"), subject: try text("subject"),
            notValidBefore: try instant("not_valid_before"), notValidAfter: try instant("not_valid_after"),
            addedAt: try instant("added_at"), addedBy: try text("added_by"))
    }
}
