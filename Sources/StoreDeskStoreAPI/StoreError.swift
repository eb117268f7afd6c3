import Foundation
import StoreDeskCore

/// Everything that can go wrong with a store file, each said in one line that names the file or value.
public enum StoreError: Error, Equatable, CustomStringConvertible, Sendable {
    case missing(path: String)
    case notSQLite(path: String)
    case notAStore(path: String)
    case newerSchema(path: String, unknown: [String])
    case olderSchema(path: String, missing: [String])
    case readOnlyFile(path: String)
    /// A write refused before the file was opened: the file or its folder cannot be written.
    case notWritable(path: String, reason: String)
    /// `--db` names a fifo, a directory or a device: opening it could block, and it is no store.
    case notRegularFile(path: String, kind: String)
    case locked(path: String)
    case exists(path: String)
    case dataFile(path: String, message: String)
    case unknownUser(id: String)
    case invalidArgument(String)
    case database(path: String, message: String)
    /// A store behind a server that cannot be reached now, or that dropped the connection: nothing was
    /// written by the step that failed, and the next step tries again (the console says "reconnecting").
    case unreachable(path: String, reason: String)
    /// The file holds a StoreDesk schema but something in it was changed by hand (a dropped key, a
    /// clock that is not a date): `check` names it.
    case damaged(path: String, detail: String)
    /// A payment run's commit was refused: it ended, or another process took its work over.
    case runEnded(path: String, run: Int64, takenOverBy: Int64?)

    public var description: String {
        switch self {
        case .missing(let path): "no store at \(path) (`storedesk config show` names your store file; `storedesk seed --db \(path)` makes a new one)"
        case .notSQLite(let path): "\(path) is not a SQLite database"
        case .notAStore(let path): "\(path) is a SQLite database but not a StoreDesk store (no StoreDesk schema)"
        case .newerSchema(let path, let unknown):
            "\(path) was written by a newer StoreDesk (unknown migrations: \(unknown.joined(separator: ", "))): upgrade storedesk"
        case .olderSchema(let path, let missing):
            "\(path) has an older schema (needs \(missing.joined(separator: ", "))): rerun with --migrate to upgrade it"
        case .readOnlyFile(let path) where path.contains("://"):
            "\(path) cannot be written from here: the server, the role or this session is read-only (ask for a role that may write)"
        case .readOnlyFile(let path):
            "\(path) cannot be written (SQLite says it is read-only): check the permissions of the file, its -wal and -shm files and its folder"
        case .notWritable(let path, let reason):
            "cannot write \(path): \(reason); commands that only read it work as they are (the console opens it read-only)"
        case .notRegularFile(let path, let kind): "\(path) is \(kind), not a store file: --db takes a SQLite file"
        case .locked(let path): "\(path) is locked by another process: try again when it is done"
        case .exists(let path): "\(path) already exists: pass --force to replace it"
        case .dataFile(let path, let message): "\(path): \(message)"
        case .unknownUser(let id): "no user with id '\(id.echoed)'"
        case .invalidArgument(let message): message
        case .database(let path, let message): "\(path): \(message)"
        case .unreachable(let path, let reason): "\(path): \(reason)"
        case .damaged(let path, let detail):
            "\(path) is damaged: \(detail); `storedesk check --db \(path)` lists what is wrong"
        case .runEnded(let path, let run, let by?):
            "\(path): payment run \(run) was taken over by run \(by), which found it gone: this process stops writing"
        case .runEnded(let path, let run, nil): "\(path): payment run \(run) has ended: it writes nothing more"
        }
    }
}
