import Foundation

/// What is at a store's path, found out without any open that could block or write: `stat`, `access`
/// and one non-blocking read of the SQLite header.
///
/// A fifo's `open` waits for a writer and a terminal device's read waits for a key, so a `--db` naming
/// either would hang every command (and the console before it draws); they are refused here, by their
/// kind, before SQLite ever sees the path. The header also says whether the file is in WAL mode, which
/// decides how a read-only open can avoid creating `-wal` and `-shm` files beside it.
///
///     let file = try StorePath(path: "demo.sqlite")
///     file.isWAL                 // true for a store the console has opened
///     file.whyNotWritable        // nil, or "it is read-only (mode 0444)"
struct StorePath {
    let path: String
    /// The file's permission bits.
    let mode: mode_t
    /// The SQLite header's read and write versions are 2: the file is in WAL mode.
    let isWAL: Bool

    /// Checks that `path` is a readable regular file that starts like a SQLite 3 database.
    init(path: String) throws {
        self.path = path
        var info = stat()
        guard stat(path, &info) == 0 else {
            let error = errno
            if let link = FileDestination.brokenLink(path) { throw StoreError.notRegularFile(path: path, kind: link) }
            if error == ENOENT || error == ENOTDIR { throw StoreError.missing(path: path) }
            throw StoreError.database(path: path, message: "cannot look at the file: \(String(cString: strerror(error)))")
        }
        let kind = info.st_mode & S_IFMT
        guard kind == S_IFREG else { throw StoreError.notRegularFile(path: path, kind: FileDestination.kindName(kind)) }
        mode = info.st_mode & 0o7777
        guard access(path, R_OK) == 0 else {
            throw StoreError.database(
                path: path, message: "this user cannot read the file (permission denied): ask its owner for read access")
        }
        // O_NONBLOCK: the file was regular a moment ago, but must not become a fifo that blocks us now.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard fd >= 0 else { throw StoreError.database(path: path, message: "cannot open the file: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var check = stat()
        guard fstat(fd, &check) == 0, check.st_mode & S_IFMT == S_IFREG else {
            throw StoreError.notRegularFile(path: path, kind: FileDestination.kindName(check.st_mode & S_IFMT))
        }
        var header = [UInt8](repeating: 0, count: 20)
        let count = header.withUnsafeMutableBytes { read(fd, $0.baseAddress, 20) }
        guard count == 20, header.prefix(16).elementsEqual("SQLite format 3\0".utf8) else { throw StoreError.notSQLite(path: path) }
        isWAL = header[18] == 2 && header[19] == 2
    }

    /// The folder the file is in ("." for a bare name).
    var directory: String {
        let folder = (path as NSString).deletingLastPathComponent
        return folder.isEmpty ? "." : folder
    }

    /// Why this process must not write the store, or nil when it may. The permission bits count even for
    /// root, who could write anyway: a `chmod a-w` says "hands off". SQLite also writes beside the store
    /// (its `-journal`, or `-wal` and `-shm`), so the folder must be writable too.
    var whyNotWritable: String? {
        if mode & 0o222 == 0 { return "it is read-only (mode \(String(mode, radix: 8)))" }
        if access(path, W_OK) != 0 { return "this user may not write it" }
        if access(directory, W_OK) != 0 {
            return "its folder \(directory) is not writable, and SQLite keeps its journal beside the store"
        }
        return nil
    }

    /// Whether a read-only open must be `immutable` to leave the folder alone: a WAL file that no one
    /// is writing (no `-wal` beside it) in a place nobody may write. There an ordinary read-only open
    /// either fails (SQLite cannot create `-shm` in a read-only folder) or leaves `-wal` and `-shm`
    /// files beside a file its owner made read-only.
    var readsImmutable: Bool {
        guard isWAL, access(path + "-wal", F_OK) != 0 else { return false }
        return mode & 0o222 == 0 || access(directory, W_OK) != 0
    }

    /// The URI that opens the file for reading without locks or journal files: SQLite is told nothing
    /// can change it (`immutable=1`), which is true where no one may write.
    var immutableURI: String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "?#%")
        let escaped = absolute.addingPercentEncoding(withAllowedCharacters: allowed) ?? absolute
        return "file:" + escaped + "?mode=ro&immutable=1"
    }

    /// The path a look at the schema before a write opens: `immutableURI` for a WAL file no one has open
    /// (no `-wal` beside it), so a store that is then refused is left without `-wal` and `-shm` files,
    /// else `sqlitePath`.
    var inspectionPath: String {
        isWAL && access(path + "-wal", F_OK) != 0 ? immutableURI : sqlitePath
    }

    /// The path as SQLite should see it: a relative name that begins with `file:` would be read as a URI
    /// (Debian's SQLite is built with URI names on), so it is written `./file:...`.
    var sqlitePath: String { path.hasPrefix("file:") ? "./" + path : path }

    /// The file a symbolic link at `path` finally leads to (every link followed, an absolute path), or nil
    /// when `path` is no link or leads nowhere (`FileDestination.brokenLink` says which).
    static func linkTarget(_ path: String) -> String? {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFLNK, let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Refuses to build a store at `path` over anything but nothing or a regular file, by
    /// `FileDestination`'s rule (a symbolic link is looked through: the store is built onto the file it
    /// leads to), and over a regular file unless `replacing`.
    static func checkDestination(_ path: String, replacing: Bool) throws {
        switch FileDestination.inspect(path, links: .followed) {
        case .success(.nothing): return
        case .success(.regularFile): if !replacing { throw StoreError.exists(path: path) }
        case .failure(.notRegularFile(let kind)): throw StoreError.notRegularFile(path: path, kind: kind)
        case .failure(.cannotLook(let reason)): throw StoreError.database(path: path, message: "cannot look at the file: \(reason)")
        }
    }
}
