import Foundation
import PostgresNIO
import StoreDeskCore
import StoreDeskStoreAPI

extension PostgresStore: PlayerLookup {
    public func user(id: String) throws -> User? {
        try session.rows(#"SELECT * FROM "user" WHERE id = \#(id)"#).first.map { try cells($0).user() }
    }

    public func searchUsers(_ text: String, limit: Int) throws -> [User] {
        try userPage(UserSearch(text: text), from: .first, limit: limit).map(\.user)
    }
}
