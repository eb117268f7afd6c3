import Foundation
import GRDB

/// Notices commits made by other processes (another console, a simulator, the sqlite3 CLI) by
/// polling `PRAGMA data_version` on one dedicated connection, which GRDB observation cannot see.
public final class DataVersionWatcher {
    let queue: DatabaseQueue
    var last: Int?

    public init(path: String) throws {
        var config = AppDatabase.configuration(readOnly: true)
        config.label = "storedesk.data_version"
        queue = try DatabaseQueue(path: path, configuration: config)
        last = try queue.read { try Int.fetchOne($0, sql: "PRAGMA data_version") }
    }

    /// True when another connection committed since the last call.
    public func changed() throws -> Bool {
        let now = try queue.read { try Int.fetchOne($0, sql: "PRAGMA data_version") }
        defer { last = now }
        return now != last
    }
}
