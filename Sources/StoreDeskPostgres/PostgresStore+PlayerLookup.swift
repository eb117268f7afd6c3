import Foundation
import PostgresNIO
import StoreDeskCore
import StoreDeskStoreAPI

extension PostgresStore: PlayerLookup {
    public func user(id: String) throws -> User? {
        try session.transaction(readOnly: true) { db in try PlayerProcedures.user(procedures(db), id: id) }
    }

    public func searchUsers(_ text: String, limit: Int) throws -> [User] {
        try userPage(UserSearch(text: text), from: .first, limit: limit).map(\.user)
    }
}
