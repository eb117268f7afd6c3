import Foundation
import StoreDeskStoreAPI

/// Where a new store may be built: nothing yet, or a regular file when `replacing` (`--force`). A device,
/// a fifo, a directory, a dangling symbolic link or a link loop is refused by its kind, in one line naming it.
public enum StoreDestination {
    public static func check(_ path: String, replacing: Bool) throws { try StorePath.checkDestination(path, replacing: replacing) }
}

/// Builds a file beside its destination (`NAME.building-PID`) and moves it into place only when
/// complete, so a store is either the old one or the whole new one. A destination that is a symbolic
/// link to a file is written through: the file it leads to is replaced that way, and the link stays.
///
/// The half-built file never outlives the build: an error removes it, and so do SIGINT, SIGTERM and
/// SIGHUP (`InterruptCleanup` unlinks it and the files SQLite keeps beside it, then the signal ends the
/// process as it would have). Only SIGKILL cannot be caught: the next build at the same path removes what a
/// killed build left (its process is gone).
enum FileReplacement {
    static func write(to destination: String, replacing: Bool, _ body: (String) throws -> Void) throws {
        let fm = FileManager.default
        try StorePath.checkDestination(destination, replacing: replacing)
        // A symbolic link to a store file is written through, never replaced: the new store is built beside
        // the file the link leads to (so the rename stays on that file's file system) and moved onto it.
        let path = StorePath.linkTarget(destination) ?? destination
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty && !fm.fileExists(atPath: directory) {
            do {
                try fm.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw StoreError.database(path: path, message: "cannot create folder \(directory)")
            }
        }
        removeAbandoned(besides: path)
        let temporary = path + ".building-\(getpid())"
        let cleanup = { for suffix in sidecars { try? fm.removeItem(atPath: temporary + suffix) } }
        cleanup()
        let registration = InterruptCleanup.register(sidecars.map { temporary + $0 })
        defer { InterruptCleanup.release(registration) }
        do {
            try body(temporary)
            // The build took a while: what is at the name now is judged again, just before it is replaced.
            try StorePath.checkDestination(path, replacing: true)
            for suffix in ["-wal", "-shm"] { try? fm.removeItem(atPath: path + suffix) }
            if rename(temporary, path) != 0 {
                throw StoreError.database(path: path, message: "cannot move the new store into place: \(String(cString: strerror(errno)))")
            }
        } catch {
            cleanup()
            throw error
        }
    }

    /// The file and what SQLite may keep beside it.
    static let sidecars = ["", "-wal", "-shm", "-journal"]

    /// Removes `NAME.building-PID` files whose process is gone (a build killed with SIGKILL).
    static func removeAbandoned(besides path: String) {
        let directory = (path as NSString).deletingLastPathComponent
        let prefix = (path as NSString).lastPathComponent + ".building-"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.isEmpty ? "." : directory) else { return }
        for name in names where name.hasPrefix(prefix) {
            let pidText = name.dropFirst(prefix.count).prefix { $0.isNumber }
            guard let pid = pid_t(pidText), pid != getpid(), kill(pid, 0) != 0, errno == ESRCH else { continue }
            let base = ((directory.isEmpty ? "." : directory) as NSString).appendingPathComponent(prefix + pidText)
            for suffix in sidecars { try? FileManager.default.removeItem(atPath: base + suffix) }
        }
    }
}
