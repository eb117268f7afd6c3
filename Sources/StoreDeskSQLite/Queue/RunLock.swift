import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A payment run's proof of life that the kernel keeps: an exclusive lock on byte `run` of the file
/// `STORE-runs` beside the store, held from before the run's row is committed until the run ends or
/// its process dies. The kernel drops it at any exit, `kill -9` included, and only then; a stopped or
/// slow process keeps it, so no clock decides that an owner is gone.
///
/// Open file description locks (`F_OFD_SETLK`): unlike classic POSIX locks they belong to the open
/// file, not the process, so closing some other descriptor of the file never drops them, and two runs
/// of one process (the console stops a simulation and starts another) each hold their own.
///
///     let lock = try RunLock.take(run: 7, store: "/data/x.sqlite")   // nil where locks do not work
///     RunLock.isHeld(run: 7, store: "/data/x.sqlite")                // true while the owner lives
final class RunLock: RunHold, @unchecked Sendable {
    /// The open lock file; -1 once released. Guarded by `mutex`.
    private var descriptor: Int32
    private let mutex = NSLock()

    private init(descriptor: Int32) { self.descriptor = descriptor }

    deinit { release() }

    /// Lets go of the lock (the run ended); closing the file is what frees it.
    func release() {
        mutex.withLock {
            guard descriptor >= 0 else { return }
            close(descriptor)
            descriptor = -1
        }
    }

    /// This boot of this machine (`/proc/sys/kernel/random/boot_id`): a run whose `host` differs was
    /// started on another machine, or before a reboot, where this machine's locks tell nothing.
    static let host: String? = {
        guard let text = try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8) else { return nil }
        let id = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return id.isEmpty ? nil : id
    }()

    /// `STORE-runs` beside the store, by the store's real path (a symlink and its target share one
    /// lock file); nil for an in-memory store.
    static func file(forStore path: String) -> String? {
        guard path != ":memory:", !path.isEmpty, let real = realpath(path, nil) else { return nil }
        defer { free(real) }
        return String(cString: real) + "-runs"
    }

    /// Takes the lock on byte `run`; nil where this machine cannot lock (no lock file can be made, or
    /// not Linux): the run then lives by its heartbeat alone. Throws when another process holds that
    /// byte, which only a run number handed out twice could cause.
    static func take(run: Int64, store path: String) throws -> RunLock? {
        #if os(Linux)
            guard host != nil, let file = file(forStore: path) else { return nil }
            var status = stat()
            let mode = stat(path, &status) == 0 ? mode_t(status.st_mode & 0o666) : 0o644
            let descriptor = open(file, O_RDWR | O_CREAT | O_CLOEXEC, mode)
            guard descriptor >= 0 else { return nil }
            var lock = byteLock(run, type: F_WRLCK)
            guard fcntl(descriptor, openFileSetLock, &lock) == 0 else {
                let reason = errno
                close(descriptor)
                if reason == EAGAIN || reason == EACCES {
                    throw StoreError.database(path: path, message: "payment run \(run)'s lock in \(file) is held by another process")
                }
                return nil
            }
            return RunLock(descriptor: descriptor)
        #else
            return nil
        #endif
    }

    /// Whether a process holds run `run`'s lock: nil when this machine cannot tell (the lock file
    /// cannot be read, or not Linux). A missing lock file means no run on this machine holds a lock.
    static func isHeld(run: Int64, store path: String) -> Bool? {
        #if os(Linux)
            guard let file = file(forStore: path) else { return nil }
            let descriptor = open(file, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { return errno == ENOENT ? false : nil }
            defer { close(descriptor) }
            var lock = byteLock(run, type: F_WRLCK)
            guard fcntl(descriptor, openFileGetLock, &lock) == 0 else { return nil }
            return lock.l_type != Int16(F_UNLCK)
        #else
            return nil
        #endif
    }

    #if os(Linux)
        /// `F_OFD_GETLK` and `F_OFD_SETLK` (Linux 3.15+), which Swift's Glibc module does not export.
        private static let openFileGetLock: Int32 = 36
        private static let openFileSetLock: Int32 = 37

        private static func byteLock(_ run: Int64, type: Int32) -> flock {
            var lock = flock()
            lock.l_type = Int16(type)
            lock.l_whence = Int16(SEEK_SET)
            lock.l_start = off_t(run)
            lock.l_len = 1
            lock.l_pid = 0
            return lock
        }
    #endif
}
