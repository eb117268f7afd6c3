import Foundation
import GRDB

/// Leaves an idle WAL store's folder as a read-only open found it.
///
/// SQLite makes `-wal` and `-shm` beside a WAL file as soon as a connection reads it, and removes them
/// when the last connection closes, but only a connection that may write can: a read-only one leaves
/// them. So once a read-only store's connection is gone, this opens one that may write, reads the schema
/// (which opens the log; GRDB reads with `query_only`), and closes it: when no other connection has the
/// store open, SQLite takes the file's exclusive lock, finds the log empty (nothing to copy, the file's
/// bytes stay as they were) and removes both. When another connection has the store open (another process,
/// or this one), it cannot take the lock and leaves them, which is what that connection needs. It only
/// runs for a store whose `-wal` and `-shm` were absent when it was opened
/// (`StorePath.leavesWALFilesWhenRead`), so it never removes what another process made before.
///
/// It never closes a connection someone may still use: it acts when the `AppDatabase` holding it goes
/// away and its connection has gone with it (a reference kept elsewhere, `database.reader` in a variable,
/// keeps the files), or at `close()`, which a command calls when it is done (`snapshot`, before `exit`).
final class WALFileTidy: @unchecked Sendable {
    private weak var queue: DatabaseQueue?
    private let path: String
    private let lock = NSLock()
    private var done = false

    init(queue: DatabaseQueue, path: String) {
        self.queue = queue
        self.path = path
    }

    deinit {
        // `AppDatabase` declares its writer before this, so the connection is released first; a reference
        // to it kept elsewhere keeps the connection open, and then the files stay.
        guard queue == nil else { return }
        tidy()
    }

    /// Closes the read-only connection now (its owner is done with it), then tidies.
    func close() {
        guard let queue, (try? queue.close()) != nil else { return }
        tidy()
    }

    private func tidy() {
        lock.lock()
        defer { lock.unlock() }
        guard !done else { return }
        done = true
        guard access(path + "-wal", F_OK) == 0 || access(path + "-shm", F_OK) == 0 else { return }
        var configuration = Configuration()
        configuration.label = "storedesk-tidy"
        // A lock held elsewhere means the store is in use: then the files stay, and nothing waits long.
        configuration.busyMode = .timeout(0.2)
        guard let tidy = try? DatabaseQueue(path: path, configuration: configuration) else { return }
        _ = try? tidy.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_schema WHERE 0") }
        try? tidy.close()
    }
}
