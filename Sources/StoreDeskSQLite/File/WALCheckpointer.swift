import Foundation
import GRDB

/// Copies a busy writer's WAL into the store file from a connection and thread of its own, so the
/// writer's commits never wait for that copy and its fsyncs.
///
/// Why: SQLite checkpoints on the committing connection, inside the commit that crosses
/// `wal_autocheckpoint`. `serve`'s ledger commits every callback group through one connection, and such
/// a commit (tens of megabytes copied, two fsyncs) held every waiting reply for 70–240 ms about once a
/// second under load: that, not the callbacks' work, was `serve`'s p99 latency.
///
/// While it runs, the writer's own autocheckpoint is off and this thread runs a PASSIVE checkpoint every
/// `interval` after commits (it takes no lock a writer or reader waits for). A WAL is only started
/// again from its beginning by a writer that finds it wholly copied, which never happens under steady
/// load when another thread copies it; so once the WAL holds `writerCheckpointFrames` frames, the writer
/// calls `checkpointIfLong` between commits and copies the remainder itself: what the background pass
/// has not yet copied, a small part. Durability is the WAL's either way (a commit is durable once in it);
/// no checkpoint mode changes that.
final class WALCheckpointer: @unchecked Sendable {
    private let pool: DatabasePool
    private let interval: TimeInterval
    /// The WAL's size (4 KiB pages) from which the writer finishes a checkpoint itself.
    private let writerCheckpointFrames: Int
    private let condition = NSCondition()
    private var commits = 0
    private var walFrames = 0
    private var stopping = false
    private var stopped = false
    private var savedAutocheckpoint: Int?

    /// Starts checkpointing `pool`'s file in the background every `interval` seconds after commits; nil
    /// when a second connection cannot open the file. `writerCheckpointFrames` is the store's
    /// `wal_autocheckpoint` (16384 pages), so the WAL grows no larger than it did.
    init?(pool: DatabasePool, interval: TimeInterval = 0.05, writerCheckpointFrames: Int = 16384) {
        self.pool = pool
        self.interval = interval
        self.writerCheckpointFrames = writerCheckpointFrames
        let background: DatabaseQueue
        do {
            background = try DatabaseQueue(path: pool.path, configuration: AppDatabase.configuration(readOnly: false))
            savedAutocheckpoint = try pool.writeWithoutTransaction { db in
                let saved = try Int.fetchOne(db, sql: "PRAGMA wal_autocheckpoint")
                try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
                return saved
            }
        } catch {
            return nil
        }
        let thread = Thread { [self] in run(background) }
        thread.name = "storedesk-checkpoint"
        thread.start()
    }

    /// Called by the writer after each commit, outside its transaction: counts it, and once the WAL is
    /// long copies what the background pass has not (holding the write lock, this pass reaches the WAL's
    /// end, so the next commit starts it again from the beginning).
    func committed() {
        condition.lock()
        commits += 1
        let long = walFrames >= writerCheckpointFrames
        if long { walFrames = 0 }
        condition.unlock()
        if long { _ = try? pool.writeWithoutTransaction { try $0.checkpoint(.passive) } }
    }

    /// Stops the background thread and gives the writer its autocheckpoint back. Returns once stopped.
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        while !stopped { condition.wait() }
        condition.unlock()
        if let saved = savedAutocheckpoint {
            try? pool.writeWithoutTransaction { try $0.execute(sql: "PRAGMA wal_autocheckpoint = \(saved)") }
        }
    }

    private func run(_ background: DatabaseQueue) {
        while true {
            condition.lock()
            _ = condition.wait(until: Date(timeIntervalSinceNow: interval))
            let done = stopping
            let pending = commits
            commits = 0
            condition.unlock()
            if done { break }
            guard pending > 0 else { continue }
            // A failed pass (the disk full, the file gone) is tried again next time; the writer's commits
            // never depended on it.
            if let frames = try? background.writeWithoutTransaction({ try $0.checkpoint(.passive).walFrameCount }) {
                condition.lock()
                walFrames = frames
                condition.unlock()
            }
        }
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }
}
