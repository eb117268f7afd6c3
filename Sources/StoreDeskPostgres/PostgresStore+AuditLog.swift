import Foundation
import PostgresNIO
import StoreDeskCore
import StoreDeskStoreAPI

extension PostgresStore: AuditLogStore {
    public func auditEntries(
        action: String?, actor: String?, text: String?, oldestFirst: Bool, anchor: KeysetAnchor, limit: Int
    ) throws -> [AuditEntry] {
        try PostgresAuditPager(store: self, query: AuditQuery(action: action, actor: actor, text: text, oldestFirst: oldestFirst))
            .page(anchor, limit: limit)
    }
}
