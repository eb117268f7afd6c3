import StoreDeskCore

/// How long a SQLite store's writer waits for another process's lock before it gives up: 60 s, or
/// `STOREDESK_LOCK_WAIT` seconds (0 to 3600) from the environment, for a script that would rather fail
/// soon than wait its turn. The executable refuses any other value before it opens a store.
///
///     STOREDESK_LOCK_WAIT=2 storedesk restore decline 2000000100000095 --reason "duplicate"
public enum LockWait {
    public static let variable = "STOREDESK_LOCK_WAIT"

    /// Its milliseconds when set and valid (else nil), and the problem with a value that is not seconds
    /// from 0 to 3600.
    public static func read(_ environment: [String: String]) -> (milliseconds: Int?, problem: String?) {
        guard let text = environment[variable] else { return (nil, nil) }
        guard let seconds = Double(text.trimmingCharacters(in: .whitespaces)), seconds.isFinite, (0...3600).contains(seconds) else {
            return (nil, "\(variable) must be seconds from 0 to 3600 (how long to wait for another writer), got '\(text.echoed)'")
        }
        return (Int((seconds * 1000).rounded()), nil)
    }
}
