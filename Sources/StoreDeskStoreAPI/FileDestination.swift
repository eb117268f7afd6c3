import Foundation

/// What is at a path a command is about to put a new file at (an export, a new store), found out with
/// `lstat` alone: nothing is opened, so a fifo cannot block and a device cannot be written.
///
/// The rule every such writer shares: only nothing or a regular file may be written over (and a regular
/// file only when the operator says so, `--force` or `:export!`). A directory, a device, a fifo, a socket
/// or a symbolic link is refused by its kind, in one line naming the path: renaming a new file there
/// would destroy what is no file of ours (as root, `/dev/full`).
///
///     FileDestination.inspect("/tmp/users.csv", links: .refused)   // .success(.nothing)
///     FileDestination.inspect("/dev/null", links: .refused)        // .failure(.notRegularFile("a character device"))
public enum FileDestination {
    /// What a symbolic link at the path is taken for.
    public enum Links: Sendable {
        /// Refused, whatever it leads to: an export's rename would replace the link itself.
        case refused
        /// Looked through to what it finally leads to, which the same rule then judges (a store is built
        /// beside the file a link leads to and moved onto it, the link kept). A dangling link or a loop
        /// is refused.
        case followed
    }

    public enum Found: Hashable, Sendable {
        case nothing
        case regularFile
    }

    public enum Problem: Error, Hashable, Sendable {
        /// What is there instead: "a character device", "a symbolic link (to /dev/full)".
        case notRegularFile(String)
        /// `lstat` failed for another reason than the name being free (a folder that cannot be searched).
        case cannotLook(String)
    }

    public static func inspect(_ path: String, links: Links) -> Result<Found, Problem> {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT || errno == ENOTDIR { return .success(.nothing) }
            return .failure(.cannotLook(String(cString: strerror(errno))))
        }
        var kind = info.st_mode & S_IFMT
        if kind == S_IFLNK {
            switch links {
            case .refused: return .failure(.notRegularFile(linkName(path)))
            case .followed:
                if let broken = brokenLink(path) { return .failure(.notRegularFile(broken)) }
                guard stat(path, &info) == 0 else { return .failure(.cannotLook(String(cString: strerror(errno)))) }
                kind = info.st_mode & S_IFMT
            }
        }
        return kind == S_IFREG ? .success(.regularFile) : .failure(.notRegularFile(kindName(kind)))
    }

    /// "a symbolic link (to TARGET)", as `readlink` tells it.
    static func linkName(_ path: String) -> String {
        guard let target = linkText(path) else { return kindName(S_IFLNK) }
        return "\(kindName(S_IFLNK)) (to \(target))"
    }

    /// What a symbolic link at `path` is when following it finds no file: "a dangling symbolic link (to
    /// TARGET)" or "a symbolic link loop"; nil when `path` is no link or leads to something.
    public static func brokenLink(_ path: String) -> String? {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFLNK else { return nil }
        var followed = stat()
        if stat(path, &followed) == 0 { return nil }
        if errno == ELOOP { return "a symbolic link loop" }
        return linkText(path).map { "a dangling symbolic link (to \($0))" } ?? "a dangling symbolic link"
    }

    static func linkText(_ path: String) -> String? {
        var target = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &target, Int(PATH_MAX))
        guard count > 0 else { return nil }
        return String(decoding: target.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    public static func kindName(_ kind: mode_t) -> String {
        switch kind {
        case S_IFDIR: "a directory"
        case S_IFIFO: "a fifo (named pipe)"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFSOCK: "a socket"
        case S_IFLNK: "a symbolic link"
        default: "not a regular file"
        }
    }
}
