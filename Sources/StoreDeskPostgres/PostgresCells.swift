import Foundation
import PostgresNIO
import StoreDeskCore
import StoreDeskStoreAPI

/// One PostgreSQL row's columns by name (`StoreColumns`: the records are decoded in StoreDeskStoreAPI, the
/// same as the SQLite store's), each read as the type its record wants; a value that does not convert (a
/// hand edit) is one line naming its column, never the row.
struct PostgresCells: StoreColumns {
    let row: PostgresRandomAccessRow
    let store: String

    init(_ row: PostgresRow, store: String) {
        self.row = row.makeRandomAccess()
        self.store = store
    }

    func value<T: PostgresDecodable>(_ column: String, as type: T.Type = T.self) throws -> T {
        guard row.contains(column) else {
            throw StoreError.damaged(path: store, detail: "it has no column \(column)")
        }
        do {
            return try row[column].decode(T.self)
        } catch {
            throw unreadable(column)
        }
    }

    func optionalText(_ column: String) throws -> String? { try value(column, as: String?.self) }
    func optionalInt(_ column: String) throws -> Int64? { try value(column, as: Int64?.self) }
    func optionalBytes(_ column: String) throws -> [UInt8]? { try value(column, as: ByteBuffer?.self).map { Array($0.readableBytesView) } }
}
