import Foundation
import Testing

/// A store slower than a frame never freezes the console (store calls run off the render loop).
/// The slow store here is a real one: another process holds the SQLite file's write lock (the sqlite3 CLI
/// in `BEGIN EXCLUSIVE`, sleeping), so the console's decline waits its turn for seconds, as a write to a
/// PostgreSQL server far away or behind another machine's lock would.
@Suite struct SlowStoreInTmuxTests {
    @Test func aWriteWaitingForALockLeavesTheConsoleLiveAndSaysLoading() throws {
        let home = TemporaryHome()
        let tmux = try ConsoleInTmuxTests.Tmux.console(home: home, width: 80, height: 24, arguments: ["--role", "support"])
        try tmux.waitFor("support")
        try tmux.keys("3")
        try tmux.waitFor("1 of 3 ──")

        // Another process takes the store's write lock and keeps it for five seconds.
        let locked = home.path("locked")
        let holder = try shell(
            "sqlite3 \(home.defaultStore) 'BEGIN EXCLUSIVE;' '.shell touch \(locked); sleep 5' 'COMMIT;' >/dev/null 2>&1 &")
        #expect(holder.status == 0, "\(holder.output)")
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: locked) && Date() < deadline { usleep(20_000) }
        #expect(FileManager.default.fileExists(atPath: locked), "the sqlite3 CLI never took the lock")
        let lockedAt = Date()

        try tmux.keys("g", "d")
        try tmux.waitFor("reason to decline 2000000100000093: ")
        try tmux.literal("slow store")
        try tmux.keys("Enter")
        try tmux.waitFor("y/n")
        try tmux.literal("y")
        // The decline waits for the lock: the header says so, and the console goes on taking keys.
        var screen = try tmux.waitFor("loading…", timeout: 3)
        #expect(!screen.contains("declined"), "\(screen)")
        try tmux.keys("j")
        screen = try tmux.waitFor("2 of 3 ──", timeout: 3)
        #expect(Date().timeIntervalSince(lockedAt) < 5, "the console answered only once the lock was gone")
        // The header says so (the detail pane, waiting for its read behind the decline, says "loading…" too).
        let header = screen.split(separator: "\n").first.map(String.init) ?? ""
        #expect(header.hasSuffix(" loading… ") || header.hasSuffix(" loading…"), "\(header)")
        #expect(!screen.contains("declined"), "\(screen)")

        // The lock goes; the decline is saved, said, and the header no longer waits.
        screen = try tmux.waitFor("declined 2000000100000093: slow store", timeout: 20)
        #expect(Date().timeIntervalSince(lockedAt) >= 4.5, "the decline was saved while another process held the lock")
        screen = try tmux.waitFor("of 2 ──", timeout: 5)
        #expect(!(screen.split(separator: "\n").first ?? "").contains("loading…"), "\(screen)")
        #expect(try tmux.quit(home: home).hasPrefix("EXIT=0"))
        let reason = try shell(
            "sqlite3 \(home.defaultStore) \"SELECT reason FROM restore_request WHERE transaction_id = '2000000100000093'\"").output
        #expect(reason.trimmingCharacters(in: .whitespacesAndNewlines) == "slow store")
    }
}
